// Package netfilter is the packet filter helper's side (docs/security.md, "The network boundary"):
// `boxdesk-agent netfilter hold` is the main process of the one long-lived helper container the
// core keeps per engine (NET_ADMIN, SYS_ADMIN, SYS_PTRACE, the host's PID namespace, no network of
// its own), and `netfilter apply` is each exec in it: it enters a box's network namespace by the
// box's process id and runs iptables-restore there, the rules on its standard input.
package netfilter

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
)

// Main runs `netfilter hold` or `netfilter apply PID CONTAINER_ID -- CMD...`.
func Main(args []string, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "hold" {
		signals := make(chan os.Signal, 1)
		signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT)
		<-signals
		return 0
	}
	if len(args) >= 5 && args[0] == "apply" && args[3] == "--" {
		if err := apply(args[1], args[2], args[4:]); err != nil {
			fmt.Fprintf(stderr, "boxdesk-agent netfilter: %v\n", err)
			return 1
		}
	}
	fmt.Fprintln(stderr, "usage: boxdesk-agent netfilter hold | apply PID CONTAINER_ID -- CMD...")
	return 2
}

// apply enters the network namespace of process `pid`, which must belong to the container
// `container` (its cgroup names it; a box is never on the host's network), then executes cmd there.
// The checks keep a process id reused meanwhile from pointing the rules at anything else.
func apply(pid, container string, cmd []string) error {
	if _, err := strconv.Atoi(pid); err != nil || pid == "0" || len(container) < 12 {
		return fmt.Errorf("a process id and a container id are needed")
	}
	cgroup, err := os.ReadFile("/proc/" + pid + "/cgroup")
	if err != nil {
		return fmt.Errorf("process %s: %v (the box is not running)", pid, err)
	}
	if !strings.Contains(string(cgroup), container) {
		return fmt.Errorf("process %s is not in container %s (it stopped meanwhile)", pid, container[:12])
	}
	ns, err := os.Open("/proc/" + pid + "/ns/net")
	if err != nil {
		return fmt.Errorf("the network namespace of process %s: %v", pid, err)
	}
	// The cgroup check is the guard; where the host's init is visible (not everywhere: a host
	// whose PID 1 belongs to a parent user namespace hides it) its namespace is refused as well.
	var target, host syscall.Stat_t
	if err := syscall.Fstat(int(ns.Fd()), &target); err != nil {
		return err
	}
	if syscall.Stat("/proc/1/ns/net", &host) == nil && target.Ino == host.Ino && target.Dev == host.Dev {
		return fmt.Errorf("process %s is in the host's network namespace: refused", pid)
	}
	// setns changes the calling thread; execve from that thread keeps its namespace.
	runtime.LockOSThread()
	if _, _, errno := syscall.RawSyscall(sysSetns, ns.Fd(), syscall.CLONE_NEWNET, 0); errno != 0 {
		return fmt.Errorf("entering the box's network namespace: %v", errno)
	}
	return syscall.Exec(cmd[0], cmd, []string{})
}
