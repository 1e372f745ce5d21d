// Package edge is the preview proxy's native data path: it listens on the proxy's public port,
// answers requests to ready public routes the core has pushed straight from the box's address
// (pooled keep-alive connections, streamed bodies), and forwards everything else, unchanged, to
// the core's Node proxy on a socket only the edge talks to. Node stays the one full
// implementation: sign-in, tokens, cookies to set, wakes, upgrades, errors it must explain.
package edge

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Route is one Host the core has pushed as ready: a running box's published port, auth public,
// reachable at Upstream (the address the Node proxy dials for it).
type Route struct {
	Host     string `json:"host"`
	Box      string `json:"box"`
	Upstream string `json:"upstream"`
	Port     int    `json:"port"`
}

// Options are the edge's limits, the Node proxy's own (--proxy-connect-timeout, --proxy-header-timeout).
type Options struct {
	ConnectTimeout time.Duration
	HeaderTimeout  time.Duration
	// NetHTTPOnly: no lean loop (lean.go); every connection is net/http's, as before it (for comparisons).
	NetHTTPOnly bool
}

// Edge routes by Host; its table is replaced whole by each push.
type Edge struct {
	mu         sync.RWMutex
	routes     map[string]Route
	opts       Options
	box        *httputil.ReverseProxy
	node       *httputil.ReverseProxy
	activity   *Activity
	nodeSocket string
	dialer     *net.Dialer
	slots      slots
	// Stale hears of a route whose address refused a connection (the core forgets it).
	Stale func(Route)
}

// New makes an edge that forwards what it does not answer to the Node proxy at nodeSocket (a unix socket path).
func New(nodeSocket string, opts Options, activity *Activity) *Edge {
	e := &Edge{routes: map[string]Route{}, opts: opts, activity: activity, nodeSocket: nodeSocket, Stale: func(Route) {}}
	pool := &bufferPool{sync.Pool{New: func() interface{} { b := make([]byte, 256<<10); return &b }}}
	dialer := &net.Dialer{Timeout: opts.ConnectTimeout, KeepAlive: 30 * time.Second}
	e.dialer = dialer
	e.box = &httputil.ReverseProxy{
		Director: e.directToBox,
		Transport: &pinnedTransport{dialer: dialer, headerTimeout: opts.HeaderTimeout, pooled: &http.Transport{
			DialContext:           dialer.DialContext,
			MaxIdleConns:          1024,
			MaxIdleConnsPerHost:   64,
			IdleConnTimeout:       30 * time.Second,
			ResponseHeaderTimeout: opts.HeaderTimeout,
			DisableCompression:    true,
			ForceAttemptHTTP2:     false,
			WriteBufferSize:       64 << 10,
			ReadBufferSize:        64 << 10,
		}},
		FlushInterval:  -1,
		BufferPool:     pool,
		ErrorHandler:   e.boxFailed,
		ModifyResponse: e.countResponse,
		ErrorLog:       discardLog,
	}
	nodeDial := func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", nodeSocket)
	}
	e.node = &httputil.ReverseProxy{
		Director: directToNode,
		Transport: &http.Transport{
			DialContext:         nodeDial,
			MaxIdleConnsPerHost: 64,
			IdleConnTimeout:     30 * time.Second,
			DisableCompression:  true,
			WriteBufferSize:     64 << 10,
			ReadBufferSize:      64 << 10,
		},
		FlushInterval: -1,
		BufferPool:    pool,
		ErrorHandler:  nodeFailed,
		ErrorLog:      discardLog,
	}
	return e
}

// Server is an http.Server for the edge, with the limits of Node's own http server that the
// proxy keeps (headersTimeout, keepAliveTimeout, maxHeaderSize).
func (e *Edge) Server() *http.Server {
	return &http.Server{
		Handler:           e,
		ReadHeaderTimeout: 60 * time.Second,
		IdleTimeout:       5 * time.Second,
		MaxHeaderBytes:    16 << 10,
		ErrorLog:          discardLog,
		ConnContext: func(ctx context.Context, c net.Conn) context.Context {
			return e.slots.connContext(context.WithValue(ctx, strictKey{}, c), c)
		},
		ConnState: e.slots.connState,
	}
}

