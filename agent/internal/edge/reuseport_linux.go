package edge

import "syscall"

// soReusePort is SO_REUSEPORT on Linux (amd64 and arm64; the syscall package does not name it).
const soReusePort = 0xf

// shareAddress sets SO_REUSEPORT: the port is bound while the Node proxy still listens on it
// (it serves the port while the edge is down, and closes its listener once the edge listens).
func shareAddress(_, _ string, c syscall.RawConn) error {
	var err error
	if cerr := c.Control(func(fd uintptr) {
		err = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, soReusePort, 1)
	}); cerr != nil {
		return cerr
	}
	return err
}
