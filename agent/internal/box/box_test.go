package box

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// core is the core's side of the socket in a test: it listens, and each call takes one connection the agent dialled.
type core struct {
	t     *testing.T
	ln    net.Listener
	conns chan net.Conn
}

var testReaper = newReaper()

func startCore(t *testing.T) *core {
	path := filepath.Join(t.TempDir(), "core.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	c := &core{t: t, ln: ln, conns: make(chan net.Conn, 16)}
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			c.conns <- conn
		}
	}()
	listener := newDialListener(path)
	go func() {
		_ = (&http.Server{Handler: newHandler(newExecTable(t.TempDir(), testReaper), "test")}).Serve(listener)
	}()
	t.Cleanup(func() { listener.Close(); ln.Close() })
	return c
}

func (c *core) conn() net.Conn {
	select {
	case conn := <-c.conns:
		return conn
	case <-time.After(5 * time.Second):
		c.t.Fatal("the agent did not dial in")
		return nil
	}
}

func (c *core) call(method, path string, body any) (int, []byte) {
	payload, _ := json.Marshal(body)
	return c.raw(method, path, bytes.NewReader(payload))
}

// run makes and starts an exec; it answers what came out (demuxed unless tty) and the exit code.
func (c *core) run(spec execSpec, input string) (stdout, stderr string, code int) {
	return c.runWith(spec, input, nil)
}

// runWith is run with `made` called between the exec's create and its start.
func (c *core) runWith(spec execSpec, input string, made func(id string)) (stdout, stderr string, code int) {
	status, body := c.call("POST", "/v1/execs", spec)
	if status != http.StatusCreated {
		c.t.Fatalf("create: %d %s", status, body)
	}
	var created struct{ ID string }
	_ = json.Unmarshal(body, &created)
	if made != nil {
		made(created.ID)
	}
	conn := c.conn()
	fmt.Fprintf(conn, "POST /v1/execs/%s/start HTTP/1.1\r\nHost: agent\r\nConnection: Upgrade\r\nUpgrade: boxdesk-exec\r\n\r\n", created.ID)
	r := bufio.NewReader(conn)
	head, _ := r.ReadString('\n')
	if !strings.Contains(head, "101") {
		c.t.Fatalf("start: %q", head)
	}
	for line, _ := r.ReadString('\n'); line != "\r\n"; line, _ = r.ReadString('\n') {
	}
	if input != "" {
		_, _ = io.WriteString(conn, input)
	}
	_ = conn.(*net.UnixConn).CloseWrite()
	raw, _ := io.ReadAll(r)
	conn.Close()
	if spec.Tty {
		stdout = string(raw)
	} else {
		var o, e bytes.Buffer
		for len(raw) >= 8 {
			n := int(binary.BigEndian.Uint32(raw[4:8]))
			if raw[0] == 2 {
				e.Write(raw[8 : 8+n])
			} else {
				o.Write(raw[8 : 8+n])
			}
			raw = raw[8+n:]
		}
		stdout, stderr = o.String(), e.String()
	}
	_, body = c.call("GET", "/v1/execs/"+created.ID, nil)
	var st execState
	_ = json.Unmarshal(body, &st)
	if st.Running || st.ExitCode == nil {
		c.t.Fatalf("still running after its output ended: %s", body)
	}
	return stdout, stderr, *st.ExitCode
}

func TestExecSplitsOutputAndKeepsTheExitCode(t *testing.T) {
	c := startCore(t)
	out, errOut, code := c.run(execSpec{Command: []string{"sh", "-c", "echo out; echo err >&2; echo $GREETING; exit 3"}, Env: map[string]string{"GREETING": "hi"}}, "")
	if out != "out\nhi\n" || errOut != "err\n" || code != 3 {
		t.Fatalf("got %q %q %d", out, errOut, code)
	}
}

func TestExecReadsItsInputUntilTheCoreHalfCloses(t *testing.T) {
	c := startCore(t)
	out, _, code := c.run(execSpec{Command: []string{"sh", "-c", "cat; echo done"}, Stdin: true}, "a\nb\n")
	if out != "a\nb\ndone\n" || code != 0 {
		t.Fatalf("got %q %d", out, code)
	}
}

func TestExecOnATerminal(t *testing.T) {
	c := startCore(t)
	out, _, code := c.run(execSpec{Command: []string{"sh", "-c", "test -t 1 && stty size && exit 4"}, Tty: true}, "")
	if !strings.Contains(out, "24 80") || code != 4 {
		t.Fatalf("got %q %d", out, code)
	}
}

