package edge

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"time"
)

// The lean loop: each client connection is read by one goroutine that forwards plain GET and
// HEAD requests to ready routes itself, on a connection to the box of its own, with no
// net/http machinery in between (no request objects, no background read per request, no
// hand-offs between goroutines: under load on two shared cores those cost more than the bytes).
// The first request it does not take (a body, an upgrade, anything that may carry a Boxdesk
// credential, any head outside the narrow form leanhead.go reads, an unknown host) hands the
// connection, its bytes unread, to the net/http server (edge.go), which keeps it from then on.

const (
	idleTimeout   = 5 * time.Second  // Node's keepAliveTimeout (Server's IdleTimeout)
	headTimeout   = 60 * time.Second // Node's headersTimeout (Server's ReadHeaderTimeout)
	maxHead       = 16<<10 + 4096    // Server's MaxHeaderBytes, with net/http's own slack
	slowAnswer    = 100 * time.Millisecond
	boxReadBuffer = 64 << 10
)

var aLongTimeAgo = time.Unix(1, 0)

// leanConn is one client connection in the lean loop.
type leanConn struct {
	e    *Edge
	conn net.Conn
	br   *bufio.Reader
	bw   *bufio.Writer
	up   *upstreamConn // this client's own connection to its box, kept between requests
	req  requestHead
	ans  answerHead
	out  []byte // the request as the box gets it
	// headLen: the bytes of br that are the request being forwarded (taken off once the box
	// answers). Once the box is asked, req's slices of br may be stale (the watcher reads br).
	headLen int
	isHead  bool   // the request is a HEAD
	client  string // the client's address, as X-Forwarded-For gives it
	watch   watcher
}

// serveLean runs the lean loop on conn until it ends or is handed to net/http.
func (e *Edge) serveLean(conn net.Conn, handoff *handoff) {
	c := &leanConn{e: e, conn: conn, br: bufio.NewReaderSize(conn, maxHead), bw: bufio.NewWriterSize(conn, 16<<10)}
	c.client = clientAddress(conn.RemoteAddr().String())
	c.watch.init(c)
	defer c.watch.timer.Stop()
	defer func() {
		if c.up != nil {
			c.up.Close()
		}
	}()
	for {
		head, err := c.readHead()
		if err != nil {
			conn.Close()
			return
		}
		if head == nil || !c.req.parse(head) {
			handoff.give(conn, c.br, false)
			return
		}
		route, ok := e.routeOf(c.req.host)
		if !ok {
			handoff.give(conn, c.br, false)
			return
		}
		switch c.forward(route, len(head)) {
		case forwarded:
			if c.req.close {
				conn.Close()
				return
			}
		case toNode:
			handoff.give(conn, c.br, true)
			return
		case ended:
			conn.Close()
			return
		}
	}
}

// readHead waits for the next request's head and returns it, unread (nil: larger than
// maxHead, or not ended as a head the lean loop reads; net/http reads it).
func (c *leanConn) readHead() ([]byte, error) {
	_ = c.conn.SetReadDeadline(time.Now().Add(idleTimeout))
	if _, err := c.br.Peek(1); err != nil {
		return nil, err
	}
	deadline := false
	for {
		buffered, _ := c.br.Peek(c.br.Buffered())
		if n := headEnd(buffered); n >= 0 {
			return buffered[:n], nil
		}
		if len(buffered) >= maxHead {
			return nil, nil
		}
		if !deadline {
			deadline = true
			_ = c.conn.SetReadDeadline(time.Now().Add(headTimeout))
		}
		if _, err := c.br.Peek(len(buffered) + 1); err != nil {
			return nil, err
		}
	}
}

type outcome int

const (
	forwarded outcome = iota
	toNode            // the box refused the connection: the request goes to Node, unread
	ended             // the client went, or its answer broke off: the connection ends
)

