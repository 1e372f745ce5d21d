package netfilter

// The egress log's parsing (docs/security.md, "The egress log"): netlink messages from the box's
// network namespace (NFLOG packets the filter table logs, conntrack's end-of-connection events)
// and the DNS answers the box got, turned into connection records. Pure functions, unit-tested.

import (
	"encoding/binary"
	"net"
	"strings"
)

const (
	nlmsgHdrLen = 16
	nfgenLen    = 4
	// NFNL_SUBSYS_ULOG and NFNL_SUBSYS_CTNETLINK, in a netlink message type's high byte.
	subsysUlog      = 4
	subsysConntrack = 1
	nfulnlMsgPacket = 0
	ipctnlMsgNew    = 0
	ipctnlMsgGet    = 1
	ipctnlMsgDelete = 2
	// NFULA_PREFIX and NFULA_PAYLOAD.
	nfulaPrefix  = 10
	nfulaPayload = 9
	// CTA_TUPLE_ORIG, CTA_COUNTERS_ORIG/REPLY; within a tuple CTA_TUPLE_IP/PROTO; within those the fields.
	ctaTupleOrig     = 1
	ctaCountersOrig  = 9
	ctaCountersReply = 10
	ctaTupleIP       = 1
	ctaTupleProto    = 2
	ctaIPv4Src       = 1
	ctaIPv4Dst       = 2
	ctaProtoNum      = 1
	ctaProtoSrcPort  = 2
	ctaProtoDstPort  = 3
	ctaCountersBytes = 2
	ctaProtoinfo     = 4
	ctaProtoinfoTCP  = 1
	ctaTCPState      = 1
	// TCP_CONNTRACK_TIME_WAIT and _CLOSE: both ways are done, the counts are final.
	tcpTimeWait = 7
	tcpClose    = 8
)

// packet is what a logged IPv4 packet says: who it goes to, from which port, and (DNS) its payload.
type packet struct {
	prefix   string
	proto    string
	src, dst string
	sport    int
	dport    int
	payload  []byte
}

// flow is a conntrack message of one connection: its original direction, its bytes both ways
// (counted: the message had them), and whether it ended (destroyed) or has just closed.
type flow struct {
	proto     string
	src, dst  string
	sport     int
	dport     int
	bytes     uint64
	counted   bool
	destroyed bool
	closed    bool
}

func protoName(n byte) string {
	switch n {
	case 6:
		return "tcp"
	case 17:
		return "udp"
	case 1:
		return "icmp"
	}
	return "ip"
}

// attrs walks netlink attributes: each (type without its flags, value).
func attrs(b []byte, visit func(typ uint16, value []byte)) {
	for len(b) >= 4 {
		l := int(binary.LittleEndian.Uint16(b[0:2]))
		if l < 4 || l > len(b) {
			return
		}
		visit(binary.LittleEndian.Uint16(b[2:4])&0x3fff, b[4:l])
		next := (l + 3) &^ 3
		if next > len(b) {
			return
		}
		b = b[next:]
	}
}

// messages walks the netlink messages of one read: each (type, body after the nfgenmsg header).
func messages(b []byte, visit func(typ uint16, body []byte)) {
	for len(b) >= nlmsgHdrLen {
		l := int(binary.LittleEndian.Uint32(b[0:4]))
		if l < nlmsgHdrLen || l > len(b) {
			return
		}
		if l >= nlmsgHdrLen+nfgenLen {
			visit(binary.LittleEndian.Uint16(b[4:6]), b[nlmsgHdrLen+nfgenLen:l])
		}
		next := (l + 3) &^ 3
		if next > len(b) {
			return
		}
		b = b[next:]
	}
}

