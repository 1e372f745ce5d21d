package edge

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
)

// Node's http server refuses a request whose head has a line ended by a bare LF (400); Go's reads
// it. So that clients meet the same proxy either way, the edge looks at each request head as it
// reads it (strictConn) and refuses such a request with the Node proxy's own answer. A head is
// looked at from the connection's start, and again after each request whose body was read to its
// end (the bytes between are a body, where a bare LF is fine).

type strictKey struct{}

type strictListener struct{ net.Listener }

func (l strictListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &strictConn{Conn: c, inHead: true}, nil
}

type strictConn struct {
	net.Conn
	mu        sync.Mutex
	inHead    bool
	prev      byte
	bareLF    bool
	lineBytes int  // bytes of the current line so far
	sawLine   bool // the head's first line was read
	toNode    bool // the next request goes to Node (the lean loop's box refused it)
}

func (c *strictConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.mu.Lock()
		if c.inHead {
			c.scan(p[:n])
		}
		c.mu.Unlock()
	}
	return n, err
}

func (c *strictConn) scan(b []byte) {
	for len(b) > 0 && c.inHead {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			c.lineBytes += len(b)
			c.prev = b[len(b)-1]
			return
		}
		before := c.prev
		if i > 0 {
			before = b[i-1]
		}
		if before != '\r' {
			c.bareLF = true
		}
		line := c.lineBytes + i
		// An empty line after the request line ends the head (empty lines before it are skipped, as parsers do).
		if (line == 0 || (line == 1 && before == '\r')) && c.sawLine {
			c.inHead = false
		} else if line > 1 || (line == 1 && before != '\r') {
			c.sawLine = true
		}
		c.lineBytes = 0
		c.prev = '\n'
		b = b[i+1:]
	}
}

// takeBareLF says whether the head just read had a bare LF.
func (c *strictConn) takeBareLF() bool { return c.takeFlag(&c.bareLF) }

// takeToNode says whether this request is Node's whatever its route (once).
func (c *strictConn) takeToNode() bool { return c.takeFlag(&c.toNode) }

// takeFlag reads one of the connection's flags and clears it.
func (c *strictConn) takeFlag(flag *bool) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	set := *flag
	*flag = false
	return set
}

// expectHead: the request is done, its body read; the next bytes are a head.
func (c *strictConn) expectHead() {
	c.mu.Lock()
	c.inHead, c.prev, c.lineBytes, c.sawLine = true, 0, 0, false
	c.mu.Unlock()
}

// refuseMalformed answers as the Node proxy's clientError handler does (preview-pages.ts refuseUpgrade), and closes.
func refuseMalformed(w http.ResponseWriter) {
	body := "400 Bad Request\n\nthe request could not be parsed\n"
	if hj, ok := w.(http.Hijacker); ok {
		if conn, _, err := hj.Hijack(); err == nil {
			_, _ = io.WriteString(conn, "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: "+
				strconv.Itoa(len(body))+"\r\nConnection: close\r\n\r\n"+body)
			conn.Close()
			return
		}
	}
	w.Header().Set("Connection", "close")
	http.Error(w, body, http.StatusBadRequest)
}

// eofBody notes whether a request body was read to its end.
type eofBody struct {
	io.ReadCloser
	eof bool
}

func (b *eofBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF {
		b.eof = true
	}
	return n, err
}
