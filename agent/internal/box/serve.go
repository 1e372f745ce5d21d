package box

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"
)

// dialListener is a net.Listener whose Accept dials the core: the core listens on a socket in the
// box's own host directory and the agent connects out, so the core never connects to a path a
// process in the box could have replaced. Each connection carries HTTP requests from the core.
// At most `spare` dialled connections wait for a first request at once: Accept blocks until one
// of them is used (or closes), so the agent keeps a connection ready without dialling in a loop.
type dialListener struct {
	path   string
	spare  chan struct{}
	closed chan struct{}
	once   sync.Once
}

const spareConnections = 2

func newDialListener(path string) *dialListener {
	return &dialListener{path: path, spare: make(chan struct{}, spareConnections), closed: make(chan struct{})}
}

func (l *dialListener) Accept() (net.Conn, error) {
	select {
	case l.spare <- struct{}{}:
	case <-l.closed:
		return nil, net.ErrClosed
	}
	wait := 50 * time.Millisecond
	for {
		conn, err := net.Dial("unix", l.path)
		if err == nil {
			return &spareConn{Conn: conn, release: func() { <-l.spare }}, nil
		}
		select {
		case <-l.closed:
			<-l.spare
			return nil, net.ErrClosed
		case <-time.After(wait):
		}
		if wait < 2*time.Second {
			wait *= 2
		}
	}
}

// spareConn gives its listener's slot back once a request starts arriving on it, or it closes.
type spareConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *spareConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	if n > 0 || err != nil {
		c.once.Do(c.release)
	}
	return n, err
}

func (c *spareConn) Close() error {
	c.once.Do(c.release)
	return c.Conn.Close()
}

// ReadFrom is where net/http sends a file answer's body once its head is out (a handler's copy
// of a regular file into the ResponseWriter): with sendfile(2). Anything else is copied as before.
func (c *spareConn) ReadFrom(r io.Reader) (int64, error) {
	if n, handled, err := sendFile(c.Conn, r); handled {
		return n, err
	}
	return io.Copy(writerOnly{c}, r)
}

// CloseWrite ends the output of a started exec while its input may still come.
func (c *spareConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return c.Conn.Close()
}

func (l *dialListener) Close() error {
	l.once.Do(func() { close(l.closed) })
	return nil
}

func (l *dialListener) Addr() net.Addr { return &net.UnixAddr{Name: l.path, Net: "unix"} }

// serve answers the core's calls for as long as the box runs.
func serve(path string, handler http.Handler) {
	server := &http.Server{Handler: handler, ReadHeaderTimeout: time.Minute}
	_ = server.Serve(newDialListener(path))
}

// gate holds the box's main process until the core opens it (the box's packet filter is set).
type gate struct {
	once   sync.Once
	opened chan struct{}
}

func (g *gate) open() { g.once.Do(func() { close(g.opened) }) }

var mainGate = &gate{opened: make(chan struct{})}

func newHandler(execs *execTable, version string) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/go", func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			problem(w, http.StatusMethodNotAllowed, "POST only")
			return
		}
		mainGate.open()
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("/v1/hello", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"agent": "boxdesk", "version": version, "features": features()})
	})
	registerFiles(mux)
	mux.HandleFunc("/v1/execs", func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			problem(w, http.StatusMethodNotAllowed, "POST only")
			return
		}
		var spec execSpec
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4<<20)).Decode(&spec); err != nil || len(spec.Command) == 0 {
			problem(w, http.StatusBadRequest, "a JSON exec spec with a command is needed")
			return
		}
		writeJSON(w, http.StatusCreated, map[string]string{"id": execs.add(spec)})
	})
	mux.HandleFunc("/v1/execs/", func(w http.ResponseWriter, r *http.Request) {
		rest := strings.TrimPrefix(r.URL.Path, "/v1/execs/")
		id, action, _ := strings.Cut(rest, "/")
		e := execs.get(id)
		if e == nil {
			problem(w, http.StatusNotFound, "no such exec")
			return
		}
		switch {
		case action == "" && r.Method == http.MethodGet:
			writeJSON(w, http.StatusOK, e.state())
		case action == "start" && r.Method == http.MethodPost:
			e.serveStart(w, r)
		case action == "resize" && r.Method == http.MethodPost:
			var size struct{ Cols, Rows uint16 }
			if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4096)).Decode(&size); err != nil {
				problem(w, http.StatusBadRequest, "a JSON {cols, rows} is needed")
				return
			}
			if err := e.resize(size.Cols, size.Rows); err != nil {
				problem(w, http.StatusConflict, err.Error())
				return
			}
			w.WriteHeader(http.StatusNoContent)
		default:
			problem(w, http.StatusNotFound, "no such call")
		}
	})
	return mux
}

// features are the calls beyond exec this agent serves: the file calls only as root, as the engine's archive calls act.
func features() []string {
	if os.Geteuid() == 0 {
		return []string{"files", "file-content"}
	}
	return []string{}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func problem(w http.ResponseWriter, status int, detail string) {
	writeJSON(w, status, map[string]any{"status": status, "detail": detail})
}
