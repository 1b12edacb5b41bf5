package chromium

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestAnotherUserCannotReachTheBrowser: a browser Rote runs listens on
// no TCP port at all, and its relay refuses another local user twice
// over: the user cannot enter the relay's directory, and when the
// directory is opened up (a careless chmod), the relay closes the
// user's connection unread. The other user is a real account made for
// the test.
func TestAnotherUserCannotReachTheBrowser(t *testing.T) {
	if os.Getenv("CHROMIUM_TEST_PROBE") != "" {
		probe(os.Getenv("CHROMIUM_TEST_PROBE"))
		return
	}
	if os.Getuid() != 0 {
		t.Fatal("making another Unix user takes root: run the tests as root, as CI does")
	}
	if _, err := exec.LookPath("useradd"); err != nil {
		t.Fatal("no useradd on this machine: scripts/setup installs it (Debian's passwd)")
	}
	other := otherUser(t)
	p, err := Launch(testContext(t), "")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Kill()
	endpoint, err := p.Share()
	if err != nil {
		t.Fatal(err)
	}
	if ports := listeningPorts(t, p.cmd.Process.Pid); len(ports) > 0 {
		t.Fatalf("the browser listens on TCP: %v", ports)
	}
	if out, err := exec.Command("ss", "-ltnp").Output(); err == nil && strings.Contains(string(out), "chromium") {
		t.Fatalf("ss -ltnp shows a chromium listener:\n%s", out)
	}

	sock := strings.TrimPrefix(endpoint, relayPrefix)
	probeBin := shareBinary(t)
	run := func() string {
		t.Helper()
		cmd := exec.Command(probeBin, "-test.run=^TestAnotherUserCannotReachTheBrowser$")
		cmd.Env = []string{"CHROMIUM_TEST_PROBE=" + sock}
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: other.uid, Gid: other.gid}}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("the probe as %s: %v\n%s", other.name, err, out)
		}
		return string(out)
	}
	if out := run(); !strings.Contains(out, "refused:") || !strings.Contains(out, "permission denied") {
		t.Fatalf("another user reached the relay's socket:\n%s", out)
	}
	// Opened up, the socket lets the user connect; the relay hangs up.
	if err := os.Chmod(filepath.Dir(sock), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(sock, 0o666); err != nil {
		t.Fatal(err)
	}
	if out := run(); !strings.Contains(out, "closed unanswered") {
		t.Fatalf("another user was answered by the relay:\n%s", out)
	}
	if !p.Alive() {
		t.Fatal("the browser died")
	}
}

// probe is the other user's side: it connects to the relay, asks for the
// browser's version and says what happened.
func probe(sock string) {
	conn, err := net.Dial("unix", sock)
	if err != nil {
		fmt.Println("refused:", err)
		return
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := conn.Write([]byte(`{"id":1,"method":"Browser.getVersion"}` + "\x00")); err != nil {
		fmt.Println("closed unanswered:", err)
		return
	}
	answer, err := bufio.NewReader(conn).ReadString(0)
	if err == io.EOF || (err != nil && answer == "") {
		fmt.Println("closed unanswered:", err)
		return
	}
	fmt.Println("ANSWERED:", answer)
}

type account struct {
	name     string
	uid, gid uint32
}

// otherUser makes a Unix account for the test and removes it after.
func otherUser(t *testing.T) account {
	t.Helper()
	name := fmt.Sprintf("roteprobe%d", os.Getpid()%100000)
	if out, err := exec.Command("useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", name).CombinedOutput(); err != nil {
		t.Fatalf("useradd: %v\n%s", err, out)
	}
	t.Cleanup(func() { exec.Command("userdel", name).Run() })
	u, err := user.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return account{name: name, uid: uint32(uid), gid: uint32(gid)}
}

// shareBinary copies the test binary where any user may run it.
func shareBinary(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "rote-probe-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "probe")
	if err := os.WriteFile(bin, raw, 0o755); err != nil {
		t.Fatal(err)
	}
	return bin
}

// listeningPorts are the TCP sockets in LISTEN state that the process
// pid or any process under it holds, as /proc shows them.
func listeningPorts(t *testing.T, pid int) []string {
	t.Helper()
	listening := map[string]string{} // socket inode -> local address
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		raw, err := os.ReadFile(table)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(raw), "\n")[1:] {
			f := strings.Fields(line)
			if len(f) > 9 && f[3] == "0A" {
				listening[f[9]] = f[1]
			}
		}
	}
	var found []string
	for _, p := range processTree(pid) {
		fds, _ := filepath.Glob(fmt.Sprintf("/proc/%d/fd/*", p))
		for _, fd := range fds {
			link, err := os.Readlink(fd)
			if inode, ok := strings.CutPrefix(link, "socket:["); ok && err == nil {
				if addr, ok := listening[strings.TrimSuffix(inode, "]")]; ok {
					found = append(found, fmt.Sprintf("pid %d %s", p, addr))
				}
			}
		}
	}
	return found
}

// processTree is pid and every process under it.
func processTree(pid int) []int {
	children := map[int][]int{}
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, stat := range stats {
		raw, err := os.ReadFile(stat)
		if err != nil {
			continue
		}
		_, rest, _ := strings.Cut(string(raw), ") ")
		f := strings.Fields(rest)
		if len(f) < 2 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		child, _ := strconv.Atoi(filepath.Base(filepath.Dir(stat)))
		children[ppid] = append(children[ppid], child)
	}
	tree := []int{pid}
	for i := 0; i < len(tree); i++ {
		tree = append(tree, children[tree[i]]...)
	}
	return tree
}
