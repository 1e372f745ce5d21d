// Package box is the box agent: `boxdesk-agent box -- CMD...` runs in every box the core makes,
// starts the box's main process, passes the signals it gets on to it and exits as it exits, and
// serves the core's exec calls over a Unix socket the core listens on (docs/protocol.md).
package box

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
)

// RunDir is where the core's per-box directory is mounted; it holds the core's socket.
const RunDir = "/.boxdesk/run"

// Main runs the box: `box -- CMD [ARG...]`. Its exit code is the main process's (128+N when a signal N ended it).
func Main(args []string, version string, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		fmt.Fprintln(stderr, "usage: boxdesk-agent box -- CMD [ARG...]")
		return 2
	}
	reserveThreads(reservedThreads)
	cwd, _ := os.Getwd()
	children := newReaper()
	execs := newExecTable(cwd, children)
	go serve(RunDir+"/core.sock", newHandler(execs, version))
	// The core asked for a hold: the main process waits until the box's packet filter is set (POST /v1/go).
	if _, err := os.Stat(RunDir + "/hold"); err == nil {
		<-mainGate.opened
	}

	signals := make(chan os.Signal, 16)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGWINCH)
	main := exec.Command(args[0], args[1:]...)
	main.Stdin, main.Stdout, main.Stderr = os.Stdin, os.Stdout, os.Stderr
	main.Env = os.Environ()
	exited, err := children.start(main)
	if err != nil {
		fmt.Fprintf(stderr, "boxdesk-agent: could not start the box's main process %q: %v\n", args[0], err)
		return 127
	}
	go func() {
		for sig := range signals {
			_ = main.Process.Signal(sig)
		}
	}()
	return codeOf(<-exited)
}
