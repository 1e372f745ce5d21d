package edge

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// seen is what a server got: the request line's target and the headers, raw.
type seen struct {
	target string
	header http.Header
}

// recorder is an HTTP server that notes each request and answers with `who`.
func recorder(t *testing.T, network, address, who string, delay time.Duration) (net.Listener, chan seen) {
	t.Helper()
	ln, err := net.Listen(network, address)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan seen, 16)
	server := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- seen{target: r.RequestURI, header: r.Header.Clone()}
		_, _ = io.Copy(io.Discard, r.Body)
		time.Sleep(delay)
		w.Header().Set("Connection", "x-hop")
		w.Header().Set("X-Hop", "only this hop")
		_, _ = io.WriteString(w, who)
	})}
	go func() { _ = server.Serve(ln) }()
	t.Cleanup(func() { _ = server.Close() })
	return ln, got
}

type fixture struct {
	edge    *Edge
	url     string
	box     chan seen
	node    chan seen
	stale   chan Route
	boxAddr string
}

// dial opens a client's connection to the edge, closed when the test ends.
func (f *fixture) dial(t *testing.T) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(f.url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

func newFixture(t *testing.T, boxDelay time.Duration, opts Options) *fixture {
	t.Helper()
	boxLn, box := recorder(t, "tcp", "127.0.0.1:0", "box", boxDelay)
	sock := filepath.Join(t.TempDir(), "node.sock")
	_, node := recorder(t, "unix", sock, "node", 0)
	e := New(sock, opts, NewActivity())
	stale := make(chan Route, 4)
	e.Stale = func(r Route) { stale <- r }
	e.SetRoutes([]Route{{Host: "web--p.localhost:7421", Box: "box_1", Upstream: boxLn.Addr().String(), Port: 8080}})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = e.Serve(ln) }()
	t.Cleanup(func() { _ = ln.Close() })
	return &fixture{edge: e, url: "http://" + ln.Addr().String(), box: box, node: node, stale: stale, boxAddr: boxLn.Addr().String()}
}

// raw sends one request as written and returns the status line and body.
func (f *fixture) raw(t *testing.T, request string) (int, string, http.Header) {
	t.Helper()
	conn := f.dial(t)
	if _, err := io.WriteString(conn, request); err != nil {
		t.Fatal(err)
	}
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(body), res.Header
}

func get(target string, headers ...string) string {
	return "GET " + target + " HTTP/1.1\r\nHost: web--p.localhost:7421\r\n" + strings.Join(headers, "") + "Connection: close\r\n\r\n"
}

func TestFastPathStripsOurCookieAndSetsForwardedHeaders(t *testing.T) {
	f := newFixture(t, 0, Options{})
	status, body, header := f.raw(t, get("/a%2Fb/./c?x=1&y=%20&&z",
		"Cookie: a=1;  boxdesk_preview=v1.tok.1.mac ; b=2;\r\n",
		"X-Forwarded-For: 6.6.6.6\r\nX-Forwarded-Port: 1\r\nForwarded: for=6.6.6.6\r\nX-Forwarded-Proto: https\r\n",
		"Authorization: Basic YTpi\r\nConnection: x-secret\r\nX-Secret: hop\r\n",
		ClientHeader+": 6.6.6.6\r\n"))
	if status != 200 || body != "box" {
		t.Fatalf("the box should answer: %d %q", status, body)
	}
	if header.Get("X-Hop") != "" {
		t.Errorf("the box's hop-by-hop header reached the client: %v", header)
	}
	got := <-f.box
	if got.target != "/a%2Fb/./c?x=1&y=%20&&z" {
		t.Errorf("the target's bytes changed: %q", got.target)
	}
	want := map[string]string{
		"Cookie": "a=1; b=2", "X-Forwarded-For": "127.0.0.1", "X-Forwarded-Proto": "http",
		"X-Forwarded-Host": "web--p.localhost:7421", "Authorization": "Basic YTpi",
	}
	for k, v := range want {
		if g := strings.Join(got.header[k], "|"); g != v {
			t.Errorf("%s: got %q, want %q", k, g, v)
		}
	}
	for _, k := range []string{"X-Forwarded-Port", "Forwarded", "X-Secret", ClientHeader, "Accept-Encoding"} {
		if _, ok := got.header[k]; ok {
			t.Errorf("%s reached the box: %q", k, got.header[k])
		}
	}
}

func TestOnlyOurCookieDropsTheHeader(t *testing.T) {
	f := newFixture(t, 0, Options{})
	f.raw(t, get("/", "Cookie: boxdesk_preview=v1.x.1.y\r\n"))
	if got := <-f.box; got.header["Cookie"] != nil {
		t.Errorf("a cookie header reached the box: %q", got.header["Cookie"])
	}
}

