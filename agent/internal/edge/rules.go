package edge

import (
	"net/http"
	"strings"
)

// The preview proxy's own names (electron/core/publishing/session-cookie.ts, sign-in-links.ts).
const (
	sessionCookie = "boxdesk_preview"
	// ClientHeader carries the client's address to the Node proxy, which trusts it only on the
	// edge's own socket; a client's copy is always replaced.
	ClientHeader = "X-Boxdesk-Edge-Client"
)

// fastPathRefusal says why a request to a ready, public route still goes to the Node proxy
// (empty: the edge may answer it). Whatever might carry a Boxdesk credential, or asks for
// anything but a plain request, is Node's to decide: the edge never guesses whether a secret
// is ours.
func fastPathRefusal(r *http.Request) string {
	if r.ProtoMajor != 1 {
		return "not HTTP/1"
	}
	if r.Header.Get("Upgrade") != "" || headerHasToken(r.Header, "Connection", "upgrade") {
		return "upgrade"
	}
	if _, ok := r.Header["Sec-Websocket-Protocol"]; ok {
		return "subprotocol"
	}
	for _, v := range r.Header["Authorization"] {
		// Node reads /^Bearer\s+(\S+)\s*$/i; any Authorization that starts so may be ours.
		if len(v) >= 6 && strings.EqualFold(v[:6], "bearer") {
			return "bearer"
		}
		if !isASCII(v) {
			return "authorization not ASCII"
		}
	}
	path, query, ok := splitTarget(r.RequestURI)
	if !ok || strings.HasPrefix(path, "//") {
		return "request target"
	}
	if query != "" && !plainQuery(query) {
		return "query may hold a token or sign-in code"
	}
	for _, v := range r.Header["Cookie"] {
		if !isASCII(v) {
			return "cookie not ASCII"
		}
	}
	return ""
}

// splitTarget splits an origin-form request target at its first '?'; ok is false for any other form.
func splitTarget(target string) (path, query string, ok bool) {
	if !strings.HasPrefix(target, "/") {
		return "", "", false
	}
	if q := strings.IndexByte(target, '?'); q >= 0 {
		return target[:q], target[q+1:], true
	}
	return target, "", true
}

// plainQuery: no parameter whose name could decode to `token` or `boxdesk_code` (Node decodes
// names with URLSearchParams: percent escapes, '+' and a leading '?' are left to it).
func plainQuery(query string) bool {
	for _, segment := range strings.Split(query, "&") {
		name := segment
		if eq := strings.IndexByte(segment, '='); eq >= 0 {
			name = segment[:eq]
		}
		if strings.ContainsAny(name, "%+?") || !isASCII(name) {
			return false
		}
		lower := strings.ToLower(name)
		if strings.Contains(lower, "token") || strings.Contains(lower, "boxdesk_code") {
			return false
		}
	}
	return true
}

// splitCookies is session-cookie.ts's splitCookies: the Cookie header without our session
// cookie, each cookie trimmed, empty ones dropped, joined by "; " (ok false: nothing left).
// Node joins repeated Cookie headers with "; " first.
func splitCookies(headers []string) (rest string, ok bool) {
	if len(headers) == 0 {
		return "", false
	}
	joined := strings.Join(headers, "; ")
	if joined == "" {
		return "", false
	}
	var kept []string
	for _, c := range strings.Split(joined, ";") {
		c = trimJS(c)
		if c == "" {
			continue
		}
		name := c
		if eq := strings.IndexByte(c, '='); eq >= 0 {
			name = c[:eq]
		}
		if trimJS(name) == sessionCookie {
			continue
		}
		kept = append(kept, c)
	}
	if len(kept) == 0 {
		return "", false
	}
	return strings.Join(kept, "; "), true
}

// trimJS is String.prototype.trim for ASCII (the caller has refused anything else).
func trimJS(s string) string {
	return strings.Trim(s, " \t\n\v\f\r")
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

func headerHasToken(h http.Header, name, token string) bool {
	for _, v := range h[name] {
		for _, t := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(t), token) {
				return true
			}
		}
	}
	return false
}

// setForwarded is proxy-server.ts's setForwardedHeaders: we are the first proxy, so what the
// client sent as X-Forwarded-* is replaced. X-Forwarded-For is taken off here: ReverseProxy sets
// it to the client's address (as Node's socket.remoteAddress reads it) once the Director is done.
func setForwarded(h http.Header, host string) {
	h.Del("X-Forwarded-For")
	h.Set("X-Forwarded-Proto", "http")
	h.Set("X-Forwarded-Host", host)
	h.Del("X-Forwarded-Port")
	h.Del("Forwarded")
}
