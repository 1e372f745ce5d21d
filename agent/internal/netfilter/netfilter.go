// Package netfilter is the packet filter helper's side (docs/security.md, "The network boundary"):
// `boxdesk-agent netfilter serve DIR -- iptables-restore` is the main process of the one
// long-lived helper container the core keeps per engine (NET_ADMIN, SYS_ADMIN, SYS_PTRACE, the
// host's PID namespace, no network of its own). It listens on DIR/netfilter.sock (DIR is the
// core's own directory, bound in; the socket is given to the directory's owner, mode 0600) and
// runs `netfilter apply` for each request: that enters a box's network namespace by the box's
// process id and runs iptables-restore there, the rules on its standard input.
package netfilter

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// exitWithout ends the helper once process `pid` (the core) has gone, or another took its id: a
// core killed for good leaves no helper running.
func exitWithout(pid string) {
	started := startTime(pid)
	if started == "" {
		return
	}
	for {
		time.Sleep(5 * time.Second)
		if startTime(pid) != started {
			os.Exit(0)
		}
	}
}

// startTime is the process's start time in clock ticks since boot (field 22 of /proc/PID/stat), or "".
func startTime(pid string) string {
	stat, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return ""
	}
	// The command name (field 2) may hold spaces: count from its closing parenthesis.
	fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	if len(fields) < 20 {
		return ""
	}
	return fields[19]
}

// serve answers requests on DIR/netfilter.sock until SIGTERM: each connection is one line of JSON
// {"pid": N, "container": "ID"}, then the rules up to the core's half-close; the answer is one
// line of JSON {"code": N, "output": "..."} (iptables-restore's exit code and what it said).
func serve(dir string, command []string) error {
	path := dir + "/netfilter.sock"
	_ = os.Remove(path)
	// Made under another name and renamed once it listens, owned and closed to others: the core
	// takes the socket's path as the sign that the helper is ready (a connection between bind and
	// listen would be refused).
	making := path + ".new"
	_ = os.Remove(making)
	ln, err := net.Listen("unix", making)
	if err != nil {
		return err
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	var owner syscall.Stat_t
	if err := syscall.Stat(dir, &owner); err != nil {
		return err
	}
	// Only the core (the directory's owner, root or not) may ask.
	if err := os.Chown(making, int(owner.Uid), int(owner.Gid)); err != nil {
		return err
	}
	if err := os.Chmod(making, 0o600); err != nil {
		return err
	}
	if err := os.Rename(making, path); err != nil {
		return err
	}
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		<-signals
		_ = ln.Close()
	}()
	for {
		conn, err := ln.Accept()
		if err != nil {
			_ = os.Remove(path)
			return nil
		}
		go answer(conn, command)
	}
}

func answer(conn net.Conn, command []string) {
	defer conn.Close()
	in := bufio.NewReader(conn)
	var req struct {
		Pid       int    `json:"pid"`
		Container string `json:"container"`
		// The egress log's records of that box, streamed until the core closes (egress_watch.go).
		Watch bool `json:"watch"`
	}
	line, err := in.ReadBytes('\n')
	if err == nil {
		err = json.Unmarshal(line, &req)
	}
	if err == nil && req.Watch {
		watch(conn, in, strconv.Itoa(req.Pid), req.Container)
		return
	}
	reply := map[string]any{"code": 2, "output": "a request line {pid, container} is needed"}
	if err == nil {
		args := append([]string{"netfilter", "apply", strconv.Itoa(req.Pid), req.Container, "--"}, command...)
		cmd := exec.Command("/proc/self/exe", args...)
		var out bytes.Buffer
		cmd.Stdin, cmd.Stdout, cmd.Stderr = in, &out, &out
		code := 0
		if err := cmd.Run(); err != nil {
			code = 1
			if exit, ok := err.(*exec.ExitError); ok {
				code = exit.ExitCode()
			}
			if out.Len() == 0 {
				out.WriteString(err.Error())
			}
		}
		reply = map[string]any{"code": code, "output": out.String()}
	}
	_ = json.NewEncoder(conn).Encode(reply)
}

// Main runs `netfilter serve DIR [CORE_PID] -- CMD...` or `netfilter apply PID CONTAINER_ID -- CMD...`.
func Main(args []string, stderr io.Writer) int {
	if len(args) >= 5 && args[0] == "serve" && args[3] == "--" {
		// The core's process on the host (this helper sees the host's processes): once it is gone, so is the helper.
		go exitWithout(args[2])
		args = append(args[:2], args[3:]...)
	}
	if len(args) >= 4 && args[0] == "serve" && args[2] == "--" {
		if err := serve(args[1], args[3:]); err != nil {
			fmt.Fprintf(stderr, "boxdesk-agent netfilter: %v\n", err)
			return 1
		}
		return 0
	}
	if len(args) >= 5 && args[0] == "apply" && args[3] == "--" {
		if err := apply(args[1], args[2], args[4:]); err != nil {
			fmt.Fprintf(stderr, "boxdesk-agent netfilter: %v\n", err)
			return 1
		}
	}
	fmt.Fprintln(stderr, "usage: boxdesk-agent netfilter serve DIR -- CMD... | apply PID CONTAINER_ID -- CMD...")
	return 2
}

// apply enters the network namespace of process `pid`, which must belong to the container
// `container` (its cgroup names it; a box is never on the host's network), then executes cmd there.
// The checks keep a process id reused meanwhile from pointing the rules at anything else.
func apply(pid, container string, cmd []string) error {
	ns, err := boxNamespace(pid, container)
	if err != nil {
		return err
	}
	// setns changes the calling thread; execve from that thread keeps its namespace.
	runtime.LockOSThread()
	if _, _, errno := syscall.RawSyscall(sysSetns, ns.Fd(), syscall.CLONE_NEWNET, 0); errno != 0 {
		return fmt.Errorf("entering the box's network namespace: %v", errno)
	}
	return syscall.Exec(cmd[0], cmd, []string{})
}

// boxNamespace opens the network namespace of process `pid`, which must belong to the container
// `container` (its cgroup names it; a box is never on the host's network). The checks keep a
// process id reused meanwhile from pointing the rules (or the log) at anything else.
func boxNamespace(pid, container string) (*os.File, error) {
	if _, err := strconv.Atoi(pid); err != nil || pid == "0" || len(container) < 12 {
		return nil, fmt.Errorf("a process id and a container id are needed")
	}
	cgroup, err := os.ReadFile("/proc/" + pid + "/cgroup")
	if err != nil {
		return nil, fmt.Errorf("process %s: %v (the box is not running)", pid, err)
	}
	if !strings.Contains(string(cgroup), container) {
		return nil, fmt.Errorf("process %s is not in container %s (it stopped meanwhile)", pid, container[:12])
	}
	ns, err := os.Open("/proc/" + pid + "/ns/net")
	if err != nil {
		return nil, fmt.Errorf("the network namespace of process %s: %v", pid, err)
	}
	// The cgroup check is the guard; where the host's init is visible (not everywhere: a host
	// whose PID 1 belongs to a parent user namespace hides it) its namespace is refused as well.
	var target, host syscall.Stat_t
	if err := syscall.Fstat(int(ns.Fd()), &target); err != nil {
		ns.Close()
		return nil, err
	}
	if syscall.Stat("/proc/1/ns/net", &host) == nil && target.Ino == host.Ino && target.Dev == host.Dev {
		ns.Close()
		return nil, fmt.Errorf("process %s is in the host's network namespace: refused", pid)
	}
	return ns, nil
}
