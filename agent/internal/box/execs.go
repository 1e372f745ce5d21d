package box

import (
	"bufio"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"sort"
	"sync"
	"syscall"
)

// execSpec is what the core asks to run, as the engine's exec takes it.
type execSpec struct {
	Command []string          `json:"command"`
	Env     map[string]string `json:"env"`
	Cwd     string            `json:"cwd"`
	Tty     bool              `json:"tty"`
	Stdin   bool              `json:"stdin"`
}

// execState is what GET /v1/execs/{id} answers: exit_code is null until the process is reaped.
type execState struct {
	Running  bool `json:"running"`
	ExitCode *int `json:"exit_code"`
	Pid      int  `json:"pid"`
}

type boxExec struct {
	spec     execSpec
	cwd      string
	children *reaper
	mu       sync.Mutex
	started  bool
	st       execState
	pty      *os.File
	// size is the last size asked for the terminal (cols, rows): one asked before it opens (the
	// core resizes right after the start, which can come before the process is made) is its first.
	size *[2]uint16
}

// keptExecs bounds the finished execs kept for GET (the core asks right after the output ends).
const keptExecs = 1000

type execTable struct {
	cwd      string
	children *reaper
	mu       sync.Mutex
	execs    map[string]*boxExec
	order    []string
}

func newExecTable(cwd string, children *reaper) *execTable {
	return &execTable{cwd: cwd, children: children, execs: map[string]*boxExec{}}
}

func (t *execTable) add(spec execSpec) string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	id := hex.EncodeToString(b)
	t.mu.Lock()
	defer t.mu.Unlock()
	t.execs[id] = &boxExec{spec: spec, cwd: t.cwd, children: t.children}
	t.order = append(t.order, id)
	if len(t.order) > keptExecs {
		for _, old := range t.order[:len(t.order)-keptExecs] {
			if e := t.execs[old]; e != nil && !e.state().Running {
				delete(t.execs, old)
			}
		}
		t.order = t.order[len(t.order)-keptExecs:]
	}
	return id
}

func (t *execTable) get(id string) *boxExec {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.execs[id]
}

func (e *boxExec) state() execState {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.st
}

func (e *boxExec) resize(cols, rows uint16) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.spec.Tty {
		return errors.New("the exec has no terminal")
	}
	e.size = &[2]uint16{cols, rows}
	if e.pty == nil {
		return nil // its terminal opens at this size
	}
	return setWinsize(e.pty, cols, rows)
}

// terminalSize is the size the exec's terminal opens at: the last asked, else 80x24.
func (e *boxExec) terminalSize() (cols, rows uint16) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.size != nil {
		return e.size[0], e.size[1]
	}
	return 80, 24
}

