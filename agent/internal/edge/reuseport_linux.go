package edge

import (
	"errors"
	"net"
	"syscall"
	"unsafe"
)

// soReusePort is SO_REUSEPORT on Linux (amd64 and arm64; the syscall package does not name it).
const soReusePort = 0xf

// soAttachReuseportCBPF is SO_ATTACH_REUSEPORT_CBPF (Linux 4.5).
const soAttachReuseportCBPF = 51

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

// steerToSelf gives every new connection to the port to this listener, not to the Node proxy's
// beside it: a classic BPF program on the port's SO_REUSEPORT group that picks the group's second
// socket (the Node proxy's listener is the first; a socket joins at the end). A listener that
// closes resets the connections still queued on it, so the Node proxy's must take no new ones
// before it closes. Once it has closed this listener is the group's only socket, and the index
// the program gives is past the end: the kernel then picks by hash among one.
func steerToSelf(ln net.Listener) error {
	tl, ok := ln.(*net.TCPListener)
	if !ok {
		return errors.New("not a TCP listener")
	}
	rc, err := tl.SyscallConn()
	if err != nil {
		return err
	}
	// BPF_RET | BPF_K: the socket at index 1.
	filter := []syscall.SockFilter{{Code: 0x06, K: 1}}
	prog := syscall.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	var serr error
	if cerr := rc.Control(func(fd uintptr) {
		_, _, errno := syscall.Syscall6(syscall.SYS_SETSOCKOPT, fd, syscall.SOL_SOCKET, soAttachReuseportCBPF,
			uintptr(unsafe.Pointer(&prog)), unsafe.Sizeof(prog), 0)
		if errno != 0 {
			serr = errno
		}
	}); cerr != nil {
		return cerr
	}
	return serr
}
