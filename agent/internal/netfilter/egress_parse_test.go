package netfilter

import (
	"encoding/binary"
	"testing"
	"time"
)

var attr, nested = attribute, nest

func message(typ uint16, body ...[]byte) []byte {
	var v []byte
	for _, p := range body {
		v = append(v, p...)
	}
	b := make([]byte, nlmsgHdrLen+nfgenLen+len(v))
	binary.LittleEndian.PutUint32(b[0:], uint32(len(b)))
	binary.LittleEndian.PutUint16(b[4:], typ)
	copy(b[nlmsgHdrLen+nfgenLen:], v)
	return b
}

func be16(n int) []byte    { b := make([]byte, 2); binary.BigEndian.PutUint16(b, uint16(n)); return b }
func be64(n uint64) []byte { b := make([]byte, 8); binary.BigEndian.PutUint64(b, n); return b }

// ipv4 is a packet's IPv4 header (20 bytes) and the first 8 bytes of TCP/UDP, then payload.
func ipv4(proto byte, src, dst [4]byte, sport, dport int, payload []byte) []byte {
	p := make([]byte, 28)
	p[0], p[9] = 0x45, proto
	copy(p[12:], src[:])
	copy(p[16:], dst[:])
	binary.BigEndian.PutUint16(p[20:], uint16(sport))
	binary.BigEndian.PutUint16(p[22:], uint16(dport))
	return append(p, payload...)
}

func logged(prefix string, packet []byte) []byte {
	return message(subsysUlog<<8|nfulnlMsgPacket, attr(nfulaPrefix, append([]byte(prefix), 0)), attr(nfulaPayload, packet))
}

func ended(proto byte, dst [4]byte, sport, dport int, sent, received uint64) []byte {
	tuple := nested(ctaTupleOrig,
		nested(ctaTupleIP, attr(ctaIPv4Src, []byte{10, 210, 0, 2}), attr(ctaIPv4Dst, dst[:])),
		nested(ctaTupleProto, attr(ctaProtoNum, []byte{proto}), attr(ctaProtoSrcPort, be16(sport)), attr(ctaProtoDstPort, be16(dport))))
	return message(subsysConntrack<<8|ipctnlMsgDelete, tuple,
		nested(ctaCountersOrig, attr(1, be64(3)), attr(ctaCountersBytes, be64(sent))),
		nested(ctaCountersReply, attr(1, be64(2)), attr(ctaCountersBytes, be64(received))))
}

// dnsAnswer answers `name` with a CNAME to another name, then two addresses of that one.
func dnsAnswer(name string) []byte {
	var q []byte
	for _, l := range []string{name[:len(name)-4], "com"} {
		q = append(append(q, byte(len(l))), l...)
	}
	q = append(q, 0, 0, 1, 0, 1)
	head := []byte{0, 7, 0x81, 0x80, 0, 1, 0, 3, 0, 0, 0, 0}
	cname := append([]byte{0xc0, 12, 0, 5, 0, 1, 0, 0, 0, 60, 0, 6}, 3, 'c', 'd', 'n', 0xc0, 12)
	a1 := []byte{3, 'c', 'd', 'n', 0xc0, 12, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, 203, 0, 113, 7}
	a2 := []byte{0xc0, 12, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, 203, 0, 113, 8}
	return append(append(append(append(head, q...), cname...), a1...), a2...)
}

func TestDeniedPacketsAreRecordsAtOnce(t *testing.T) {
	tr := newTracker()
	read := append(logged(prefixDenied, ipv4(6, [4]byte{10, 210, 0, 2}, [4]byte{10, 213, 5, 2}, 40000, 8081, nil)),
		logged(prefixDenied, ipv4(17, [4]byte{10, 210, 0, 2}, [4]byte{10, 213, 5, 3}, 40001, 9999, nil))...)
	packets := parseNflog(read)
	if len(packets) != 2 {
		t.Fatalf("%d packets, want 2", len(packets))
	}
	now := time.UnixMilli(1_700_000_000_000)
	r := tr.packet(packets[0], now)
	if r == nil || r.Allowed || r.Protocol != "tcp" || r.Address != "10.213.5.2" || r.Port != 8081 || r.At != now.UnixMilli() {
		t.Fatalf("tcp record %+v", r)
	}
	if r := tr.packet(packets[1], now); r == nil || r.Protocol != "udp" || r.Port != 9999 {
		t.Fatalf("udp record %+v", r)
	}
	// TCP's second SYN a second later is the same attempt; the same flow after 5 s is another.
	if r := tr.packet(packets[0], now.Add(time.Second)); r != nil {
		t.Fatalf("a repeated SYN recorded again: %+v", r)
	}
	if r := tr.packet(packets[0], now.Add(6*time.Second)); r == nil {
		t.Fatal("a later attempt of the same flow is a record")
	}
}