func (e *boxExec) environ() []string {
	env := map[string]string{}
	for _, kv := range os.Environ() {
		for i := 0; i < len(kv); i++ {
			if kv[i] == '=' {
				env[kv[:i]] = kv[i+1:]
				break
			}
		}
	}
	for k, v := range e.spec.Env {
		env[k] = v
	}
	if e.spec.Tty {
		if _, ok := env["TERM"]; !ok {
			env["TERM"] = "xterm"
		}
	}
	out := make([]string, 0, len(env))
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// serveStart takes the connection over (101) and runs the process on it: output out (framed as
// the engine frames it when there is no terminal), input in; the connection ends with the output.
func (e *boxExec) serveStart(w http.ResponseWriter, r *http.Request) {
	e.mu.Lock()
	if e.started {
		e.mu.Unlock()
		problem(w, http.StatusConflict, "the exec has already started")
		return
	}
	e.started = true
	e.mu.Unlock()
	hj, ok := w.(http.Hijacker)
	if !ok {
		problem(w, http.StatusInternalServerError, "the connection cannot be taken over")
		return
	}
	conn, rw, err := hj.Hijack()
	if err != nil {
		return
	}
	defer conn.Close()
	_, _ = rw.WriteString("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: boxdesk-exec\r\n\r\n")
	if err := rw.Flush(); err != nil {
		return
	}
	out, ok := conn.(closeWriter)
	if !ok {
		out = fullCloser{conn}
	}
	e.run(rw.Reader, out)
}

// fullCloser ends a connection that cannot half-close by closing it.
type fullCloser struct{ net.Conn }

func (c fullCloser) CloseWrite() error { return c.Close() }

// closeWriter is a connection whose write half can be closed (the output is done) while its read half stays.
type closeWriter interface {
	io.Writer
	CloseWrite() error
}

func (e *boxExec) run(in *bufio.Reader, out closeWriter) {
	cmd := exec.Command(e.spec.Command[0], e.spec.Command[1:]...)
	cmd.Env = e.environ()
	cmd.Dir = e.cwd
	if e.spec.Cwd != "" {
		cmd.Dir = e.spec.Cwd
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	var wait func()
	var err error
	if e.spec.Tty {
		wait, err = e.startWithTty(cmd, in, out)
	} else {
		wait, err = e.startWithPipes(cmd, in, out)
	}
	if err != nil {
		// As the engine does for a command it cannot run: the reason on the output, exit code 126/127.
		code := 126
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, os.ErrNotExist) {
			code = 127
		}
		msg := fmt.Sprintf("boxdesk-agent: cannot run %q: %v\n", e.spec.Command[0], err)
		if e.spec.Tty {
			_, _ = out.Write([]byte(msg))
		} else {
			_, _ = out.Write(frame(2, []byte(msg)))
		}
		e.finish(code)
		return
	}
	wait()
	_ = out.CloseWrite()
}

func (e *boxExec) finish(code int) {
	e.mu.Lock()
	e.st.Running = false
	e.st.ExitCode = &code
	e.mu.Unlock()
}

func (e *boxExec) begin(pid int) {
	e.mu.Lock()
	e.st = execState{Running: true, Pid: pid}
	e.mu.Unlock()
}

// frame is the engine's multiplexed stream header: stream (1 stdout, 2 stderr), three zeros, length.
func frame(stream byte, payload []byte) []byte {
	b := make([]byte, 8+len(payload))
	b[0] = stream
	binary.BigEndian.PutUint32(b[4:8], uint32(len(payload)))
	copy(b[8:], payload)
	return b
}

// startWithPipes runs cmd with its output framed onto out; it returns once the process and its output are done.
func (e *boxExec) startWithPipes(cmd *exec.Cmd, in *bufio.Reader, out closeWriter) (func(), error) {
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = outW, errW
	var stdinW *os.File
	if e.spec.Stdin {
		var stdinR *os.File
		if stdinR, stdinW, err = os.Pipe(); err != nil {
			return nil, err
		}
		cmd.Stdin = stdinR
		defer stdinR.Close()
	}
	exited, startErr := e.children.start(cmd)
	outW.Close()
	errW.Close()
	if startErr != nil {
		outR.Close()
		errR.Close()
		if stdinW != nil {
			stdinW.Close()
		}
		return nil, startErr
	}
	e.begin(cmd.Process.Pid)
	if stdinW != nil {
		go func() {
			_, _ = io.Copy(stdinW, in)
			stdinW.Close()
		}()
	}
	var writeMu sync.Mutex
	var pumps sync.WaitGroup
	pump := func(stream byte, r *os.File) {
		defer pumps.Done()
		defer r.Close()
		buf := make([]byte, 32*1024)
		for {
			n, err := r.Read(buf)
			if n > 0 {
				writeMu.Lock()
				_, werr := out.Write(frame(stream, buf[:n]))
				writeMu.Unlock()
				if werr != nil {
					return
				}
			}
			if err != nil {
				return
			}
		}
	}
	pumps.Add(2)
	go pump(1, outR)
	go pump(2, errR)
	return func() {
		status := <-exited
		pumps.Wait()
		e.finish(codeOf(status))
	}, nil
}
