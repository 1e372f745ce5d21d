package store

import (
	"bytes"
	"compress/gzip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// An image put in place from the empty filesystem carries its own fsid (the original moved
// to metadata_uuid) and superblocks whose checksums btrfs-progs accepts.
func TestImageGetsItsOwnFsid(t *testing.T) {
	mkfs, err := exec.LookPath("mkfs.btrfs")
	if err != nil {
		if _, serr := os.Stat("/usr/sbin/mkfs.btrfs"); serr != nil {
			t.Skip("mkfs.btrfs is not installed (btrfs-progs)")
		}
		mkfs = "/usr/sbin/mkfs.btrfs"
	}
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.img")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(empty, 256<<20); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(mkfs, "-q", "-f", empty).CombinedOutput(); err != nil {
		t.Fatalf("mkfs.btrfs: %v %s", err, out)
	}
	raw, _ := os.ReadFile(empty)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, _ = zw.Write(raw)
	_ = zw.Close()
	template := filepath.Join(dir, "empty.img.gz")
	if err := os.WriteFile(template, gz.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	first, err := createImage(template, filepath.Join(dir, "a.img"), 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	second, err := createImage(template, filepath.Join(dir, "b.img"), 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	if first == second {
		t.Fatalf("two images share the fsid %s", first)
	}
	info, _ := os.Stat(filepath.Join(dir, "a.img"))
	if info.Size() != 1<<30 {
		t.Fatalf("size %d, want 1 GiB", info.Size())
	}
	out, err := exec.Command("btrfs", "inspect-internal", "dump-super", "-a", filepath.Join(dir, "a.img")).CombinedOutput()
	if err != nil {
		t.Skipf("btrfs inspect-internal: %v", err)
	}
	text := string(out)
	if strings.Count(text, "[match]") < 4 || strings.Contains(text, "[DON'T MATCH]") {
		t.Fatalf("superblocks do not check out:\n%s", text)
	}
	if !strings.Contains(text, "fsid\t\t\t"+first) || !strings.Contains(text, "METADATA_UUID") {
		t.Fatalf("fsid %s with METADATA_UUID not found:\n%s", first, text)
	}
}