func TestAnAllowedConnectionIsRecordedWhenItEndsWithItsBytesAndName(t *testing.T) {
	tr := newTracker()
	dns := ipv4(17, [4]byte{127, 0, 0, 11}, [4]byte{10, 210, 0, 2}, 53, 41000, dnsAnswer("example.com"))
	for _, pk := range parseNflog(logged(prefixDNS, dns)) {
		tr.packet(pk, time.Now())
	}
	opened := time.UnixMilli(1_700_000_000_000)
	for _, pk := range parseNflog(logged(prefixAllowed, ipv4(6, [4]byte{10, 210, 0, 2}, [4]byte{203, 0, 113, 8}, 40002, 443, nil))) {
		if r := tr.packet(pk, opened); r != nil {
			t.Fatalf("an opened connection is not a record yet: %+v", r)
		}
	}
	flows := parseConntrack(ended(6, [4]byte{203, 0, 113, 8}, 40002, 443, 120, 4000))
	if len(flows) != 1 {
		t.Fatalf("%d flows, want 1", len(flows))
	}
	r, _ := tr.conntrack(flows[0])
	if r == nil || !r.Allowed || r.Bytes != 4120 || r.Host != "example.com" || r.Port != 443 || r.At != opened.UnixMilli() {
		t.Fatalf("record %+v", r)
	}
	// The same end again, or one of a connection opened before the watch: nothing.
	if r, _ := tr.conntrack(flows[0]); r != nil {
		t.Fatalf("recorded twice: %+v", r)
	}
}

func TestTruncatedMessagesAreIgnored(t *testing.T) {
	whole := logged(prefixDenied, ipv4(6, [4]byte{1, 2, 3, 4}, [4]byte{5, 6, 7, 8}, 1, 2, nil))
	for n := 0; n < len(whole); n++ {
		_ = parseNflog(whole[:n])
	}
	ct := ended(6, [4]byte{1, 2, 3, 4}, 1, 2, 3, 4)
	for n := 0; n < len(ct); n++ {
		_ = parseConntrack(ct[:n])
	}
	answer := dnsAnswer("example.com")
	for n := 0; n < len(answer); n++ {
		_, _ = parseDNSAnswer(answer[:n])
	}
	if name, a := parseDNSAnswer(answer); name != "example.com" || len(a) != 2 {
		t.Fatalf("%q %v", name, a)
	}
}

func TestTheTrackerForgetsTheOldestPastItsBound(t *testing.T) {
	b := newBounded[int](3)
	for i, k := range []string{"a", "b", "c", "d"} {
		b.put(k, i)
	}
	if _, ok := b.items["a"]; ok || len(b.items) != 3 {
		t.Fatalf("items %v", b.items)
	}
}

// closing is conntrack's update event of a TCP connection entering TIME_WAIT (no counters).
func closing(dst [4]byte, sport, dport int) []byte {
	tuple := nested(ctaTupleOrig,
		nested(ctaTupleIP, attr(ctaIPv4Src, []byte{10, 210, 0, 2}), attr(ctaIPv4Dst, dst[:])),
		nested(ctaTupleProto, attr(ctaProtoNum, []byte{6}), attr(ctaProtoSrcPort, be16(sport)), attr(ctaProtoDstPort, be16(dport))))
	return message(subsysConntrack<<8|ipctnlMsgNew, tuple, nested(ctaProtoinfo, nested(ctaProtoinfoTCP, attr(ctaTCPState, []byte{tcpTimeWait}))))
}

func TestAClosedTCPConnectionIsAskedForItsCountsAndRecordedFromTheAnswer(t *testing.T) {
	tr := newTracker()
	dst := [4]byte{203, 0, 113, 9}
	for _, pk := range parseNflog(logged(prefixAllowed, ipv4(6, [4]byte{10, 210, 0, 2}, dst, 40003, 80, nil))) {
		tr.packet(pk, time.Now())
	}
	flows := parseConntrack(closing(dst, 40003, 80))
	if len(flows) != 1 || !flows[0].closed || flows[0].counted {
		t.Fatalf("flows %+v", flows)
	}
	r, get := tr.conntrack(flows[0])
	if r != nil || get == nil {
		t.Fatalf("record %+v, request %v", r, get)
	}
	// The GET names the connection's original tuple, as a destroy event would.
	asked := parseConntrack(append([]byte{}, get...))
	if len(asked) != 0 {
		t.Fatalf("a GET is not an event: %+v", asked)
	}
	answer := ended(6, dst, 40003, 80, 100, 200)
	binary.LittleEndian.PutUint16(answer[4:], subsysConntrack<<8|ipctnlMsgNew)
	flows = parseConntrack(answer)
	if r, _ := tr.conntrack(flows[0]); r == nil || r.Bytes != 300 {
		t.Fatalf("record %+v", r)
	}
}
