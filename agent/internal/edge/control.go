package edge

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"sync"
	"time"
)

// The control channel: JSON lines. In, on stdin, from the core: {"type":"routes","seq":N,"routes":[…]}
// (the whole table; the edge answers {"type":"ack","seq":N} once it applies). Out, on stdout:
// {"type":"listening","port":P} once, {"type":"activity","boxes":{ID:{"requests":N,"bytes":B}}}
// at most every `flush` (at once for a box first used after a quiet second, so its idle clock
// hears of the use as it would from Node), {"type":"stale","box":ID,"upstream":A}.
// stdin's end (the core is gone) ends the edge.

type usage struct {
	Requests int64 `json:"requests"`
	Bytes    int64 `json:"bytes"`
}

// Activity collects per-box use until it is reported.
type Activity struct {
	mu       sync.Mutex
	pending  map[string]*usage
	reported map[string]time.Time
	kick     chan struct{}
}

func NewActivity() *Activity {
	return &Activity{pending: map[string]*usage{}, reported: map[string]time.Time{}, kick: make(chan struct{}, 1)}
}

func (a *Activity) entry(box string) *usage {
	u := a.pending[box]
	if u == nil {
		u = &usage{}
		a.pending[box] = u
	}
	return u
}

// Request counts one request to the box; the first after a quiet second is reported at once.
func (a *Activity) Request(box string) {
	a.mu.Lock()
	a.entry(box).Requests++
	urgent := time.Since(a.reported[box]) > time.Second
	a.mu.Unlock()
	if urgent {
		select {
		case a.kick <- struct{}{}:
		default:
		}
	}
}

func (a *Activity) Bytes(box string, n int) {
	a.mu.Lock()
	a.entry(box).Bytes += int64(n)
	a.mu.Unlock()
}

// take empties what was collected.
func (a *Activity) take() map[string]*usage {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.pending) == 0 {
		return nil
	}
	out := a.pending
	a.pending = map[string]*usage{}
	now := time.Now()
	for box, u := range out {
		if u.Requests > 0 {
			a.reported[box] = now
		}
	}
	if len(a.reported) > 10000 {
		a.reported = map[string]time.Time{}
	}
	return out
}

// lines writes JSON lines, one at a time.
type lines struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lines) send(v interface{}) {
	b, err := json.Marshal(v)
	if err != nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	_, _ = l.w.Write(append(b, '\n'))
}

type message struct {
	Type   string  `json:"type"`
	Seq    int64   `json:"seq"`
	Routes []Route `json:"routes"`
}

// Main runs the edge: `boxdesk-edge --listen HOST:PORT --node SOCKET [--connect-timeout-ms N] [--header-timeout-ms N]`.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("boxdesk-edge", flag.ContinueOnError)
	fs.SetOutput(stderr)
	listen := fs.String("listen", "", "the preview proxy's public address, HOST:PORT (port 0: a free one)")
	node := fs.String("node", "", "the Node proxy's unix socket")
	connectMs := fs.Int("connect-timeout-ms", 10000, "how long to wait for a box to accept a connection (0: no limit)")
	headerMs := fs.Int("header-timeout-ms", 60000, "how long to wait for a box's response headers (0: no limit)")
	flushMs := fs.Int("activity-ms", 1000, "how often to report the boxes' use")
	reusePort := fs.Bool("reuse-port", false, "bind with SO_REUSEPORT, beside the Node proxy's own listener (a restart)")
	netHTTPOnly := fs.Bool("net-http-only", false, "serve every connection with net/http, without the lean loop (for comparisons)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *listen == "" || *node == "" {
		fmt.Fprintln(stderr, "boxdesk-edge: --listen HOST:PORT and --node SOCKET are required")
		return 2
	}
	out := &lines{w: stdout}
	var lc net.ListenConfig
	if *reusePort {
		lc.Control = shareAddress
	}
	ln, err := lc.Listen(context.Background(), "tcp", *listen)
	if err != nil {
		out.send(map[string]string{"type": "error", "message": err.Error()})
		return 1
	}
	if *reusePort {
		// Without it the kernel keeps spreading connections over both listeners, and the ones
		// queued on the Node proxy's when it closes are reset.
		if err := steerToSelf(ln); err != nil {
			fmt.Fprintf(stderr, "boxdesk-edge: new connections are not steered to the edge (%v): a few may be reset as the Node proxy's listener closes\n", err)
		}
	}
	activity := NewActivity()
	e := New(*node, Options{
		ConnectTimeout: time.Duration(*connectMs) * time.Millisecond,
		HeaderTimeout:  time.Duration(*headerMs) * time.Millisecond,
		NetHTTPOnly:    *netHTTPOnly,
	}, activity)
	e.Stale = func(r Route) { out.send(map[string]string{"type": "stale", "box": r.Box, "upstream": r.Upstream}) }
	go func() { _ = e.Serve(ln) }()
	out.send(map[string]interface{}{"type": "listening", "port": ln.Addr().(*net.TCPAddr).Port})
	go reportActivity(activity, out, time.Duration(*flushMs)*time.Millisecond)
	readControl(stdin, e, out, stderr)
	// The core is gone (or closed our stdin): so are we.
	_ = ln.Close()
	return 0
}

func reportActivity(a *Activity, out *lines, every time.Duration) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
		case <-a.kick:
		}
		if boxes := a.take(); boxes != nil {
			out.send(map[string]interface{}{"type": "activity", "boxes": boxes})
		}
	}
}

func readControl(stdin io.Reader, e *Edge, out *lines, stderr io.Writer) {
	scanner := bufio.NewScanner(stdin)
	scanner.Buffer(make([]byte, 64<<10), 64<<20)
	for scanner.Scan() {
		var m message
		if err := json.Unmarshal(scanner.Bytes(), &m); err != nil {
			fmt.Fprintf(stderr, "boxdesk-edge: a control line that is not JSON was ignored: %v\n", err)
			continue
		}
		if m.Type == "routes" {
			e.SetRoutes(m.Routes)
			out.send(map[string]interface{}{"type": "ack", "seq": m.Seq})
		}
	}
}

// The proxy's errors are answered as pages; net/http's own log lines would only be noise on stderr.
var discardLog = log.New(io.Discard, "", 0)
