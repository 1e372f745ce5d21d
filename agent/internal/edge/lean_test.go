package edge

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// rawBox answers every request on every connection with answer(request), as written; conns
// counts the connections it accepted.
func rawBox(t *testing.T, answer func(*http.Request) string) (addr string, conns *int64) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	conns = new(int64)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			atomic.AddInt64(conns, 1)
			go func() {
				defer c.Close()
				r := bufio.NewReader(c)
				for {
					req, err := http.ReadRequest(r)
					if err != nil {
						return
					}
					if _, err := io.WriteString(c, answer(req)); err != nil {
						return
					}
				}
			}()
		}
	}()
	return ln.Addr().String(), conns
}

// leanEdge serves an edge in front of a box at boxAddr (Node: a recorder answering "node").
func leanEdge(t *testing.T, boxAddr string, opts Options) (addr string, node chan seen, stale chan Route) {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "node.sock")
	_, node = recorder(t, "unix", sock, "node", 0)
	e := New(sock, opts, NewActivity())
	stale = make(chan Route, 4)
	e.Stale = func(r Route) { stale <- r }
	e.SetRoutes([]Route{{Host: "web--p.localhost:7421", Box: "box_1", Upstream: boxAddr, Port: 8080}})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = e.Serve(ln) }()
	t.Cleanup(func() { ln.Close() })
	return ln.Addr().String(), node, stale
}

// dialEdge opens a client's connection to the edge at addr, closed when the test ends.
func dialEdge(t *testing.T, addr string) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

func keepAliveGet(target string) string {
	return "GET " + target + " HTTP/1.1\r\nHost: web--p.localhost:7421\r\n\r\n"
}

func readAnswers(t *testing.T, r *bufio.Reader, n int, method string) []string {
	t.Helper()
	var bodies []string
	for i := 0; i < n; i++ {
		res, err := http.ReadResponse(r, &http.Request{Method: method})
		if err != nil {
			t.Fatalf("answer %d: %v", i, err)
		}
		body, _ := io.ReadAll(res.Body)
		bodies = append(bodies, res.Status+" "+string(body))
	}
	return bodies
}

func TestPipelinedRequestsShareOneBoxConnection(t *testing.T) {
	boxAddr, conns := rawBox(t, func(r *http.Request) string {
		return "HTTP/1.1 200 OK\r\nContent-Length: " + strconv.Itoa(len(r.URL.Path)) + "\r\n\r\n" + r.URL.Path
	})
	addr, _, _ := leanEdge(t, boxAddr, Options{})
	conn := dialEdge(t, addr)
	_, _ = io.WriteString(conn, keepAliveGet("/a")+keepAliveGet("/bb")+keepAliveGet("/ccc"))
	got := readAnswers(t, bufio.NewReader(conn), 3, "GET")
	if strings.Join(got, ",") != "200 OK /a,200 OK /bb,200 OK /ccc" {
		t.Errorf("answers: %q", got)
	}
	if n := atomic.LoadInt64(conns); n != 1 {
		t.Errorf("the box saw %d connections, want 1", n)
	}
}

func TestAConnectionGoesToNetHTTPAtItsFirstRequestWithABody(t *testing.T) {
	f := newFixture(t, 0, Options{})
	conn := f.dial(t)
	_, _ = io.WriteString(conn, keepAliveGet("/1")+
		"POST /2 HTTP/1.1\r\nHost: web--p.localhost:7421\r\nContent-Length: 3\r\n\r\nabc"+
		keepAliveGet("/3?token=x")+keepAliveGet("/4"))
	got := readAnswers(t, bufio.NewReader(conn), 4, "GET")
	if strings.Join(got, ",") != "200 OK box,200 OK box,200 OK node,200 OK box" {
		t.Errorf("answers: %q", got)
	}
	for _, want := range []string{"/1", "/2", "/4"} {
		if s := <-f.box; s.target != want {
			t.Errorf("the box got %q, want %q", s.target, want)
		}
	}
}

