package netfilter

import (
	"strconv"
	"time"
)

// The prefixes the filter table's NFLOG rules give (electron/core/networks/egress-rules.ts).
const (
	prefixDenied  = "bd-deny"
	prefixAllowed = "bd-allow"
	prefixDNS     = "bd-dns"
	// How many open connections and DNS names one box's tracker remembers (the oldest go first).
	maxOpen  = 4096
	maxNames = 1024
	// A denied flow's packets within this long are one attempt (TCP sends its SYN again after a
	// second: the first refusal reaches a socket still busy connecting as a soft error).
	deniedRepeatMs = 5_000
)

// record is one line the helper sends the core: a connection the box tried (denied, at once) or
// made (allowed, once it ended, with the bytes both ways). At is in Unix milliseconds.
type record struct {
	At       int64  `json:"at"`
	Protocol string `json:"protocol"`
	Address  string `json:"address"`
	Port     int    `json:"port"`
	Host     string `json:"host,omitempty"`
	Allowed  bool   `json:"allowed"`
	Bytes    uint64 `json:"bytes"`
}

type opened struct {
	at   int64
	host string
}

// bounded is a map that forgets its oldest keys past a limit.
type bounded[V any] struct {
	limit int
	items map[string]V
	order []string
}

func newBounded[V any](limit int) *bounded[V] {
	return &bounded[V]{limit: limit, items: map[string]V{}}
}

func (b *bounded[V]) put(k string, v V) {
	if _, there := b.items[k]; !there {
		b.order = append(b.order, k)
	}
	b.items[k] = v
	for len(b.order) > b.limit {
		delete(b.items, b.order[0])
		b.order = b.order[1:]
	}
}

// take returns and forgets k (its place in the order is dropped when it comes up).
func (b *bounded[V]) take(k string) (V, bool) {
	v, ok := b.items[k]
	delete(b.items, k)
	return v, ok
}

// tracker turns one box's packets and ended connections into records.
type tracker struct {
	open   *bounded[opened]
	names  *bounded[string]
	denied *bounded[int64]
}

func newTracker() *tracker {
	return &tracker{open: newBounded[opened](maxOpen), names: newBounded[string](maxNames), denied: newBounded[int64](maxOpen)}
}

func connKey(proto string, sport int, dst string, dport int) string {
	return proto + " " + strconv.Itoa(sport) + " " + dst + " " + strconv.Itoa(dport)
}

// packet takes one logged packet: a denied one is a record now; an allowed one opens a
// connection (recorded when it ends); a DNS answer names the addresses it gave.
func (t *tracker) packet(pk packet, now time.Time) *record {
	switch pk.prefix {
	case prefixDenied:
		key, at := connKey(pk.proto, pk.sport, pk.dst, pk.dport), now.UnixMilli()
		if last, seen := t.denied.items[key]; seen && at-last < deniedRepeatMs {
			return nil
		}
		t.denied.put(key, at)
		return &record{At: now.UnixMilli(), Protocol: pk.proto, Address: pk.dst, Port: pk.dport, Host: t.names.items[pk.dst]}
	case prefixAllowed:
		t.open.put(connKey(pk.proto, pk.sport, pk.dst, pk.dport), opened{now.UnixMilli(), t.names.items[pk.dst]})
	case prefixDNS:
		if name, addresses := parseDNSAnswer(pk.payload); name != "" {
			for _, a := range addresses {
				t.names.put(a, name)
			}
		}
	}
	return nil
}

// conntrack takes a message of conntrack's: a connection the box opened while watched is a
// record once its counts are final (destroyed, or the answer to the GET asked when TCP closed:
// conntrack forgets a closed connection only at its next garbage collection, up to a minute
// later). A TCP connection that closed returns the GET to ask.
func (t *tracker) conntrack(f flow) (*record, []byte) {
	key := connKey(f.proto, f.sport, f.dst, f.dport)
	o, ok := t.open.items[key]
	switch {
	case !ok:
		return nil, nil
	case f.closed && !f.counted && !f.destroyed:
		return nil, conntrackGet(f)
	case !f.destroyed && !f.counted:
		return nil, nil
	}
	t.open.take(key)
	return &record{At: o.at, Protocol: f.proto, Address: f.dst, Port: f.dport, Host: o.host, Allowed: true, Bytes: f.bytes}, nil
}