func TestASizeGivenBeforeTheTerminalOpensIsItsFirstSize(t *testing.T) {
	c := startCore(t)
	out, _, _ := c.runWith(execSpec{Command: []string{"stty", "size"}, Tty: true}, "", func(id string) {
		if status, body := c.call("POST", "/v1/execs/"+id+"/resize", map[string]int{"cols": 91, "rows": 33}); status != http.StatusNoContent && status != http.StatusOK {
			t.Fatalf("resize before start: %d %s", status, body)
		}
	})
	if !strings.Contains(out, "33 91") {
		t.Fatalf("got %q", out)
	}
}

func TestACommandThatCannotStartIs127WithTheReason(t *testing.T) {
	c := startCore(t)
	_, errOut, code := c.run(execSpec{Command: []string{"/no/such/command"}}, "")
	if code != 127 || !strings.Contains(errOut, "/no/such/command") {
		t.Fatalf("got %q %d", errOut, code)
	}
}

func TestUnknownExecsAndBadSpecsAreRefused(t *testing.T) {
	c := startCore(t)
	if status, _ := c.call("GET", "/v1/execs/nope", nil); status != http.StatusNotFound {
		t.Fatalf("unknown exec: %d", status)
	}
	if status, _ := c.call("POST", "/v1/execs", map[string]any{"command": []string{}}); status != http.StatusBadRequest {
		t.Fatalf("empty command: %d", status)
	}
}

func TestTheAgentKeepsOnlyTwoSpareConnections(t *testing.T) {
	c := startCore(t)
	time.Sleep(300 * time.Millisecond)
	if n := len(c.conns); n != spareConnections {
		t.Fatalf("%d connections waiting, want %d", n, spareConnections)
	}
}

func TestExitCodeOfASignalledProcessIs128PlusTheSignal(t *testing.T) {
	c := startCore(t)
	_, _, code := c.run(execSpec{Command: []string{"sh", "-c", "kill -9 $$"}}, "")
	if code != 137 {
		t.Fatalf("got %d", code)
	}
}

// zombies counts this process's children that have exited and not been reaped.
func zombies(t *testing.T) int {
	entries, _ := filepath.Glob("/proc/[0-9]*/stat")
	n := 0
	self := fmt.Sprint(os.Getpid())
	for _, path := range entries {
		raw, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		fields := strings.Fields(string(raw[bytes.LastIndexByte(raw, ')')+1:]))
		if len(fields) > 1 && fields[0] == "Z" && fields[1] == self {
			n++
		}
	}
	return n
}

func TestOrphansLeftByAnExecAreReaped(t *testing.T) {
	c := startCore(t)
	_, _, code := c.run(execSpec{Command: []string{"sh", "-c", "sleep 0.2 & sleep 0.2 & exit 0"}}, "")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	deadline := time.Now().Add(3 * time.Second)
	time.Sleep(300 * time.Millisecond)
	for zombies(t) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d orphans left unreaped", zombies(t))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestATerminalsOutputEndsWithItsProcessNotWithABackgroundJob(t *testing.T) {
	c := startCore(t)
	out, _, code := c.run(execSpec{Command: []string{"sh", "-c", `f=$(mktemp); (trap '' HUP; echo up > $f; exec sleep 31) & until [ -s $f ]; do :; done; rm $f; echo bye; exit 5`}, Tty: true}, "")
	if !strings.Contains(out, "bye") || code != 5 {
		t.Fatalf("got %q %d", out, code)
	}
	job := processesRunning("sleep 31")
	if len(job) == 0 {
		t.Fatal("the output ended only once the background job had gone")
	}
	for _, pid := range job {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

// processesRunning are the processes whose command line holds `text`, read from /proc. Not
// pgrep: the agent's reaper in this test process waits for any child, and can take the status of
// a pgrep before os/exec's own wait does.
func processesRunning(text string) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, entry := range entries {
		pid, err := strconv.Atoi(entry.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		cmdline, err := os.ReadFile("/proc/" + entry.Name() + "/cmdline")
		if err == nil && strings.Contains(strings.ReplaceAll(string(cmdline), "\x00", " "), text) {
			pids = append(pids, pid)
		}
	}
	return pids
}

func TestGoOpensTheMainGateOnceAndAgain(t *testing.T) {
	mainGate = &gate{opened: make(chan struct{})}
	c := startCore(t)
	select {
	case <-mainGate.opened:
		t.Fatal("the gate is open before the core said go")
	default:
	}
	for i := 0; i < 2; i++ {
		if status, body := c.call("POST", "/v1/go", nil); status != http.StatusNoContent {
			t.Fatalf("go: %d %s", status, body)
		}
	}
	select {
	case <-mainGate.opened:
	case <-time.After(time.Second):
		t.Fatal("the gate stayed shut after go")
	}
	if status, _ := c.call("GET", "/v1/go", nil); status != http.StatusMethodNotAllowed {
		t.Fatalf("GET /v1/go: %d", status)
	}
}