func TestWhatMayCarryOurCredentialsGoesToNode(t *testing.T) {
	f := newFixture(t, 0, Options{})
	cases := map[string]string{
		"bearer":           get("/", "Authorization: Bearer bdk_secret\r\n"),
		"bearer, any case": get("/", "Authorization: bEaReR bdk_secret\r\n"),
		"?token=":          get("/?token=bdk_secret"),
		"encoded token":    get("/?%74oken=bdk_secret"),
		"leading ?":        get("/??token=bdk_secret"),
		"sign-in code":     get("/?a=1&boxdesk_code=abc"),
		"subprotocol":      get("/", "Sec-WebSocket-Protocol: bearer.bdk_secret\r\n"),
		"upgrade":          get("/", "Upgrade: websocket\r\n"),
		"cookie not ascii": get("/", "Cookie: a=\xc3\xa9\r\n"),
		"unknown host":     "GET / HTTP/1.1\r\nHost: other--p.localhost:7421\r\nConnection: close\r\n\r\n",
		"absolute form":    "GET http://web--p.localhost:7421/ HTTP/1.1\r\nHost: web--p.localhost:7421\r\nConnection: close\r\n\r\n",
	}
	for name, request := range cases {
		status, body, _ := f.raw(t, request)
		if status != 200 || body != "node" {
			t.Errorf("%s: want Node's answer, got %d %q", name, status, body)
			continue
		}
		got := <-f.node
		if got.header.Get(ClientHeader) != "127.0.0.1" {
			t.Errorf("%s: the client's address is not passed to Node: %v", name, got.header)
		}
		if _, ok := got.header["X-Forwarded-For"]; ok {
			t.Errorf("%s: the edge added X-Forwarded-For on the way to Node", name)
		}
	}
	if status, body, _ := f.raw(t, get("/?token=x")); status != 200 || body != "node" {
		t.Fatalf("unexpected %d %q", status, body)
	}
	if got := <-f.node; got.target != "/?token=x" {
		t.Errorf("Node got another target: %q", got.target)
	}
	select {
	case got := <-f.box:
		t.Errorf("the box got a request that was Node's: %v", got)
	default:
	}
}

func TestARouteTakenAwayGoesToNodeAtOnce(t *testing.T) {
	f := newFixture(t, 0, Options{})
	f.edge.SetRoutes(nil)
	if _, body, _ := f.raw(t, get("/")); body != "node" {
		t.Fatalf("want Node, got %q", body)
	}
}

func TestARefusedConnectionGoesToNodeAndIsReportedStale(t *testing.T) {
	f := newFixture(t, 0, Options{ConnectTimeout: time.Second})
	closed, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := closed.Addr().String()
	closed.Close()
	f.edge.SetRoutes([]Route{{Host: "web--p.localhost:7421", Box: "box_1", Upstream: addr, Port: 8080}})
	status, body, _ := f.raw(t, "POST / HTTP/1.1\r\nHost: web--p.localhost:7421\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello")
	if status != 200 || body != "node" {
		t.Fatalf("want Node's answer, got %d %q", status, body)
	}
	if r := <-f.stale; r.Upstream != addr {
		t.Errorf("stale route: %v", r)
	}
}

func TestASlowBoxGetsTheHeaderTimeoutPage(t *testing.T) {
	f := newFixture(t, 2*time.Second, Options{HeaderTimeout: 200 * time.Millisecond})
	status, body, _ := f.raw(t, get("/"))
	want := "504 Gateway Timeout\n\nthe box's server on port 8080 took the request but sent no answer within 0.2 s; it may be stuck, or slower than --proxy-header-timeout allows\n\n— Boxdesk preview proxy\n"
	if status != 504 || body != want {
		t.Errorf("got %d %q", status, body)
	}
}

func TestSplitCookiesAsNode(t *testing.T) {
	cases := []struct {
		in   []string
		rest string
		ok   bool
	}{
		{nil, "", false},
		{[]string{""}, "", false},
		{[]string{"a=1"}, "a=1", true},
		{[]string{" a=1 ;;b = 2 ; "}, "a=1; b = 2", true},
		{[]string{"boxdesk_preview=x"}, "", false},
		{[]string{" boxdesk_preview =x; c"}, "c", true},
		{[]string{"boxdesk_previewX=1"}, "boxdesk_previewX=1", true},
		{[]string{"a=1", "b=2"}, "a=1; b=2", true},
	}
	for _, c := range cases {
		rest, ok := splitCookies(c.in)
		if rest != c.rest || ok != c.ok {
			t.Errorf("splitCookies(%q) = %q %v, want %q %v", c.in, rest, ok, c.rest, c.ok)
		}
	}
}

func TestMainEndsWithItsInput(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "node.sock")
	stdinR, stdinW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan int)
	go func() { done <- Main([]string{"--listen", "127.0.0.1:0", "--node", sock}, stdinR, outW, os.Stderr) }()
	lines := bufio.NewScanner(outR)
	if !lines.Scan() || !strings.Contains(lines.Text(), `"listening"`) {
		t.Fatalf("first line: %q", lines.Text())
	}
	fmt.Fprintln(stdinW, `{"type":"routes","seq":7,"routes":[]}`)
	if !lines.Scan() || lines.Text() != `{"seq":7,"type":"ack"}` {
		t.Fatalf("ack: %q", lines.Text())
	}
	stdinW.Close()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit %d", code)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the edge did not end with its input")
	}
}

func TestABareLFHeadIsRefusedAsNodeRefusesIt(t *testing.T) {
	f := newFixture(t, 0, Options{})
	status, body, _ := f.raw(t, "GET / HTTP/1.1\nHost: web--p.localhost:7421\n\n")
	if status != 400 || body != "400 Bad Request\n\nthe request could not be parsed\n" {
		t.Errorf("got %d %q", status, body)
	}
	// A body with bare LFs, then a second request on the same connection: both are fine.
	conn := f.dial(t)
	reader := bufio.NewReader(conn)
	for i, request := range []string{
		"POST / HTTP/1.1\r\nHost: web--p.localhost:7421\r\nContent-Length: 4\r\n\r\na\nb\n",
		get("/"),
	} {
		if _, err := io.WriteString(conn, request); err != nil {
			t.Fatal(err)
		}
		res, err := http.ReadResponse(reader, nil)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(res.Body)
		if res.StatusCode != 200 || string(got) != "box" {
			t.Errorf("request %d: %d %q", i, res.StatusCode, got)
		}
	}
}
