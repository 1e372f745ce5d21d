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
	cwd, _ := os.Getwd()
	execs := newExecTable(cwd)
	go serve(RunDir+"/core.sock", newHandler(execs, version))

	signals := make(chan os.Signal, 16)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGWINCH)
	main := exec.Command(args[0], args[1:]...)
	main.Stdin, main.Stdout, main.Stderr = os.Stdin, os.Stdout, os.Stderr
	main.Env = os.Environ()
	if err := main.Start(); err != nil {
		fmt.Fprintf(stderr, "boxdesk-agent: could not start the box's main process %q: %v\n", args[0], err)
		return 127
	}
	go func() {
		for sig := range signals {
			_ = main.Process.Signal(sig)
		}
	}()
	return exitCode(main.Wait(), main.ProcessState)
}

// exitCode is a finished process's code as a shell reports it: 128+N when signal N ended it.
func exitCode(err error, state *os.ProcessState) int {
	if state == nil {
		if err != nil {
			return 127
		}
		return 0
	}
	if ws, ok := state.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return state.ExitCode()
}
