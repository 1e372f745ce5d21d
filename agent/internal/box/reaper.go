package box

import (
	"os"
	"os/exec"
	"os/signal"
	"sync"
	"syscall"
)

// reaper waits for every child process in one place. As a box's PID 1 the agent inherits every
// orphan in the box and must reap them all; the processes it started itself (the main process,
// each exec) get their status handed back. os/exec's Wait cannot be used beside a wait for any
// child: whichever waits first takes the status. Starting and registering a process happen under
// the same lock the reaper takes, so a process that exits at once is never reaped unregistered.
type reaper struct {
	mu      sync.Mutex
	waiting map[int]chan syscall.WaitStatus
}

const prSetChildSubreaper = 36

func newReaper() *reaper {
	r := &reaper{waiting: map[int]chan syscall.WaitStatus{}}
	if os.Getpid() != 1 {
		// Not PID 1 (an engine init runs first, or a test): orphans of our processes still come to us.
		_, _, _ = syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0)
	}
	children := make(chan os.Signal, 64)
	signal.Notify(children, syscall.SIGCHLD)
	go func() {
		for range children {
			r.reap()
		}
	}()
	return r
}

// start starts cmd and returns a channel that gets its status when it exits.
func (r *reaper) start(cmd *exec.Cmd) (<-chan syscall.WaitStatus, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	done := make(chan syscall.WaitStatus, 1)
	r.waiting[cmd.Process.Pid] = done
	return done, nil
}

// reap collects every child that has exited: its own go to whoever waits, orphans are let go.
func (r *reaper) reap() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for {
		var status syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &status, syscall.WNOHANG, nil)
		if err == syscall.EINTR {
			continue
		}
		if pid <= 0 || err != nil {
			return
		}
		if done, ok := r.waiting[pid]; ok {
			delete(r.waiting, pid)
			done <- status
		}
	}
}

// codeOf is an exit status as a shell reports it: 128+N when signal N ended the process.
func codeOf(status syscall.WaitStatus) int {
	if status.Signaled() {
		return 128 + int(status.Signal())
	}
	return status.ExitStatus()
}
