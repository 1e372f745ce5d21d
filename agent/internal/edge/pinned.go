package edge

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"sync"
	"time"
)

// A client's connection answers one request at a time, so each can keep its own connection to
// the box: the request is written and its answer read in the handler's goroutine, with none of
// http.Transport's hand-offs between goroutines (a third of the edge's time per small request
// under load). Requests with a body, and clients without a slot, use the pooled Transport.

type slotKey struct{}

// slot is a client connection's own connection to a box, while it is idle between requests.
type slot struct {
	mu   sync.Mutex
	conn *upstreamConn
	gone bool
}

type upstreamConn struct {
	net.Conn
	addr string
	br   *bufio.Reader
	bw   *bufio.Writer
}

func (s *slot) take(addr string) *upstreamConn {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.conn
	s.conn = nil
	if c != nil && c.addr != addr {
		c.Close()
		return nil
	}
	return c
}

func (s *slot) give(c *upstreamConn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gone || s.conn != nil {
		c.Close()
		return
	}
	s.conn = c
}

// close ends the slot with its client's connection.
func (s *slot) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gone = true
	if s.conn != nil {
		s.conn.Close()
		s.conn = nil
	}
}

// slots gives each client connection a slot (http.Server's ConnContext and ConnState).
type slots struct{ m sync.Map }

func (s *slots) connContext(ctx context.Context, c net.Conn) context.Context {
	sl := &slot{}
	s.m.Store(c, sl)
	return context.WithValue(ctx, slotKey{}, sl)
}

func (s *slots) connState(c net.Conn, state http.ConnState) {
	if state != http.StateClosed && state != http.StateHijacked {
		return
	}
	if sl, ok := s.m.LoadAndDelete(c); ok {
		sl.(*slot).close()
	}
}

type pinnedTransport struct {
	pooled        http.RoundTripper
	dialer        *net.Dialer
	headerTimeout time.Duration
}

func (t *pinnedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	sl, ok := req.Context().Value(slotKey{}).(*slot)
	if !ok || (req.Body != nil && req.Body != http.NoBody) || req.Header.Get("Expect") != "" {
		return t.pooled.RoundTrip(req)
	}
	addr := req.URL.Host
	if c := sl.take(addr); c != nil {
		// A kept connection the box may have closed meanwhile: a request without a body is sent again on a new one.
		if res, err := t.exchange(sl, c, req); err == nil || !errors.Is(err, errStale) {
			return res, err
		}
	}
	conn, err := t.dialer.DialContext(req.Context(), "tcp", addr)
	if err != nil {
		return nil, err
	}
	if tcp, ok := conn.(*net.TCPConn); ok {
		_ = tcp.SetNoDelay(true)
	}
	c := &upstreamConn{Conn: conn, addr: addr, br: bufio.NewReaderSize(conn, 64<<10), bw: bufio.NewWriterSize(conn, 4<<10)}
	res, err := t.exchange(sl, c, req)
	if errors.Is(err, errStale) {
		err = errors.Unwrap(err)
	}
	return res, err
}

// errStale wraps a failure before any answer on a kept connection.
var errStale = errors.New("the kept connection was closed")

type staleError struct{ err error }

func (e staleError) Error() string { return e.err.Error() }
func (e staleError) Unwrap() error { return e.err }
func (e staleError) Is(target error) bool {
	return target == errStale
}

func (t *pinnedTransport) exchange(sl *slot, c *upstreamConn, req *http.Request) (*http.Response, error) {
	fail := func(err error) (*http.Response, error) {
		c.Close()
		return nil, staleError{err}
	}
	if err := req.Write(c.bw); err != nil {
		return fail(err)
	}
	if err := c.bw.Flush(); err != nil {
		return fail(err)
	}
	if t.headerTimeout > 0 {
		_ = c.SetReadDeadline(time.Now().Add(t.headerTimeout))
	}
	res, err := t.readAnswer(c, req)
	if err != nil {
		c.Close()
		var ne net.Error
		if !(errors.As(err, &ne) && ne.Timeout()) && (errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)) {
			return nil, staleError{err}
		}
		return nil, err
	}
	reuse := !res.Close && !req.Close && res.StatusCode != http.StatusSwitchingProtocols
	res.Body = &pinnedBody{eofBody: eofBody{ReadCloser: res.Body}, c: c, sl: sl, reuse: reuse}
	return res, nil
}

// readAnswer reads the box's answer to req (1xx informational answers read past, as
// http.Transport does), bounded by the header timeout; a client gone meanwhile ends the wait.
func (t *pinnedTransport) readAnswer(c *upstreamConn, req *http.Request) (*http.Response, error) {
	if t.headerTimeout > 0 {
		_ = c.SetReadDeadline(time.Now().Add(t.headerTimeout))
	}
	var mu sync.Mutex
	waiting := true
	waited := make(chan struct{})
	go func() {
		select {
		case <-req.Context().Done():
			mu.Lock()
			if waiting {
				_ = c.SetReadDeadline(time.Unix(1, 0))
			}
			mu.Unlock()
		case <-waited:
		}
	}()
	defer func() {
		mu.Lock()
		waiting = false
		mu.Unlock()
		close(waited)
		_ = c.SetReadDeadline(time.Time{})
	}()
	for {
		res, err := http.ReadResponse(c.br, req)
		if err != nil || res.StatusCode >= 200 || res.StatusCode == http.StatusSwitchingProtocols {
			return res, err
		}
	}
}

// pinnedBody hands the connection back to its slot once the answer was read to its end.
type pinnedBody struct {
	eofBody // the answer's body, and whether it was read to its end
	c       *upstreamConn
	sl      *slot
	reuse   bool
	done    bool
}

func (b *pinnedBody) Close() error {
	if b.done {
		return nil
	}
	b.done = true
	err := b.eofBody.Close()
	if b.eof && b.reuse {
		b.sl.give(b.c)
	} else {
		b.c.Close()
	}
	return err
}
