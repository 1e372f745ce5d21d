//go:build !linux

package edge

import (
	"errors"
	"net"
	"syscall"
)

// shareAddress: the edge is built for Linux only (the core runs it there alone).
func shareAddress(_, _ string, _ syscall.RawConn) error {
	return errors.New("--reuse-port is for Linux only")
}

func steerToSelf(_ net.Listener) error {
	return errors.New("--reuse-port is for Linux only")
}
