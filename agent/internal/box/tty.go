package box

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
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

func ioctl(f *os.File, req uint, arg uintptr) error {
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), uintptr(req), arg); errno != 0 {
		return errno
	}
	return nil
}

func setWinsize(f *os.File, cols, rows uint16) error {
	ws := struct{ Row, Col, X, Y uint16 }{Row: rows, Col: cols}
	return ioctl(f, syscall.TIOCSWINSZ, uintptr(unsafe.Pointer(&ws)))
}

// startWithTty runs cmd on a new terminal: its output, raw, onto out; input from in to the terminal.
func (e *boxExec) startWithTty(cmd *exec.Cmd, in *bufio.Reader, out closeWriter) (func(), error) {
	master, slave, err := openPty()
	if err != nil {
		return nil, err
	}
	_ = setWinsize(master, 80, 24)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr.Setctty = true
	cmd.SysProcAttr.Ctty = 0
	startErr := cmd.Start()
	slave.Close()
	if startErr != nil {
		master.Close()
		return nil, startErr
	}
	e.mu.Lock()
	e.pty = master
	e.mu.Unlock()
	e.begin(cmd.Process.Pid)
	if e.spec.Stdin {
		go func() { _, _ = io.Copy(master, in) }()
	}
	return func() {
		// The terminal's output ends (EIO) once every process holding it is gone.
		_, _ = io.Copy(out, master)
		err := cmd.Wait()
		e.mu.Lock()
		e.pty = nil
		e.mu.Unlock()
		master.Close()
		e.finish(exitCode(err, cmd.ProcessState))
	}, nil
}