// forward sends the request (its head the first headLen bytes of br, left there until the box
// answers: a box that refused it leaves it to Node) to the box and copies the answer.
func (c *leanConn) forward(route Route, headLen int) outcome {
	c.e.activity.Request(route.Box)
	c.headLen = headLen
	c.isHead = string(c.req.method) == "HEAD"
	c.buildRequest()
	if c.up != nil && c.up.addr != route.Upstream {
		c.up.Close()
		c.up = nil
	}
	for attempt := 0; ; attempt++ {
		kept := c.up != nil
		if !kept {
			if err := c.dial(route.Upstream); err != nil {
				var ne net.Error
				if errors.As(err, &ne) && ne.Timeout() {
					return c.page(http.StatusGatewayTimeout, "the box did not accept a connection on port "+strconv.Itoa(route.Port)+" within "+seconds(c.e.opts.ConnectTimeout)+" s; its server may be stuck or overloaded (the limit is --proxy-connect-timeout)")
				}
				// Node finds the box anew (a new address, a relay, or a page that says what listens).
				c.e.Stale(route)
				return toNode
			}
		}
		err := c.ask()
		if c.watch.gone {
			return ended
		}
		if err == nil {
			_, _ = c.br.Discard(headLen)
			c.headLen = 0
			return c.answer(route)
		}
		c.up.Close()
		c.up = nil
		// A kept connection the box closed meanwhile: the request (without a body) is sent again on a new one.
		if kept && attempt == 0 && isStale(err) {
			continue
		}
		if isHeaderTimeout(err) {
			return c.page(http.StatusGatewayTimeout, "the box's server on port "+strconv.Itoa(route.Port)+" took the request but sent no answer within "+seconds(c.e.opts.HeaderTimeout)+" s; it may be stuck, or slower than --proxy-header-timeout allows")
		}
		return c.page(http.StatusBadGateway, "the box's server on port "+strconv.Itoa(route.Port)+" broke the connection ("+cause(err).Error()+")")
	}
}

func (c *leanConn) dial(addr string) error {
	conn, err := c.e.dialer.Dial("tcp", addr)
	if err != nil {
		return err
	}
	c.up = &upstreamConn{Conn: conn, addr: addr, br: bufio.NewReaderSize(conn, boxReadBuffer)}
	return nil
}

// ask writes the request to the box and waits for its answer's head (bounded by the header
// timeout; the client gone meanwhile ends the wait).
func (c *leanConn) ask() error {
	if _, err := c.up.Write(c.out); err != nil {
		return staleError{err}
	}
	if c.e.opts.HeaderTimeout > 0 {
		_ = c.up.SetReadDeadline(time.Now().Add(c.e.opts.HeaderTimeout))
	}
	c.watch.arm()
	_, err := c.up.br.Peek(1)
	for err == nil {
		buffered, _ := c.up.br.Peek(c.up.br.Buffered())
		if headEnd(buffered) >= 0 || len(buffered) == c.up.br.Size() {
			break
		}
		_, err = c.up.br.Peek(len(buffered) + 1)
	}
	c.watch.disarm()
	if err != nil && !isHeaderTimeout(err) && (errors.Is(err, io.EOF) || isReset(err)) && c.up.br.Buffered() == 0 {
		return staleError{err}
	}
	return err
}

func isStale(err error) bool { return errors.Is(err, errStale) }

// cause is the error itself, a stale connection's unwrapped.
func cause(err error) error {
	var s staleError
	if errors.As(err, &s) {
		return s.err
	}
	return err
}

func isReset(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "read"
}

// answer copies the box's answer to the client.
func (c *leanConn) answer(route Route) outcome {
	buffered, _ := c.up.br.Peek(c.up.br.Buffered())
	n := headEnd(buffered)
	if n < 0 || !c.ans.parse(buffered[:n], c.isHead) {
		return c.answerSlowly(route)
	}
	a := &c.ans
	bw := c.bw
	bw.WriteString("HTTP/1.1 ")
	writeStatus(bw, a.status)
	for _, f := range a.fields {
		bw.Write(f.name)
		bw.WriteString(": ")
		bw.Write(f.value)
		bw.WriteString("\r\n")
	}
	if !a.hasDate {
		bw.WriteString("Date: ")
		bw.WriteString(httpDate())
		bw.WriteString("\r\n")
	}
	if c.req.close {
		bw.WriteString("Connection: close\r\n")
	}
	bw.WriteString("\r\n")
	_, _ = c.up.br.Discard(n)
	// The body: what is buffered through bw, the rest straight from the box's socket (spliced on Linux).
	rest := a.length
	if chunk := int64(c.up.br.Buffered()); chunk > 0 && rest > 0 {
		if chunk > rest {
			chunk = rest
		}
		b, _ := c.up.br.Peek(int(chunk))
		bw.Write(b)
		_, _ = c.up.br.Discard(int(chunk))
		rest -= chunk
	}
	if err := bw.Flush(); err != nil {
		return ended
	}
	if rest > 0 {
		_ = c.up.SetReadDeadline(time.Time{})
		copied, err := io.CopyN(c.conn, c.up.Conn, rest)
		c.e.activity.Bytes(route.Box, int(a.length-rest+copied))
		if err != nil {
			return ended
		}
	} else if a.length > 0 {
		c.e.activity.Bytes(route.Box, int(a.length))
	}
	if a.close || c.up.br.Buffered() > 0 {
		c.up.Close()
		c.up = nil
	}
	return forwarded
}

