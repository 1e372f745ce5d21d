package box

import (
	"io"
	"net"
	"os"
	"syscall"
)

// The bytes of a file answer (GET /v1/files/content) go from the file to the core's connection
// with sendfile(2): the kernel moves them, without a copy through the agent and without one
// read and one write per 32 KiB (what net/http does for a connection that is not TCP).

// sendChunk is the most one sendfile call is asked to move.
const sendChunk = 4 << 20

// contentSendBuffer is the connection's send buffer while a file goes out: the core then finds
// more waiting at each read, and the two processes take turns less often (the kernel caps it at
// net.core.wmem_max).
const contentSendBuffer = 4 << 20

// writerOnly hides a writer's ReadFrom, so io.CopyBuffer uses the buffer it is given
// (os.File.ReadFrom would copy a socket body through its own 32 KiB one).
type writerOnly struct{ io.Writer }

// sendFile writes r to conn with sendfile when r is a file (or a LimitedReader of one) and conn
// has a descriptor; handled is false when it did neither and nothing was written.
func sendFile(conn net.Conn, r io.Reader) (written int64, handled bool, err error) {
	remain := int64(1<<63 - 1)
	limited, isLimited := r.(*io.LimitedReader)
	if isLimited {
		remain, r = limited.N, limited.R
	}
	f, isFile := r.(*os.File)
	sc, hasFd := conn.(syscall.Conn)
	if !isFile || !hasFd || remain <= 0 {
		return 0, false, nil
	}
	if fi, serr := f.Stat(); serr != nil || !fi.Mode().IsRegular() {
		return 0, false, nil // a pipe or a terminal: read and written as before
	}
	out, err := sc.SyscallConn()
	if err != nil {
		return 0, false, nil
	}
	in, err := f.SyscallConn()
	if err != nil {
		return 0, false, nil
	}
	_ = out.Control(func(fd uintptr) {
		_ = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_SNDBUF, contentSendBuffer)
	})
	var sendErr error
	ctlErr := in.Control(func(infd uintptr) {
		sendErr = out.Write(func(outfd uintptr) bool {
			for remain > 0 {
				ask := remain
				if ask > sendChunk {
					ask = sendChunk
				}
				n, e := syscall.Sendfile(int(outfd), int(infd), nil, int(ask))
				if n > 0 {
					written += int64(n)
					remain -= int64(n)
				}
				switch {
				case e == syscall.EINTR:
					continue
				case e == syscall.EAGAIN:
					return false // wait until the connection can take more
				case e != nil:
					err = os.NewSyscallError("sendfile", e)
					return true
				case n == 0:
					return true // the file ended early: the caller sees the short count
				}
			}
			return true
		})
	})
	if isLimited {
		limited.N = remain
	}
	if written == 0 && err != nil {
		if se, ok := err.(*os.SyscallError); ok && (se.Err == syscall.EINVAL || se.Err == syscall.ENOSYS) {
			return 0, false, nil // a file the kernel cannot send from: copied instead
		}
	}
	if err == nil {
		err = sendErr
	}
	if err == nil {
		err = ctlErr
	}
	return written, true, err
}
