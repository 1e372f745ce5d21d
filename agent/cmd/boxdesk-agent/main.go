// Command boxdesk-agent is Boxdesk's one static helper binary. Today it carries the
// copy-on-write store's privileged operations (`boxdesk-agent store <op> ...`), run in a
// helper container the core makes through the engine, and the box agent (`boxdesk-agent box`),
// which runs each box's main process and serves exec. Each area is a subcommand with its own package.
package main

import (
	"fmt"
	"os"

	"boxdesk.dev/agent/internal/box"
	"boxdesk.dev/agent/internal/netfilter"
	"boxdesk.dev/agent/internal/relay"
	"boxdesk.dev/agent/internal/store"
)

// version is set at build time (-ldflags "-X main.version=...").
var version = "dev"

func usage() {
	fmt.Fprint(os.Stderr, `usage: boxdesk-agent <command> [args]

commands:
  box -- CMD...    run in a box: start its main process, serve the core's exec calls
  store <op> ...   the copy-on-write store's operations (boxdesk-agent store help)
  netfilter ...    the packet filter helper: hold, or apply PID CONTAINER_ID -- iptables-restore
  relay HOST PORT  carry one TCP connection to HOST:PORT over stdin and stdout
  version          print the agent's version as JSON
`)
}

func main() {
	if len(os.Args) < 2 {
		usage()
		os.Exit(2)
	}
	switch os.Args[1] {
	case "box":
		os.Exit(box.Main(os.Args[2:], version, os.Stderr))
	case "store":
		os.Exit(store.Main(os.Args[2:], os.Stdout, os.Stderr))
	case "netfilter":
		os.Exit(netfilter.Main(os.Args[2:], os.Stderr))
	case "relay":
		os.Exit(relay.Main(os.Args[2:], os.Stdin, os.Stdout, os.Stderr))
	case "version":
		fmt.Printf("{\"version\":%q}\n", version)
	case "help", "-h", "--help":
		usage()
	default:
		fmt.Fprintf(os.Stderr, "boxdesk-agent: unknown command %q\n", os.Args[1])
		usage()
		os.Exit(2)
	}
}