func TestHeadChunkedAndLenientAnswers(t *testing.T) {
	answers := map[string]string{
		"/chunked": "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n",
		"/bare-lf": "HTTP/1.1 200 OK\nContent-Length: 2\nX-A: 1\n\nok",
		"/early":   "HTTP/1.1 103 Early Hints\r\nLink: </s.css>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nlater",
		"/head":    "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\nConnection: x-hop\r\nX-Hop: 1\r\n\r\n",
	}
	boxAddr, _ := rawBox(t, func(r *http.Request) string { return answers[r.URL.Path] })
	addr, _, _ := leanEdge(t, boxAddr, Options{})
	conn := dialEdge(t, addr)
	r := bufio.NewReader(conn)
	for _, c := range []struct{ target, method, want string }{
		{"/chunked", "GET", "200 OK abcde"},
		{"/bare-lf", "GET", "200 OK ok"},
		{"/early", "GET", "200 OK later"},
		{"/head", "HEAD", "200 OK "},
		{"/chunked", "GET", "200 OK abcde"},
	} {
		_, _ = io.WriteString(conn, c.method+" "+c.target+" HTTP/1.1\r\nHost: web--p.localhost:7421\r\n\r\n")
		res, err := http.ReadResponse(r, &http.Request{Method: c.method})
		if err != nil {
			t.Fatalf("%s: %v", c.target, err)
		}
		body, _ := io.ReadAll(res.Body)
		if got := res.Status + " " + string(body); got != c.want {
			t.Errorf("%s: got %q, want %q", c.target, got, c.want)
		}
		if res.Header.Get("Date") == "" || res.Header.Get("X-Hop") != "" {
			t.Errorf("%s: headers %v", c.target, res.Header)
		}
		if c.method == "HEAD" && res.ContentLength != 1000 {
			t.Errorf("HEAD: Content-Length %d", res.ContentLength)
		}
	}
}

func TestALargeAnswerArrivesWhole(t *testing.T) {
	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB
	boxAddr, _ := rawBox(t, func(*http.Request) string {
		return "HTTP/1.1 200 OK\r\nContent-Length: " + strconv.Itoa(len(big)) + "\r\n\r\n" + string(big)
	})
	addr, _, _ := leanEdge(t, boxAddr, Options{})
	conn := dialEdge(t, addr)
	r := bufio.NewReader(conn)
	for i := 0; i < 2; i++ {
		_, _ = io.WriteString(conn, keepAliveGet("/big"))
		res, err := http.ReadResponse(r, nil)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		if !bytes.Equal(body, big) {
			t.Fatalf("round %d: %d bytes, not the box's %d", i, len(body), len(big))
		}
	}
}

func TestAGetTheBoxRefusesGoesToNodeAndIsReportedStale(t *testing.T) {
	closed, _ := net.Listen("tcp", "127.0.0.1:0")
	boxAddr := closed.Addr().String()
	closed.Close()
	addr, node, stale := leanEdge(t, boxAddr, Options{ConnectTimeout: time.Second})
	conn := dialEdge(t, addr)
	_, _ = io.WriteString(conn, keepAliveGet("/x?a=1"))
	if got := readAnswers(t, bufio.NewReader(conn), 1, "GET"); got[0] != "200 OK node" {
		t.Errorf("answer: %q", got)
	}
	if s := <-node; s.target != "/x?a=1" || s.header.Get(ClientHeader) != "127.0.0.1" {
		t.Errorf("Node got %q %v", s.target, s.header)
	}
	if r := <-stale; r.Upstream != boxAddr {
		t.Errorf("stale: %v", r)
	}
}

func TestAClientGoneEndsTheWaitOnASlowBox(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ended := make(chan error, 1)
	server := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done() // answers only once the edge has gone
		ended <- r.Context().Err()
	})}
	go func() { _ = server.Serve(ln) }()
	t.Cleanup(func() { server.Close() })
	addr, _, _ := leanEdge(t, ln.Addr().String(), Options{HeaderTimeout: time.Minute})
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.WriteString(conn, keepAliveGet("/slow"))
	time.Sleep(2 * slowAnswer)
	conn.Close()
	select {
	case err := <-ended:
		if err != context.Canceled {
			t.Errorf("the box's request ended with %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the edge still waits on the box after its client went")
	}
}

func TestConnectionCloseIsHonoured(t *testing.T) {
	f := newFixture(t, 0, Options{})
	conn := f.dial(t)
	_, _ = io.WriteString(conn, get("/"))
	all, err := io.ReadAll(conn) // ends only if the edge closes the connection
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(all, []byte("\r\nConnection: close\r\n")) || !bytes.HasSuffix(all, []byte("box")) {
		t.Errorf("answer: %q", all)
	}
}