// parseIPv4 reads an IPv4 packet's protocol, addresses, ports (TCP, UDP) and what follows its headers.
func parseIPv4(p []byte) (pk packet, ok bool) {
	if len(p) < 20 || p[0]>>4 != 4 {
		return pk, false
	}
	ihl := int(p[0]&0x0f) * 4
	if ihl < 20 || len(p) < ihl {
		return pk, false
	}
	pk.proto = protoName(p[9])
	pk.src, pk.dst = net.IP(p[12:16]).String(), net.IP(p[16:20]).String()
	rest := p[ihl:]
	switch pk.proto {
	case "tcp", "udp":
		if len(rest) >= 4 {
			pk.sport, pk.dport = int(binary.BigEndian.Uint16(rest[0:2])), int(binary.BigEndian.Uint16(rest[2:4]))
		}
		if pk.proto == "udp" && len(rest) >= 8 {
			pk.payload = rest[8:]
		}
	}
	return pk, true
}

// parseNflog reads the NFLOG packets of one read: their prefix (which rule logged them) and header fields.
func parseNflog(b []byte) []packet {
	var out []packet
	messages(b, func(typ uint16, body []byte) {
		if typ != subsysUlog<<8|nfulnlMsgPacket {
			return
		}
		var prefix string
		var payload []byte
		attrs(body, func(t uint16, v []byte) {
			switch t {
			case nfulaPrefix:
				prefix = strings.TrimRight(string(v), "\x00")
			case nfulaPayload:
				payload = v
			}
		})
		if pk, ok := parseIPv4(payload); ok {
			pk.prefix = prefix
			out = append(out, pk)
		}
	})
	return out
}

// parseConntrack reads conntrack's messages of one read (IPv4): events of connections destroyed
// or updated (a TCP connection that closed), and answers to a GET (with its counters).
func parseConntrack(b []byte) []flow {
	var out []flow
	messages(b, func(typ uint16, body []byte) {
		if typ != subsysConntrack<<8|ipctnlMsgDelete && typ != subsysConntrack<<8|ipctnlMsgNew {
			return
		}
		f := flow{destroyed: typ&0xff == ipctnlMsgDelete}
		ipv4 := false
		attrs(body, func(t uint16, v []byte) {
			switch t {
			case ctaTupleOrig:
				attrs(v, func(t uint16, v []byte) {
					switch t {
					case ctaTupleIP:
						attrs(v, func(t uint16, v []byte) {
							if t == ctaIPv4Dst && len(v) == 4 {
								f.dst, ipv4 = net.IP(v).String(), true
							}
							if t == ctaIPv4Src && len(v) == 4 {
								f.src = net.IP(v).String()
							}
						})
					case ctaTupleProto:
						attrs(v, func(t uint16, v []byte) {
							switch {
							case t == ctaProtoNum && len(v) == 1:
								f.proto = protoName(v[0])
							case t == ctaProtoSrcPort && len(v) == 2:
								f.sport = int(binary.BigEndian.Uint16(v))
							case t == ctaProtoDstPort && len(v) == 2:
								f.dport = int(binary.BigEndian.Uint16(v))
							}
						})
					}
				})
			case ctaCountersOrig, ctaCountersReply:
				attrs(v, func(t uint16, v []byte) {
					if t == ctaCountersBytes && len(v) == 8 {
						f.bytes += binary.BigEndian.Uint64(v)
						f.counted = true
					}
				})
			case ctaProtoinfo:
				attrs(v, func(t uint16, v []byte) {
					if t == ctaProtoinfoTCP {
						attrs(v, func(t uint16, v []byte) {
							if t == ctaTCPState && len(v) == 1 && (v[0] == tcpTimeWait || v[0] == tcpClose) {
								f.closed = true
							}
						})
					}
				})
			}
		})
		if ipv4 {
			out = append(out, f)
		}
	})
	return out
}

