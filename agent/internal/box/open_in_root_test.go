package box

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// swapper keeps replacing root/a (a directory holding b/secret) with a symlink to `link` and back
// until stopped: the race a process in the box can run against the agent's check-then-open.
func swapper(t *testing.T, root, link string) (stop func()) {
	if err := os.MkdirAll(root+"/a/b", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(root+"/a/b/secret", []byte("inside"), 0o644); err != nil {
		t.Fatal(err)
	}
	var done atomic.Bool
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		for !done.Load() {
			_ = os.Rename(root+"/a", root+"/a.real")
			_ = os.Symlink(link, root+"/a")
			time.Sleep(20 * time.Microsecond)
			_ = os.Remove(root + "/a")
			_ = os.Rename(root+"/a.real", root+"/a")
		}
	}()
	return func() {
		done.Store(true)
		<-finished
	}
}

// outsideTree is a directory outside the root with b/secret in it, as a swapped-in link would reach.
func outsideTree(t *testing.T) string {
	out := scratch(t)
	_ = os.MkdirAll(out+"/b", 0o755)
	if err := os.WriteFile(out+"/b/secret", []byte("outside"), 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

func needOpenat2(t *testing.T) {
	root, _ := os.Open("/")
	defer root.Close()
	if f, err := openInRoot(root, ".", syscall.O_RDONLY, 0, 0); errors.Is(err, errNoOpenat2) {
		t.Skip("this kernel has no openat2 (before Linux 5.6): the agent falls back to plain opens")
	} else if err == nil {
		f.Close()
	}
}

// readAll opens p with open and reads it; "" when the open failed.
func readAll(open func() (*os.File, error)) (string, error) {
	f, err := open()
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	return string(b), err
}

// race opens root/a/b/secret with `open` while `a` is swapped for a link, for `d` or until `enough`
// says stop, and counts what it read.
func race(d time.Duration, open func() (*os.File, error), enough func(map[string]int) bool) (map[string]int, []error) {
	seen := map[string]int{}
	var errs []error
	for deadline := time.Now().Add(d); time.Now().Before(deadline) && !enough(seen); {
		got, err := readAll(open)
		if err != nil {
			errs = append(errs, err)
			got = "(error)"
		}
		seen[got]++
	}
	return seen, errs
}

func TestAPlainOpenFollowsALinkSwappedInMidPath(t *testing.T) {
	// The control: without openat2 the swap does reach outside, so the tests below can fail.
	root, out := scratch(t), outsideTree(t)
	stop := swapper(t, root, out)
	seen, _ := race(10*time.Second, func() (*os.File, error) { return os.Open(root + "/a/b/secret") },
		func(s map[string]int) bool { return s["outside"] > 0 })
	stop()
	if seen["outside"] == 0 {
		t.Fatalf("the swap never redirected a plain open in 10 s: %v", seen)
	}
}

func TestALinkSwappedInMidPathCannotLeaveTheRoot(t *testing.T) {
	needOpenat2(t)
	out := outsideTree(t)
	for _, link := range []string{out, strings.Repeat("../", 30) + strings.TrimPrefix(out, "/")} {
		root := scratch(t)
		dir, err := os.Open(root)
		if err != nil {
			t.Fatal(err)
		}
		stop := swapper(t, root, link)
		// Links followed, as the box's own resolution does, but inside the root: an absolute
		// target and a climb of ".." both start again from root, where `out` does not exist.
		seen, errs := race(time.Second, func() (*os.File, error) {
			return openInRoot(dir, "a/b/secret", syscall.O_RDONLY, 0, 0)
		}, func(map[string]int) bool { return false })
		stop()
		dir.Close()
		if seen["outside"] > 0 || seen["inside"] == 0 || seen["(error)"] == 0 {
			t.Fatalf("link %s: read %v", link, seen)
		}
		for _, err := range errs {
			if !errors.Is(err, syscall.ENOENT) {
				t.Fatalf("link %s: %v, want only ENOENT while the link is in place", link, err)
			}
		}
	}
}

func TestTheAgentsOpenRefusesALinkSwappedInAfterItsCheck(t *testing.T) {
	needOpenat2(t)
	root := scratch(t)
	// A link inside the root this time: allowed by RESOLVE_IN_ROOT alone, refused because the
	// checked path had no link there.
	_ = os.MkdirAll(root+"/elsewhere/b", 0o755)
	_ = os.WriteFile(root+"/elsewhere/b/secret", []byte("elsewhere"), 0o644)
	dir, err := os.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer dir.Close()
	stop := swapper(t, root, "/elsewhere")
	seen, errs := race(time.Second, func() (*os.File, error) {
		return openResolvedIn(root, func() (*os.File, error) { return dir, nil }, "/a/b/secret", syscall.O_RDONLY, 0)
	}, func(map[string]int) bool { return false })
	stop()
	if seen["elsewhere"] > 0 || seen["inside"] == 0 {
		t.Fatalf("read %v", seen)
	}
	changed := 0
	for _, err := range errs {
		switch {
		case errors.Is(err, errChanged):
			changed++
		case !errors.Is(err, syscall.ENOENT):
			t.Fatalf("%v, want errChanged (or ENOENT between the swap's two steps)", err)
		}
	}
	if changed == 0 {
		t.Fatalf("the swap was never met in a second: %v", seen)
	}
}

func TestMagicLinksAreRefused(t *testing.T) {
	needOpenat2(t)
	root, _ := os.Open("/")
	defer root.Close()
	dir := scratch(t)
	_ = os.Symlink("/proc/self/root", dir+"/p")
	for _, p := range []string{"/proc/self/root/etc/passwd", dir + "/p/etc/passwd"} {
		if _, err := openInRoot(root, p, syscall.O_RDONLY, 0, 0); !errors.Is(err, syscall.ELOOP) {
			t.Fatalf("%s: %v, want ELOOP", p, err)
		}
	}
}

func TestWithoutOpenat2TheCheckedPathIsOpenedAsBefore(t *testing.T) {
	root := scratch(t)
	_ = os.MkdirAll(root+"/a/b", 0o755)
	_ = os.WriteFile(root+"/a/b/secret", []byte("inside"), 0o644)
	openat2Missing = true
	defer func() { openat2Missing = false }()
	dir, _ := os.Open(root)
	defer dir.Close()
	got, err := readAll(func() (*os.File, error) {
		return openResolvedIn(root, func() (*os.File, error) { return dir, nil }, "/a/b/secret", syscall.O_RDONLY, 0)
	})
	if err != nil || got != "inside" {
		t.Fatalf("%q %v", got, err)
	}
}

func TestContentCallsMoveOneFilesBytes(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the file calls are served as root only")
	}
	c := startCore(t)
	dir := scratch(t)
	body := bytes.Repeat([]byte("0123456789"), 300_000)
	put := func(p, mode string, r io.Reader) (int, []byte) {
		return c.raw("PUT", "/v1/files/content?mode="+mode+"&path="+url.QueryEscape(p), r)
	}
	if status, out := put(dir+"/f", "4750", bytes.NewReader(body)); status != http.StatusNoContent {
		t.Fatalf("put: %d %s", status, out)
	}
	fi, err := os.Stat(dir + "/f")
	if err != nil || fi.Size() != int64(len(body)) || fi.Mode()&os.ModePerm != 0o750 || fi.Mode()&os.ModeSetuid == 0 {
		t.Fatalf("written: %v %v", fi, err)
	}
	status, got := c.raw("GET", "/v1/files/content?path="+url.QueryEscape(dir+"/f"), nil)
	if status != 200 || !bytes.Equal(got, body) {
		t.Fatalf("get: %d, %d bytes", status, len(got))
	}
	if status, out := put(dir+"/f", "644", strings.NewReader("again")); status != http.StatusBadRequest {
		t.Fatalf("a second put onto the same name: %d %s, want 400", status, out)
	}
	_ = os.Symlink(dir+"/f", dir+"/link")
	_ = os.Mkdir(dir+"/d", 0o755)
	for p, want := range map[string]int{dir + "/missing": 404, dir + "/d": 400, dir + "/link": 400, "/proc/self/status": 421} {
		if status, out := c.raw("GET", "/v1/files/content?path="+url.QueryEscape(p), nil); status != want {
			t.Fatalf("get %s: %d %s, want %d", p, status, out, want)
		}
	}
	if status, _ := put(dir+"/nodir/f", "644", strings.NewReader("x")); status != 404 {
		t.Fatalf("put into a missing directory: %d, want 404", status)
	}
	if status, _ := put("/.boxdesk/f", "644", strings.NewReader("x")); status != http.StatusMisdirectedRequest {
		t.Fatalf("put under /.boxdesk: %d, want 421", status)
	}
}
