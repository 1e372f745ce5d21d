package box

import (
	"archive/tar"
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// scratch is a directory of the test's own; the agent's box root is this machine's "/".
func scratch(t *testing.T) string {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// raw sends one request with a raw body and answers the status and the body.
func (c *core) raw(method, target string, body io.Reader) (int, []byte) {
	conn := c.conn()
	defer conn.Close()
	req, _ := http.NewRequest(method, "http://agent"+target, body)
	req.Close = true
	if err := req.Write(conn); err != nil {
		c.t.Fatal(err)
	}
	res, err := http.ReadResponse(bufio.NewReader(conn), req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer res.Body.Close()
	out, _ := io.ReadAll(res.Body)
	return res.StatusCode, out
}

func (c *core) stat(p string) (int, *pathStat, string) {
	status, body := c.raw("GET", "/v1/files/stat?path="+url.QueryEscape(p), nil)
	var st *pathStat
	if status == http.StatusOK {
		_ = json.Unmarshal(body, &st)
	}
	return status, st, string(body)
}

// entries reads a tar into name → header, with each file's bytes.
func entries(t *testing.T, raw []byte) (map[string]*tar.Header, map[string]string) {
	heads, data := map[string]*tar.Header{}, map[string]string{}
	tr := tar.NewReader(bytes.NewReader(raw))
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return heads, data
		}
		if err != nil {
			t.Fatal(err)
		}
		heads[hdr.Name] = hdr
		b, _ := io.ReadAll(tr)
		data[hdr.Name] = string(b)
	}
}

func tarOf(t *testing.T, hdrs ...*tar.Header) *bytes.Buffer {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, h := range hdrs {
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			_, _ = tw.Write(bytes.Repeat([]byte("x"), int(h.Size)))
		}
	}
	_ = tw.Close()
	return &buf
}

func TestHelloNamesTheFileCallsWhenRoot(t *testing.T) {
	c := startCore(t)
	_, body := c.call("GET", "/v1/hello", nil)
	if got := strings.Contains(string(body), `"files"`); got != (os.Geteuid() == 0) {
		t.Fatalf("hello %s as uid %d", body, os.Geteuid())
	}
}

func TestSymlinksResolveInsideTheBoxRoot(t *testing.T) {
	c := startCore(t)
	dir := scratch(t)
	_ = os.Symlink("/", dir+"/root")
	_ = os.Symlink(strings.Repeat("../", 40), dir+"/up")
	_ = os.Symlink("/proc/self/root", dir+"/p1")
	_ = os.Symlink("loop", dir+"/loop")
	_ = os.WriteFile(dir+"/f", []byte("hello"), 0o640)
	for _, p := range []string{dir + "/root" + dir + "/f", dir + "/up" + dir + "/f"} {
		status, st, body := c.stat(p)
		if status != 200 || st == nil || st.Type != "file" || st.Size != 5 || st.Mode != 0o640 {
			t.Fatalf("%s: %d %s", p, status, body)
		}
	}
	status, st, _ := c.stat(dir + "/up")
	if status != 200 || st.Type != "symlink" || *st.LinkTarget != "/" {
		t.Fatalf("a .. chain above the root: %d %+v", status, st)
	}
	// Through /proc the engine answers (it sees /proc as the box's filesystem holds it, not the live one).
	for _, p := range []string{dir + "/p1/etc/passwd", dir + "/p1", "/proc/1/root/etc/passwd", "/.boxdesk/run", "/dev/null"} {
		if status, _, body := c.stat(p); status != http.StatusMisdirectedRequest {
			t.Fatalf("%s: %d %s, want 421", p, status, body)
		}
	}
	if status, body := c.raw("GET", "/v1/files/archive?path="+url.QueryEscape(dir+"/p1/etc"), nil); status != http.StatusMisdirectedRequest {
		t.Fatalf("archive through /proc: %d %s", status, body)
	}
	if status, body := c.raw("GET", "/v1/files/archive?path=/", nil); status != http.StatusMisdirectedRequest {
		t.Fatalf("archive of the root: %d %s", status, body)
	}
	if status, _, body := c.stat(dir + "/loop"); status != 500 || !strings.Contains(body, "too many levels of symbolic links") {
		t.Fatalf("loop: %d %s", status, body)
	}
	if status, st, _ := c.stat(dir + "/missing/deeper"); status != 200 || st != nil {
		t.Fatalf("missing: %d %+v", status, st)
	}
	if status, _, _ := c.stat("relative"); status != http.StatusBadRequest {
		t.Fatalf("relative path: %d", status)
	}
}