// dnsName reads a (possibly compressed) name at off in msg; the name and the offset after it.
func dnsName(msg []byte, off int) (string, int, bool) {
	var labels []string
	end, jumps := -1, 0
	for {
		if off >= len(msg) {
			return "", 0, false
		}
		l := int(msg[off])
		switch {
		case l == 0:
			if end < 0 {
				end = off + 1
			}
			return strings.Join(labels, "."), end, true
		case l&0xc0 == 0xc0:
			if off+1 >= len(msg) || jumps > 16 {
				return "", 0, false
			}
			if end < 0 {
				end = off + 2
			}
			off, jumps = int(binary.BigEndian.Uint16(msg[off:off+2])&0x3fff), jumps+1
		default:
			if off+1+l > len(msg) {
				return "", 0, false
			}
			labels = append(labels, string(msg[off+1:off+1+l]))
			off += 1 + l
		}
	}
}

// parseDNSAnswer reads a DNS response: the name asked for and the IPv4 addresses it was given
// (through any CNAME chain, the addresses stand for the name the box asked for).
func parseDNSAnswer(msg []byte) (string, []string) {
	if len(msg) < 12 || msg[2]&0x80 == 0 {
		return "", nil
	}
	qd, an := int(binary.BigEndian.Uint16(msg[4:6])), int(binary.BigEndian.Uint16(msg[6:8]))
	if qd != 1 {
		return "", nil
	}
	name, off, ok := dnsName(msg, 12)
	if !ok || off+4 > len(msg) {
		return "", nil
	}
	off += 4
	var addresses []string
	for i := 0; i < an; i++ {
		_, next, ok := dnsName(msg, off)
		if !ok || next+10 > len(msg) {
			break
		}
		typ, class := binary.BigEndian.Uint16(msg[next:next+2]), binary.BigEndian.Uint16(msg[next+2:next+4])
		rdlen := int(binary.BigEndian.Uint16(msg[next+8 : next+10]))
		data := next + 10
		if data+rdlen > len(msg) {
			break
		}
		if typ == 1 && class == 1 && rdlen == 4 {
			addresses = append(addresses, net.IP(msg[data:data+4]).String())
		}
		off = data + rdlen
	}
	return strings.ToLower(strings.TrimSuffix(name, ".")), addresses
}

// conntrackGet asks conntrack for the connection of flow f (its original tuple): the answer has its counters.
func conntrackGet(f flow) []byte {
	ip4 := func(s string) []byte { return net.ParseIP(s).To4() }
	num := map[string]byte{"tcp": 6, "udp": 17, "icmp": 1}[f.proto]
	port := func(p int) []byte { return []byte{byte(p >> 8), byte(p)} }
	tuple := nest(ctaTupleOrig,
		nest(ctaTupleIP, attribute(ctaIPv4Src, ip4(f.src)), attribute(ctaIPv4Dst, ip4(f.dst))),
		nest(ctaTupleProto, attribute(ctaProtoNum, []byte{num}), attribute(ctaProtoSrcPort, port(f.sport)), attribute(ctaProtoDstPort, port(f.dport))))
	b := make([]byte, nlmsgHdrLen+nfgenLen, nlmsgHdrLen+nfgenLen+len(tuple))
	b = append(b, tuple...)
	binary.LittleEndian.PutUint32(b[0:], uint32(len(b)))
	binary.LittleEndian.PutUint16(b[4:], subsysConntrack<<8|ipctnlMsgGet)
	binary.LittleEndian.PutUint16(b[6:], 1) // NLM_F_REQUEST
	b[16] = 2                               // AF_INET
	return b
}

func attribute(typ uint16, value []byte) []byte {
	b := make([]byte, (4+len(value)+3)&^3)
	binary.LittleEndian.PutUint16(b[0:], uint16(4+len(value)))
	binary.LittleEndian.PutUint16(b[2:], typ)
	copy(b[4:], value)
	return b
}

func nest(typ uint16, parts ...[]byte) []byte {
	var v []byte
	for _, p := range parts {
		v = append(v, p...)
	}
	return attribute(typ|0x8000, v)
}