// SetRoutes replaces the table: a route not in it goes to Node from the next request on.
func (e *Edge) SetRoutes(routes []Route) {
	table := make(map[string]Route, len(routes))
	for _, r := range routes {
		if r.Host != "" && r.Upstream != "" && r.Box != "" {
			table[r.Host] = r
		}
	}
	e.mu.Lock()
	e.routes = table
	e.mu.Unlock()
}

// routeOf looks the route up without making a string of host.
func (e *Edge) routeOf(host []byte) (Route, bool) {
	e.mu.RLock()
	r, ok := e.routes[string(host)]
	e.mu.RUnlock()
	return r, ok
}

func (e *Edge) route(host string) (Route, bool) {
	e.mu.RLock()
	r, ok := e.routes[host]
	e.mu.RUnlock()
	return r, ok
}

type ctxKey int

const (
	routeKey ctxKey = iota
	bodyKey
)

// ServeHTTP answers a request to a ready route itself; anything else is Node's.
func (e *Edge) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if conn, ok := r.Context().Value(strictKey{}).(*strictConn); ok {
		if conn.takeBareLF() {
			refuseMalformed(w)
			return
		}
		body := &eofBody{ReadCloser: r.Body}
		r.Body = body
		defer func() {
			if body.eof || r.ContentLength == 0 && len(r.TransferEncoding) == 0 {
				conn.expectHead()
			}
		}()
	}
	r.Header.Del(ClientHeader)
	if conn, ok := r.Context().Value(strictKey{}).(*strictConn); ok && conn.takeToNode() {
		e.node.ServeHTTP(w, r)
		return
	}
	if r.Header.Get("Upgrade") != "" || headerHasToken(r.Header, "Connection", "upgrade") {
		e.spliceToNode(w, r)
		return
	}
	route, ok := e.route(r.Host)
	if !ok || fastPathRefusal(r) != "" {
		e.node.ServeHTTP(w, r)
		return
	}
	e.activity.Request(route.Box)
	body := &trackedBody{}
	ctx := context.WithValue(context.WithValue(r.Context(), routeKey, route), bodyKey, body)
	e.box.ServeHTTP(w, r.WithContext(ctx))
}

// directToBox: the request as the Node proxy would send it (our session cookie off, X-Forwarded-* set), the target's bytes kept.
func (e *Edge) directToBox(out *http.Request) {
	route := out.Context().Value(routeKey).(Route)
	body := out.Context().Value(bodyKey).(*trackedBody)
	path, query, _ := splitTarget(out.RequestURI)
	out.URL = &url.URL{Scheme: "http", Host: route.Upstream, Opaque: path, RawQuery: query, ForceQuery: query == "" && hasQueryMark(out.RequestURI)}
	if rest, ok := splitCookies(out.Header["Cookie"]); ok {
		out.Header["Cookie"] = []string{rest}
	} else {
		delete(out.Header, "Cookie")
	}
	setForwarded(out.Header, out.Host)
	if out.Body != nil && out.Body != http.NoBody {
		body.ReadCloser = out.Body
		out.Body = body
	}
}

func hasQueryMark(target string) bool {
	return len(target) > 0 && target[len(target)-1] == '?'
}

// clientAddress as Node's socket.remoteAddress reads it (the proxy listens on one loopback address).
func clientAddress(remote string) string {
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		return "127.0.0.1"
	}
	return host
}

func directToNode(out *http.Request) {
	path, query, ok := splitTarget(out.RequestURI)
	if !ok {
		path, query = out.URL.RequestURI(), ""
	}
	out.URL = &url.URL{Scheme: "http", Host: "boxdesk-node-proxy", Opaque: path, RawQuery: query, ForceQuery: query == "" && hasQueryMark(out.RequestURI)}
	out.Header.Set(ClientHeader, clientAddress(out.RemoteAddr))
	// Node sets X-Forwarded-* itself; the edge adds nothing of its own.
	out.Header["X-Forwarded-For"] = nil
}

