package box

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"
	"unsafe"
)

// openPty opens a new pseudo-terminal pair through /dev/ptmx (what posix_openpt, unlockpt and ptsname do).
func openPty() (master, slave *os.File, err error) {
	master, err = os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, nil, err
	}
	var unlock int32
	if err = ioctl(master, syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); err != nil {
		master.Close()
		return nil, nil, err
	}
	var n uint32
	if err = ioctl(master, syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); err != nil {
		master.Close()
		return nil, nil, err
	}
	slave, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		master.Close()
		return nil, nil, err
	}
	return master, slave, nil
}

// ioctl on f's descriptor without f.Fd(), which would put the file in blocking mode (and its reads past deadlines).
func ioctl(f *os.File, req uint, arg uintptr) error {
	raw, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var errno syscall.Errno
	if err := raw.Control(func(fd uintptr) {
		_, _, errno = syscall.Syscall(syscall.SYS_IOCTL, fd, uintptr(req), arg)
	}); err != nil {
		return err
	}
	if errno != 0 {
		return errno
	}
	return nil
}

func setWinsize(f *os.File, cols, rows uint16) error {
	ws := struct{ Row, Col, X, Y uint16 }{Row: rows, Col: cols}
	return ioctl(f, syscall.TIOCSWINSZ, uintptr(unsafe.Pointer(&ws)))
}

// ttyDrain is how long the terminal is read after its process exits, for what it wrote last.
const ttyDrain = 150 * time.Millisecond

// ttyDrainMax bounds the read of a terminal past its deadline while it still holds output.
const ttyDrainMax = 2 * time.Second

// copyTerminal copies the terminal's output to out until it closes, or until its read deadline
// (set once the process exits) passes with nothing left to read. A read past its deadline fails
// without reading, so what the process wrote last and a busy machine kept this goroutine from
// reading in time is still copied: the deadline moves on while the terminal holds unread bytes,
// for at most ttyDrainMax (a background job writing without pause would hold it open forever).
func copyTerminal(out io.Writer, master *os.File) {
	buf := make([]byte, 32<<10)
	var late time.Time
	for {
		n, err := master.Read(buf)
		if n > 0 {
			if _, werr := out.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err == nil {
			continue
		}
		if late.IsZero() {
			late = time.Now()
		}
		if !errors.Is(err, os.ErrDeadlineExceeded) || unread(master) == 0 || time.Since(late) > ttyDrainMax {
			return
		}
		_ = master.SetReadDeadline(time.Now().Add(ttyDrain))
	}
}

// unread is how many bytes the terminal holds for its master to read (0 when it cannot say).
func unread(master *os.File) int {
	var n int32
	if ioctl(master, syscall.TIOCINQ, uintptr(unsafe.Pointer(&n))) != nil {
		return 0
	}
	return int(n)
}

// startWithTty runs cmd on a new terminal: its output, raw, onto out; input from in to the terminal.
func (e *boxExec) startWithTty(cmd *exec.Cmd, in *bufio.Reader, out closeWriter) (func(), error) {
	master, slave, err := openPty()
	if err != nil {
		return nil, err
	}
	cols, rows := e.terminalSize()
	_ = setWinsize(master, cols, rows)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr.Setctty = true
	cmd.SysProcAttr.Ctty = 0
	exited, startErr := e.children.start(cmd)
	slave.Close()
	if startErr != nil {
		master.Close()
		return nil, startErr
	}
	e.mu.Lock()
	e.pty = master
	if e.size != nil { // asked for while the process was being made
		_ = setWinsize(master, e.size[0], e.size[1])
	}
	e.mu.Unlock()
	e.begin(cmd.Process.Pid)
	if e.spec.Stdin {
		go func() { _, _ = io.Copy(master, in) }()
	}
	return func() {
		copied := make(chan struct{})
		go func() {
			copyTerminal(out, master)
			close(copied)
		}()
		status := <-exited
		// As the engine's exec: the output ends with the process, not with the last holder of the
		// terminal (a background job left running keeps it open). What it wrote is still read.
		_ = master.SetReadDeadline(time.Now().Add(ttyDrain))
		<-copied
		e.mu.Lock()
		e.pty = nil
		e.mu.Unlock()
		master.Close()
		e.finish(codeOf(status))
	}, nil
}