// The lean loop takes only heads net/http reads the same way; anything odd is net/http's (and
// the strict checks') to refuse or route.
func TestTheLeanReaderTakesOnlyPlainHeads(t *testing.T) {
	refused := map[string]string{
		"space before colon":      "GET / HTTP/1.1\r\nHost: a\r\nX : 1\r\n\r\n",
		"folded line":             "GET / HTTP/1.1\r\nHost: a\r\nX: 1\r\n 2\r\n\r\n",
		"two hosts":               "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
		"no host":                 "GET / HTTP/1.1\r\nX: 1\r\n\r\n",
		"NUL in a value":          "GET / HTTP/1.1\r\nHost: a\r\nX: a\x00b\r\n\r\n",
		"bare CR":                 "GET / HTTP/1.1\r\nHost: a\r\nX: a\rb\r\n\r\n",
		"bare LF":                 "GET / HTTP/1.1\r\nHost: a\nX: 1\r\n\r\n",
		"HTTP/1.0":                "GET / HTTP/1.0\r\nHost: a\r\n\r\n",
		"two spaces":              "GET  / HTTP/1.1\r\nHost: a\r\n\r\n",
		"lower-case method":       "get / HTTP/1.1\r\nHost: a\r\n\r\n",
		"POST":                    "POST / HTTP/1.1\r\nHost: a\r\n\r\n",
		"content-length 0":        "GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n",
		"chunked":                 "GET / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n",
		"fragment":                "GET /a#b HTTP/1.1\r\nHost: a\r\n\r\n",
		"bearer":                  "GET / HTTP/1.1\r\nHost: a\r\nAuthorization: bearer x\r\n\r\n",
		"Token parameter":         "GET /?a=1&Token=x HTTP/1.1\r\nHost: a\r\n\r\n",
		"sign-in code":            "GET /?xboxdesk_code=1 HTTP/1.1\r\nHost: a\r\n\r\n",
		"non-ASCII value":         "GET / HTTP/1.1\r\nHost: a\r\nCookie: a=\xc3\xa9\r\n\r\n",
		"upgrade":                 "GET / HTTP/1.1\r\nHost: a\r\nConnection: Upgrade\r\n\r\n",
		"expect":                  "GET / HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\n\r\n",
		"subprotocol":             "GET / HTTP/1.1\r\nHost: a\r\nSec-WebSocket-Protocol: chat\r\n\r\n",
		"absolute form":           "GET http://a/ HTTP/1.1\r\nHost: a\r\n\r\n",
		"leading //":              "GET //a HTTP/1.1\r\nHost: a\r\n\r\n",
		"empty name":              "GET / HTTP/1.1\r\nHost: a\r\n: 1\r\n\r\n",
		"Connection lists Cookie": "GET / HTTP/1.1\r\nHost: a\r\nConnection: cookie\r\n\r\n",
	}
	var h requestHead
	for name, head := range refused {
		if h.parse([]byte(head)) {
			t.Errorf("%s: the lean loop took %q", name, head)
		}
	}
	taken := []string{
		"GET /a?b=1&c HTTP/1.1\r\nHost: web--p.localhost:7421\r\nAccept: */*\r\nX-Tab:\tv \r\n\r\n",
		"HEAD / HTTP/1.1\r\nhost: a\r\nCONNECTION: keep-alive, x-drop\r\nX-Drop: 1\r\nAuthorization: Basic YQ==\r\n\r\n",
	}
	for _, head := range taken {
		if !h.parse([]byte(head)) {
			t.Fatalf("not taken: %q", head)
		}
		req, err := http.ReadRequest(bufio.NewReader(strings.NewReader(head)))
		if err != nil {
			t.Fatalf("net/http refuses what the lean loop took: %q: %v", head, err)
		}
		if string(h.method) != req.Method || string(h.target) != req.RequestURI || string(h.host) != req.Host {
			t.Errorf("%q: lean %s %s %s, net/http %s %s %s", head, h.method, h.target, h.host, req.Method, req.RequestURI, req.Host)
		}
		for _, f := range h.fields {
			if got := req.Header.Get(string(f.name)); got != string(f.value) {
				t.Errorf("%q: %s is %q to the lean loop, %q to net/http", head, f.name, f.value, got)
			}
			if eqFold(f.name, "x-drop") {
				t.Errorf("%q: a header the Connection header names is forwarded", head)
			}
		}
	}
}
