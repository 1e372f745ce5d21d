// Command boxdesk-edge is the preview proxy's native data path (package edge): the core starts it
// as a child process on the proxy's public port and pushes it the ready routes on its stdin.
package main

import (
	"os"

	"boxdesk.dev/agent/internal/edge"
)

func main() {
	os.Exit(edge.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
