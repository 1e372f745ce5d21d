// Package relay carries one TCP connection over the agent's stdin and stdout: the core runs
// `boxdesk-agent relay HOST PORT` as an exec in a box (through the engine) to reach a port in
// the box when the box's address cannot be reached from the core's host (a VM or remote engine).
package relay

import (
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"syscall"
	"time"
)

// ExitRefused is the exit code when nothing listens on the port (the core answers "nothing listens").
const ExitRefused = 111

// Main relays stdin to HOST:PORT and its answers to stdout until either side ends.
func Main(args []string, stdin io.Reader, stdout io.Writer, stderr io.Writer) int {
	if len(args) != 2 {
		fmt.Fprintln(stderr, "usage: boxdesk-agent relay HOST PORT")
		return 2
	}
	port, err := strconv.Atoi(args[1])
	if err != nil || port < 1 || port > 65535 {
		fmt.Fprintf(stderr, "boxdesk-agent relay: %q is not a port (1-65535)\n", args[1])
		return 2
	}
	conn, err := net.DialTimeout("tcp", net.JoinHostPort(args[0], strconv.Itoa(port)), 10*time.Second)
	if err != nil {
		fmt.Fprintf(stderr, "boxdesk-agent relay: %v\n", err)
		if errors.Is(err, syscall.ECONNREFUSED) {
			return ExitRefused
		}
		return 1
	}
	tcp := conn.(*net.TCPConn)
	// One zero byte says the connection is made: the core waits for it before sending.
	if _, err := stdout.Write([]byte{0}); err != nil {
		_ = tcp.Close()
		return 1
	}
	go func() {
		_, _ = io.Copy(tcp, stdin)
		_ = tcp.CloseWrite()
	}()
	// The server ending its side ends the relay (the exec's end tells the core); the client
	// ending only its writes does not.
	_, _ = io.Copy(stdout, tcp)
	_ = tcp.Close()
	return 0
}