func TestArchiveOfADirectoryIsItsTreeNamedFromItsBase(t *testing.T) {
	c := startCore(t)
	dir := scratch(t)
	_ = os.MkdirAll(dir+"/tree/sub", 0o750)
	_ = os.WriteFile(dir+"/tree/sub/a", []byte("aaa"), 0o600)
	_ = os.Link(dir+"/tree/sub/a", dir+"/tree/b")
	_ = os.Symlink("/etc/passwd", dir+"/tree/link")
	_ = os.Symlink("tree", dir+"/alias")
	status, raw := c.raw("GET", "/v1/files/archive?path="+url.QueryEscape(dir+"/tree"), nil)
	if status != 200 {
		t.Fatalf("%d %s", status, raw)
	}
	heads, data := entries(t, raw)
	if heads["tree/"] == nil || heads["tree/sub/"].Mode&0o777 != 0o750 || heads["tree/link"].Linkname != "/etc/passwd" {
		t.Fatalf("entries %v", heads)
	}
	if heads["tree/b"].Typeflag != tar.TypeReg || data["tree/b"] != "aaa" || heads["tree/sub/a"].Typeflag != tar.TypeLink || heads["tree/sub/a"].Linkname != "tree/b" {
		t.Fatalf("hard links: %+v %+v", heads["tree/b"], heads["tree/sub/a"])
	}
	// A regular file is its one entry (the answer has a length: no chunks).
	_, raw = c.raw("GET", "/v1/files/archive?path="+url.QueryEscape(dir+"/tree/b"), nil)
	if heads, data := entries(t, raw); len(heads) != 1 || data["b"] != "aaa" || heads["b"].Mode&0o777 != 0o600 || len(raw)%512 != 0 {
		t.Fatalf("file: %v %q (%d bytes)", heads, data, len(raw))
	}
	// A symlink asked for is the link itself, named as asked.
	_, raw = c.raw("GET", "/v1/files/archive?path="+url.QueryEscape(dir+"/alias"), nil)
	if heads, _ := entries(t, raw); len(heads) != 1 || heads["alias"].Linkname != "tree" {
		t.Fatalf("link: %v", heads)
	}
	if status, _ := c.raw("GET", "/v1/files/archive?path="+url.QueryEscape(dir+"/none"), nil); status != 404 {
		t.Fatalf("missing: %d", status)
	}
}

func TestExtractWritesModesOwnersAndParentsInsideTheBox(t *testing.T) {
	c := startCore(t)
	dir := scratch(t)
	_ = os.Symlink("/", dir+"/root")
	tr := tarOf(t,
		&tar.Header{Name: "new/deep/", Typeflag: tar.TypeDir, Mode: 0o711},
		&tar.Header{Name: "new/deep/f", Typeflag: tar.TypeReg, Mode: 0o4751, Size: 3, Uid: 1234, Gid: 5678},
	)
	// Into a directory named through a link to the root: it is the same directory.
	if status, body := c.raw("PUT", "/v1/files/archive?path="+url.QueryEscape(dir+"/root"+dir), tr); status != 204 {
		t.Fatalf("%d %s", status, body)
	}
	fi, err := os.Stat(dir + "/new/deep/f")
	if err != nil || fi.Mode()&os.ModePerm != 0o751 || fi.Mode()&os.ModeSetuid == 0 {
		t.Fatalf("file: %v %v", fi, err)
	}
	if os.Geteuid() == 0 {
		if uid, gid := owner(fi); uid != 1234 || gid != 5678 {
			t.Fatalf("owner %d:%d", uid, gid)
		}
	}
	if d, _ := os.Stat(dir + "/new/deep"); d.Mode()&os.ModePerm != 0o711 {
		t.Fatalf("dir mode %v", d.Mode())
	}
}

