package edge

import (
	"bufio"
	"errors"
	"net"
	"strings"
	"sync"
	"time"
)

// watcher: while a box is slow to answer (past slowAnswer), the client's connection is read
// for its end, so that a client gone meanwhile ends the wait on the box (as net/http's
// background read does for every request; here only slow answers pay for it).
type watcher struct {
	c        *leanConn
	timer    *time.Timer
	mu       sync.Mutex // the lean loop's fields below, and br, pass to the watch through it
	box      net.Conn
	headLen  int
	stopping bool
	gone     bool // the client went while the box was asked
	done     chan struct{}
}

func (w *watcher) init(c *leanConn) {
	w.c = c
	w.done = make(chan struct{})
	w.timer = time.AfterFunc(time.Hour, w.watch)
	w.timer.Stop()
}

// arm starts the clock while the box is asked (the lean loop does not read the client meanwhile).
func (w *watcher) arm() {
	w.mu.Lock()
	w.gone, w.stopping, w.box, w.headLen = false, false, w.c.up.Conn, w.c.headLen
	w.mu.Unlock()
	w.timer.Reset(slowAnswer)
}

func (w *watcher) watch() {
	defer close(w.done)
	w.mu.Lock()
	br, client, headLen := w.c.br, w.c.conn, w.headLen
	if w.stopping || headLen >= br.Size() {
		w.mu.Unlock()
		return
	}
	_ = client.SetReadDeadline(time.Time{})
	w.mu.Unlock()
	// More than the request being forwarded: the client is there (a request sent ahead).
	_, err := br.Peek(headLen + 1)
	w.mu.Lock()
	defer w.mu.Unlock()
	if err != nil && !w.stopping {
		w.gone = true
		_ = w.box.SetReadDeadline(aLongTimeAgo)
	}
}

// disarm: the box answered (or failed); a watch under way is ended and waited for.
func (w *watcher) disarm() {
	if w.timer.Stop() {
		return
	}
	w.mu.Lock()
	w.stopping = true
	_ = w.c.conn.SetReadDeadline(aLongTimeAgo)
	w.mu.Unlock()
	<-w.done
	w.done = make(chan struct{})
}

// Serve answers the connections ln accepts until it is closed: each in the lean loop (lean.go)
// until a request it does not take, then in net/http, request heads looked at as Node's parser
// would (strict.go).
func (e *Edge) Serve(ln net.Listener) error {
	server := e.Server()
	if e.opts.NetHTTPOnly {
		return server.Serve(strictListener{ln})
	}
	handed := newHandoff(ln.Addr())
	go func() { _ = server.Serve(handed) }()
	defer server.Close()
	defer handed.Close()
	var pause time.Duration
	for {
		conn, err := ln.Accept()
		if err != nil {
			var ne net.Error
			// A passing failure (too many open files, say): wait a little and go on, as http.Server does.
			if errors.As(err, &ne) && ne.Temporary() {
				if pause = 2 * pause; pause < 5*time.Millisecond {
					pause = 5 * time.Millisecond
				} else if pause > time.Second {
					pause = time.Second
				}
				time.Sleep(pause)
				continue
			}
			return err
		}
		pause = 0
		go e.serveLean(conn, handed)
	}
}

// handoff is the net/http server's listener: the connections the lean loop gives up, each
// with the bytes it had read and not used in front.
type handoff struct {
	addr  net.Addr
	conns chan net.Conn
	once  sync.Once
	done  chan struct{}
}

func newHandoff(addr net.Addr) *handoff {
	return &handoff{addr: addr, conns: make(chan net.Conn), done: make(chan struct{})}
}

// give hands conn to net/http at a request's start, looked at as Node's parser would
// (strict.go); toNode: that request goes to the Node proxy whatever its route.
func (h *handoff) give(conn net.Conn, br *bufio.Reader, toNode bool) {
	_ = conn.SetReadDeadline(time.Time{})
	pending, _ := br.Peek(br.Buffered())
	sc := &strictConn{Conn: &prefixConn{Conn: conn, prefix: append([]byte(nil), pending...)}, inHead: true, toNode: toNode}
	select {
	case h.conns <- sc:
	case <-h.done:
		conn.Close()
	}
}

func (h *handoff) Accept() (net.Conn, error) {
	select {
	case c := <-h.conns:
		return c, nil
	case <-h.done:
		return nil, net.ErrClosed
	}
}

func (h *handoff) Close() error {
	h.once.Do(func() { close(h.done) })
	return nil
}

func (h *handoff) Addr() net.Addr { return h.addr }

// prefixConn reads prefix before the connection's own bytes.
type prefixConn struct {
	net.Conn
	prefix []byte
}

func (c *prefixConn) Read(p []byte) (int, error) {
	if len(c.prefix) > 0 {
		n := copy(p, c.prefix)
		c.prefix = c.prefix[n:]
		return n, nil
	}
	return c.Conn.Read(p)
}

func splitTokens(v string) []string {
	var out []string
	for _, t := range strings.Split(v, ",") {
		if t = strings.TrimSpace(t); t != "" {
			out = append(out, t)
		}
	}
	return out
}