// spliceToNode hands an upgrade (a WebSocket, say) to the Node proxy as the client sent it, and
// carries bytes both ways until either side ends: Node checks it, wakes the box, and closes it.
func (e *Edge) spliceToNode(w http.ResponseWriter, r *http.Request) {
	hijacker, ok := w.(http.Hijacker)
	if !ok {
		e.node.ServeHTTP(w, r)
		return
	}
	node, err := net.DialTimeout("unix", e.nodeSocket, 5*time.Second)
	if err != nil {
		nodeFailed(w, r, err)
		return
	}
	client, buffered, err := hijacker.Hijack()
	if err != nil {
		node.Close()
		return
	}
	defer client.Close()
	defer node.Close()
	var head strings.Builder
	head.WriteString(r.Method + " " + r.RequestURI + " " + r.Proto + "\r\n")
	head.WriteString("Host: " + r.Host + "\r\n")
	r.Header.Set(ClientHeader, clientAddress(r.RemoteAddr))
	_ = r.Header.Write(&head)
	if len(r.TransferEncoding) > 0 {
		head.WriteString("Transfer-Encoding: " + strings.Join(r.TransferEncoding, ", ") + "\r\n")
	}
	head.WriteString("\r\n")
	if _, err := io.WriteString(node, head.String()); err != nil {
		return
	}
	go func() {
		// What the client sent past the headers is in `buffered` first.
		_, _ = io.Copy(node, buffered)
		if u, ok := node.(*net.UnixConn); ok {
			_ = u.CloseWrite()
		}
	}()
	_, _ = io.Copy(client, node)
}

func (e *Edge) countResponse(res *http.Response) error {
	route := res.Request.Context().Value(routeKey).(Route)
	res.Body = &countedBody{ReadCloser: res.Body, box: route.Box, activity: e.activity}
	return nil
}

// boxFailed: a connection the box refused before any of the body was sent goes to Node (which
// finds the box anew: a new address, a relay, or a page that says what listens); a box too slow
// to answer gets the Node proxy's own 504 page.
func (e *Edge) boxFailed(w http.ResponseWriter, r *http.Request, err error) {
	route := r.Context().Value(routeKey).(Route)
	body := r.Context().Value(bodyKey).(*trackedBody)
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" && !body.read {
		if op.Timeout() {
			sendPage(w, http.StatusGatewayTimeout, "the box did not accept a connection on port "+strconv.Itoa(route.Port)+" within "+seconds(e.opts.ConnectTimeout)+" s; its server may be stuck or overloaded (the limit is --proxy-connect-timeout)")
			return
		}
		e.Stale(route)
		e.node.ServeHTTP(w, r)
		return
	}
	if isHeaderTimeout(err) {
		sendPage(w, http.StatusGatewayTimeout, "the box's server on port "+strconv.Itoa(route.Port)+" took the request but sent no answer within "+seconds(e.opts.HeaderTimeout)+" s; it may be stuck, or slower than --proxy-header-timeout allows")
		return
	}
	if errors.Is(err, context.Canceled) {
		return // the client went
	}
	sendPage(w, http.StatusBadGateway, "the box's server on port "+strconv.Itoa(route.Port)+" broke the connection ("+err.Error()+")")
}

func nodeFailed(w http.ResponseWriter, _ *http.Request, err error) {
	if errors.Is(err, context.Canceled) {
		return
	}
	sendPage(w, http.StatusBadGateway, "the core's preview proxy did not answer the edge ("+err.Error()+"); restart Boxdesk if it persists")
}

func isHeaderTimeout(err error) bool {
	var t interface{ Timeout() bool }
	return errors.As(err, &t) && t.Timeout()
}

func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64)
}

var reasons = map[int]string{400: "Bad Request", 502: "Bad Gateway", 504: "Gateway Timeout"}

// sendPage is preview-pages.ts's sendPage: a plain page from the proxy itself.
func sendPage(w http.ResponseWriter, status int, message string) {
	body := strconv.Itoa(status) + " " + reasons[status] + "\n\n" + message + "\n\n— Boxdesk preview proxy\n"
	h := w.Header()
	for k := range h {
		delete(h, k)
	}
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}

// trackedBody notes whether any of the request body was read (then it cannot go to Node any more).
type trackedBody struct {
	io.ReadCloser
	read bool
}

func (b *trackedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		b.read = true
	}
	return n, err
}

// Close is left to the server, which owns the request body: Node may still read it.
func (b *trackedBody) Close() error { return nil }

type countedBody struct {
	io.ReadCloser
	box      string
	activity *Activity
}

func (b *countedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		b.activity.Bytes(b.box, n)
	}
	return n, err
}

type bufferPool struct{ sync.Pool }

func (p *bufferPool) Get() []byte  { return *(p.Pool.Get().(*[]byte)) }
func (p *bufferPool) Put(b []byte) { p.Pool.Put(&b) }