// answerSlowly copies an answer outside the lean form (a bare-LF head, 1xx first, chunked or
// to the connection's end) as net/http reads and writes it.
func (c *leanConn) answerSlowly(route Route) outcome {
	probe := &http.Request{Method: http.MethodGet}
	if c.isHead {
		probe.Method = http.MethodHead
	}
	res, err := http.ReadResponse(c.up.br, probe)
	for err == nil && res.StatusCode < 200 && res.StatusCode != http.StatusSwitchingProtocols {
		res, err = http.ReadResponse(c.up.br, probe)
	}
	if err != nil || res.StatusCode == http.StatusSwitchingProtocols {
		c.up.Close()
		c.up = nil
		if err == nil {
			err = errors.New("it switched protocols unasked")
		}
		return c.page(http.StatusBadGateway, "the box's server on port "+strconv.Itoa(route.Port)+" broke the connection ("+err.Error()+")")
	}
	_ = c.up.SetReadDeadline(time.Time{})
	boxCloses := res.Close
	for _, t := range res.Header["Connection"] {
		for _, name := range splitTokens(t) {
			res.Header.Del(name)
		}
	}
	for _, h := range hopHeaders {
		res.Header.Del(h)
	}
	if res.Header.Get("Date") == "" {
		res.Header.Set("Date", httpDate())
	}
	toEnd := res.ContentLength < 0 && len(res.TransferEncoding) == 0 && res.StatusCode != 204 && res.StatusCode != 304 && !c.isHead
	res.Proto, res.ProtoMajor, res.ProtoMinor = "HTTP/1.1", 1, 1
	res.Close = c.req.close || toEnd
	body := &eofBody{ReadCloser: &countedBody{ReadCloser: res.Body, box: route.Box, activity: c.e.activity}}
	res.Body = body
	err = res.Write(c.bw)
	if err == nil {
		err = c.bw.Flush()
	}
	if boxCloses || !body.eof {
		c.up.Close()
		c.up = nil
	}
	if err != nil || res.Close {
		return ended
	}
	return forwarded
}

var hopHeaders = []string{"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate", "Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding", "Upgrade"}

// page answers with the proxy's own page (sendPage), the client's connection kept.
func (c *leanConn) page(status int, message string) outcome {
	if c.headLen > 0 {
		_, _ = c.br.Discard(c.headLen)
		c.headLen = 0
	}
	body := strconv.Itoa(status) + " " + reasons[status] + "\n\n" + message + "\n\n— Boxdesk preview proxy\n"
	c.bw.WriteString("HTTP/1.1 ")
	writeStatus(c.bw, status)
	c.bw.WriteString("Cache-Control: no-store\r\nContent-Type: text/plain; charset=utf-8\r\nX-Content-Type-Options: nosniff\r\nDate: " +
		httpDate() + "\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n")
	if c.req.close {
		c.bw.WriteString("Connection: close\r\n")
	}
	c.bw.WriteString("\r\n" + body)
	if c.bw.Flush() != nil || c.req.close {
		return ended
	}
	return forwarded
}

// buildRequest writes the request as the Node proxy would send it (rules.go: our cookie off,
// X-Forwarded-* ours, hop-by-hop headers off), the target's bytes kept.
func (c *leanConn) buildRequest() {
	r := &c.req
	b := append(c.out[:0], r.method...)
	b = append(b, ' ')
	b = append(b, r.target...)
	b = append(b, " HTTP/1.1\r\nHost: "...)
	b = append(b, r.host...)
	b = append(b, "\r\n"...)
	for _, f := range r.fields {
		b = append(append(append(append(b, f.name...), ": "...), f.value...), "\r\n"...)
	}
	if rest, ok := splitCookies(r.cookies); ok {
		b = append(append(append(b, "Cookie: "...), rest...), "\r\n"...)
	}
	b = append(b, "X-Forwarded-For: "...)
	b = append(b, c.client...)
	b = append(b, "\r\nX-Forwarded-Proto: http\r\nX-Forwarded-Host: "...)
	b = append(b, r.host...)
	b = append(b, "\r\n\r\n"...)
	c.out = b
}