func TestExtractRefusesEscapesAndTypeChanges(t *testing.T) {
	c := startCore(t)
	dir := scratch(t)
	_ = os.Mkdir(dir+"/d", 0o755)
	_ = os.WriteFile(dir+"/f", nil, 0o644)
	_ = os.Symlink("/proc/self", dir+"/p")
	cases := map[string]*bytes.Buffer{
		"../outside":  tarOf(t, &tar.Header{Name: "../outside", Typeflag: tar.TypeReg, Mode: 0o644}),
		"file on dir": tarOf(t, &tar.Header{Name: "d", Typeflag: tar.TypeReg, Mode: 0o644}),
		"dir on file": tarOf(t, &tar.Header{Name: "f/", Typeflag: tar.TypeDir, Mode: 0o755}),
		"into /proc":  tarOf(t, &tar.Header{Name: "p/environ", Typeflag: tar.TypeReg, Mode: 0o644}),
		"not a tar":   bytes.NewBufferString(strings.Repeat("not a tar ", 100)),
		"link out":    tarOf(t, &tar.Header{Name: "d/up", Typeflag: tar.TypeSymlink, Linkname: "../../x", Mode: 0o777}),
	}
	for what, body := range cases {
		if status, out := c.raw("PUT", "/v1/files/archive?path="+url.QueryEscape(dir), body); status != 400 {
			t.Fatalf("%s: %d %s", what, status, out)
		}
	}
	if _, err := os.Stat(filepath.Dir(dir) + "/outside"); err == nil {
		t.Fatal("an entry landed outside the directory")
	}
	if status, _ := c.raw("PUT", "/v1/files/archive?path="+url.QueryEscape(dir+"/p"), tarOf(t)); status != http.StatusMisdirectedRequest {
		t.Fatalf("extract into /proc: %d", status)
	}
	if status, _ := c.raw("PUT", "/v1/files/archive?path="+url.QueryEscape(dir+"/f"), tarOf(t)); status != 400 {
		t.Fatalf("extract into a file: %d", status)
	}
}

func TestRemoveTakesALinkNotItsTargetAndRenameReplaces(t *testing.T) {
	c := startCore(t)
	dir := scratch(t)
	_ = os.MkdirAll(dir+"/d/sub", 0o755)
	_ = os.WriteFile(dir+"/d/sub/x", []byte("x"), 0o644)
	_ = os.Symlink(dir+"/d", dir+"/link")
	if status, body := c.raw("POST", "/v1/files/remove?path="+url.QueryEscape(dir+"/link"), nil); status != 204 {
		t.Fatalf("%d %s", status, body)
	}
	if _, err := os.Stat(dir + "/d/sub/x"); err != nil {
		t.Fatal("removing the link removed its target")
	}
	if status, _ := c.raw("POST", "/v1/files/remove?path="+url.QueryEscape(dir+"/d"), nil); status != 204 {
		t.Fatal("recursive remove")
	}
	if _, err := os.Lstat(dir + "/d"); !os.IsNotExist(err) {
		t.Fatal("the directory is still there")
	}
	if status, _ := c.raw("POST", "/v1/files/remove?path=/", nil); status != 400 {
		t.Fatal("the root was not refused")
	}
	_ = os.WriteFile(dir+"/tmp", []byte("new"), 0o600)
	_ = os.WriteFile(dir+"/target", []byte("old"), 0o644)
	if status, body := c.call("POST", "/v1/files/rename", map[string]any{"from": dir + "/tmp", "to": dir + "/target", "mode": 0o755}); status != 204 {
		t.Fatalf("%d %s", status, body)
	}
	got, _ := os.ReadFile(dir + "/target")
	fi, _ := os.Stat(dir + "/target")
	if string(got) != "new" || fi.Mode().Perm() != 0o755 {
		t.Fatalf("%q %v", got, fi.Mode())
	}
	_ = os.Mkdir(dir+"/dir", 0o755)
	_ = os.WriteFile(dir+"/tmp2", nil, 0o600)
	if status, _ := c.call("POST", "/v1/files/rename", map[string]any{"from": dir + "/tmp2", "to": dir + "/dir", "mode": 0o644}); status != 400 {
		t.Fatal("a directory was replaced by a file")
	}
	if status, _ := c.call("POST", "/v1/files/rename", map[string]any{"from": dir + "/tmp2", "to": "/elsewhere", "mode": 0o644}); status != 400 {
		t.Fatal("a rename across directories was taken")
	}
}

func owner(fi os.FileInfo) (uint32, uint32) {
	st := fi.Sys().(*syscall.Stat_t)
	return st.Uid, st.Gid
}
