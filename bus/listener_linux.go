package bus

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
)

// listenerOwners are the user ids of the local sockets listening on
// addr's port that a connection to addr can reach (addr itself or a
// wildcard), as the kernel lists them in /proc/net/tcp and tcp6: the
// listener's owner cannot be forged by whoever listens.
func listenerOwners(addr *net.TCPAddr) ([]int, error) {
	var owners []int
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		raw, err := os.ReadFile(table)
		if os.IsNotExist(err) {
			continue // no IPv6 on this host
		}
		if err != nil {
			return nil, err
		}
		sc := bufio.NewScanner(bytes.NewReader(raw))
		sc.Scan() // the header
		for sc.Scan() {
			f := bytes.Fields(sc.Bytes())
			const listening = "0A"
			if len(f) < 8 || string(f[3]) != listening {
				continue
			}
			ip, port, ok := procAddr(string(f[1]))
			if !ok || port != addr.Port || !(ip.Equal(addr.IP) || ip.IsUnspecified()) {
				continue
			}
			uid, err := strconv.Atoi(string(f[7]))
			if err != nil {
				return nil, fmt.Errorf("%s: uid %q", table, f[7])
			}
			owners = append(owners, uid)
		}
	}
	return owners, nil
}

// procAddr parses an address of /proc/net/tcp: the IP as 32-bit words,
// each the network-order bytes read as a host-order integer and printed
// in hex, then a colon and the port in hex.
func procAddr(s string) (net.IP, int, bool) {
	h, p, ok := strings.Cut(s, ":")
	if !ok || (len(h) != 8 && len(h) != 32) {
		return nil, 0, false
	}
	ip := make(net.IP, 0, len(h)/2)
	for i := 0; i < len(h); i += 8 {
		w, err := strconv.ParseUint(h[i:i+8], 16, 32)
		if err != nil {
			return nil, 0, false
		}
		ip = binary.NativeEndian.AppendUint32(ip, uint32(w))
	}
	port, err := strconv.ParseUint(p, 16, 16)
	if err != nil {
		return nil, 0, false
	}
	return ip, int(port), true
}
