//go:build !linux

package bus

import (
	"errors"
	"net"
)

// listenerOwners is not known off Linux: a process cannot tell that the
// server a data directory names is its owner's, so it does not join it.
func listenerOwners(*net.TCPAddr) ([]int, error) {
	return nil, errors.New("the owner of a listening socket cannot be read on this system")
}
