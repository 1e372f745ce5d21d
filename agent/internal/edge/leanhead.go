package edge

import (
	"bufio"
	"bytes"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// The lean loop's head readers (lean.go). They take only a narrow, plain subset of HTTP/1.1 and
// say no to anything else, which then goes to net/http and the strict checks as before: a
// request the lean loop reads is one Node's parser and Go's would both read the same way.

type field struct{ name, value []byte }

// maxConnTokens bounds the header names a Connection header may list (more: net/http's to read).
const maxConnTokens = 8

// requestHead is a request the lean loop forwards itself: GET or HEAD, an origin-form target,
// HTTP/1.1, no body, one Host, every line ended by CRLF, names tokens, values visible ASCII.
type requestHead struct {
	method, target, host []byte
	fields               []field  // forwarded as they came
	cookies              []string // the Cookie headers (our session cookie is taken off)
	conn                 [][]byte // header names the Connection header lists (hop-by-hop)
	close                bool     // Connection: close
}

// parse reads head (through its empty line); false: not one the lean loop takes.
func (h *requestHead) parse(head []byte) bool {
	h.method, h.target, h.host = nil, nil, nil
	h.fields, h.cookies, h.conn, h.close = h.fields[:0], h.cookies[:0], h.conn[:0], false
	line, rest, ok := crlfLine(head)
	if !ok {
		return false
	}
	sp := bytes.IndexByte(line, ' ')
	if sp < 0 {
		return false
	}
	h.method, line = line[:sp], line[sp+1:]
	if string(h.method) != "GET" && string(h.method) != "HEAD" {
		return false
	}
	sp = bytes.IndexByte(line, ' ')
	if sp < 1 || string(line[sp+1:]) != "HTTP/1.1" {
		return false
	}
	h.target = line[:sp]
	if h.target[0] != '/' || len(h.target) > 1 && h.target[1] == '/' {
		return false
	}
	for _, c := range h.target {
		if c <= ' ' || c >= 0x7f || c == '#' {
			return false
		}
	}
	if q := bytes.IndexByte(h.target, '?'); q >= 0 && !plainQueryBytes(h.target[q+1:]) {
		return false
	}
	if rest, ok = eachField(rest, false, h.take); !ok || len(rest) != 0 || h.host == nil {
		return false
	}
	h.fields = dropListed(h.fields, h.conn)
	return true
}

// take files one header; false: the request is not the lean loop's.
func (h *requestHead) take(name, value []byte) bool {
	switch {
	case eqFold(name, "host"):
		if h.host != nil {
			return false
		}
		h.host = value
	case eqFold(name, "content-length"), eqFold(name, "transfer-encoding"), eqFold(name, "upgrade"),
		eqFold(name, "expect"), eqFold(name, "te"), eqFold(name, "trailer"), eqFold(name, "sec-websocket-protocol"):
		return false
	case eqFold(name, "connection"):
		return h.connection(value)
	case eqFold(name, "authorization"):
		// Node reads /^Bearer\s+(\S+)\s*$/i: any Authorization that starts so may be ours (rules.go).
		if len(value) >= 6 && eqFold(value[:6], "bearer") {
			return false
		}
		h.fields = append(h.fields, field{name, value})
	case eqFold(name, "cookie"):
		h.cookies = append(h.cookies, string(value))
	case eqFold(name, "keep-alive"), eqFold(name, "proxy-connection"), eqFold(name, "proxy-authenticate"),
		eqFold(name, "proxy-authorization"), eqFold(name, "x-forwarded-for"), eqFold(name, "x-forwarded-proto"),
		eqFold(name, "x-forwarded-host"), eqFold(name, "x-forwarded-port"), eqFold(name, "forwarded"),
		eqFold(name, "x-boxdesk-edge-client"): // ClientHeader
		// Hop-by-hop, or ours to set: not forwarded.
	default:
		h.fields = append(h.fields, field{name, value})
	}
	return true
}

func (h *requestHead) connection(value []byte) bool {
	return connectionTokens(value, &h.close, &h.conn, "upgrade", "host", "cookie")
}

// connectionTokens reads a Connection header's tokens: `close` sets *closes, the others go to
// *conn (the headers they name are dropped); false for a token in `refused`, or too many.
func connectionTokens(value []byte, closes *bool, conn *[][]byte, refused ...string) bool {
	for _, t := range bytes.Split(value, []byte{','}) {
		t = bytes.Trim(t, " \t")
		switch {
		case len(t) == 0, eqFold(t, "keep-alive"):
		case eqFold(t, "close"):
			*closes = true
		case len(*conn) == maxConnTokens:
			return false
		default:
			for _, r := range refused {
				if eqFold(t, r) {
					return false
				}
			}
			*conn = append(*conn, t)
		}
	}
	return true
}

// answerHead is a box's answer the lean loop copies itself: HTTP/1.1, a final status, a
// Content-Length (or no body by its status or the method), every line ended by CRLF.
type answerHead struct {
	status  int
	fields  []field
	length  int64 // -1: none given
	close   bool  // the box closes the connection after it
	hasDate bool
	conn    [][]byte
}

func (a *answerHead) parse(head []byte, isHead bool) bool {
	a.status, a.fields, a.length, a.close, a.hasDate, a.conn = 0, a.fields[:0], -1, false, false, a.conn[:0]
	line, rest, ok := crlfLine(head)
	if !ok || len(line) < 12 || string(line[:9]) != "HTTP/1.1 " || len(line) > 12 && line[12] != ' ' {
		return false
	}
	for _, c := range line[9:12] {
		if c < '0' || c > '9' {
			return false
		}
		a.status = a.status*10 + int(c-'0')
	}
	if a.status < 200 || a.status > 599 {
		return false
	}
	if rest, ok = eachField(rest, true, a.take); !ok || len(rest) != 0 {
		return false
	}
	if isHead || a.status == 204 || a.status == 304 {
		a.length = 0 // no body follows, whatever the headers say
	} else if a.length < 0 {
		return false // to the connection's end: net/http's to copy
	}
	a.fields = dropListed(a.fields, a.conn)
	return true
}

func (a *answerHead) take(name, value []byte) bool {
	switch {
	case eqFold(name, "content-length"):
		if a.length >= 0 || len(value) == 0 || len(value) > 15 {
			return false
		}
		a.length = 0
		for _, c := range value {
			if c < '0' || c > '9' {
				return false
			}
			a.length = a.length*10 + int64(c-'0')
		}
		a.fields = append(a.fields, field{name, value})
	case eqFold(name, "transfer-encoding"):
		return false
	case eqFold(name, "connection"):
		if !connectionTokens(value, &a.close, &a.conn, "content-length") {
			return false
		}
	case eqFold(name, "keep-alive"), eqFold(name, "proxy-connection"), eqFold(name, "proxy-authenticate"),
		eqFold(name, "proxy-authorization"), eqFold(name, "te"), eqFold(name, "trailer"), eqFold(name, "upgrade"):
		// Hop-by-hop: not forwarded (httputil.ReverseProxy's list).
	default:
		if eqFold(name, "date") {
			a.hasDate = true
		}
		a.fields = append(a.fields, field{name, value})
	}
	return true
}

// eachField hands each field line of a head to take, up to the empty line that ends it (`answer`:
// as splitField reads an answer's); false for a line that is no field or one take refuses. What
// follows the empty line is returned.
func eachField(rest []byte, answer bool, take func(name, value []byte) bool) ([]byte, bool) {
	for {
		line, after, ok := crlfLine(rest)
		if !ok {
			return nil, false
		}
		rest = after
		if len(line) == 0 {
			return rest, true
		}
		name, value, ok := splitField(line, answer)
		if !ok || !take(name, value) {
			return nil, false
		}
	}
}

// crlfLine splits off b's first line, which must end with CRLF and hold no other CR or LF.
func crlfLine(b []byte) (line, rest []byte, ok bool) {
	i := bytes.IndexByte(b, '\n')
	if i < 1 || b[i-1] != '\r' {
		return nil, nil, false
	}
	line = b[:i-1]
	if bytes.IndexByte(line, '\r') >= 0 {
		return nil, nil, false
	}
	return line, b[i+1:], true
}

// splitField splits "Name: value": the name a token right before the colon, the value trimmed
// of spaces and tabs, visible ASCII (and, in a box's answer, bytes above 0x7f) or tabs.
func splitField(line []byte, answer bool) (name, value []byte, ok bool) {
	colon := bytes.IndexByte(line, ':')
	if colon < 1 {
		return nil, nil, false
	}
	name = line[:colon]
	for _, c := range name {
		if !isTokenChar(c) {
			return nil, nil, false
		}
	}
	value = bytes.Trim(line[colon+1:], " \t")
	for _, c := range value {
		if c < ' ' && c != '\t' || c == 0x7f || c > 0x7f && !answer {
			return nil, nil, false
		}
	}
	return name, value, true
}

func isTokenChar(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		bytes.IndexByte([]byte("!#$%&'*+-.^_`|~"), c) >= 0
}

// eqFold compares b with lower (lower case ASCII) regardless of b's case.
func eqFold(b []byte, lower string) bool {
	if len(b) != len(lower) {
		return false
	}
	for i := 0; i < len(b); i++ {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// dropListed takes off the fields a Connection header named.
func dropListed(fields []field, names [][]byte) []field {
	if len(names) == 0 {
		return fields
	}
	kept := fields[:0]
	for _, f := range fields {
		listed := false
		for _, n := range names {
			if bytes.EqualFold(f.name, n) {
				listed = true
				break
			}
		}
		if !listed {
			kept = append(kept, f)
		}
	}
	return kept
}

// plainQueryBytes is plainQuery (rules.go) without making a string.
func plainQueryBytes(query []byte) bool {
	for len(query) > 0 {
		segment := query
		if amp := bytes.IndexByte(query, '&'); amp >= 0 {
			segment, query = query[:amp], query[amp+1:]
		} else {
			query = nil
		}
		name := segment
		if eq := bytes.IndexByte(segment, '='); eq >= 0 {
			name = segment[:eq]
		}
		if bytes.ContainsAny(name, "%+?") {
			return false
		}
		for i := 0; i+5 <= len(name); i++ {
			if eqFold(name[i:i+5], "token") || i+12 <= len(name) && eqFold(name[i:i+12], "boxdesk_code") {
				return false
			}
		}
	}
	return true
}

// headEnd is the length of the head at b's start through its empty line (CRLF or a bare LF, as
// a box may send it), or -1 while it is not all there.
func headEnd(b []byte) int {
	for i := 0; i < len(b); i++ {
		if b[i] != '\n' {
			continue
		}
		if i+1 < len(b) && b[i+1] == '\n' {
			return i + 2
		}
		if i+2 < len(b) && b[i+1] == '\r' && b[i+2] == '\n' {
			return i + 3
		}
	}
	return -1
}

// writeStatus writes the rest of a status line as net/http does.
func writeStatus(bw *bufio.Writer, status int) {
	bw.WriteString(strconv.Itoa(status))
	bw.WriteByte(' ')
	if text := http.StatusText(status); text != "" {
		bw.WriteString(text)
	} else {
		bw.WriteString("status code " + strconv.Itoa(status))
	}
	bw.WriteString("\r\n")
}

// httpDate is the Date header's value, made once a second.
func httpDate() string {
	now := time.Now().Unix()
	dateMu.Lock()
	defer dateMu.Unlock()
	if now != dateSecond {
		dateSecond = now
		dateText = time.Unix(now, 0).UTC().Format(http.TimeFormat)
	}
	return dateText
}

var (
	dateMu     sync.Mutex
	dateSecond int64
	dateText   string
)
