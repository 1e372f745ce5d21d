// Package store holds the copy-on-write store's privileged operations: loop images, btrfs
// subvolumes, snapshots and quotas. Each operation is a typed command with validated
// flags (never a shell string); it answers one JSON object on stdout, or
// {"error":{"kind","message"}} with exit status 1 (2 for a bad command line).
package store

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// subvolDir is where items live under the filesystem's top: <top>/subvols/<id>.
const subvolDir = "subvols"

var idPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)

type op struct {
	summary string
	run     func(a *args) (interface{}, error)
}

var ops = map[string]op{
	"prepare":  {"put the image in place (from the empty filesystem) and find its loop device", runPrepare},
	"hold":     {"attach and mount the store, then wait for SIGTERM (the helper's main process)", runHold},
	"info":     {"the filesystem's size and use", runInfo},
	"create":   {"create an empty subvolume", runCreate},
	"snapshot": {"snapshot a subvolume (read-only with --readonly)", runSnapshot},
	"delete":   {"delete a subvolume and anything inside it", runDelete},
	"exchange": {"swap two subvolumes' names in one step (--id and --with)", runExchange},
	"quota":    {"cap what a subvolume refers to (--bytes 0 lifts the cap)", runQuota},
	"usage":    {"referenced and exclusive bytes per subvolume", runUsage},
	"list":     {"the subvolumes", runList},
	"grow":     {"grow the image, its loop device and the filesystem", runGrow},
	"release":  {"detach the image's loop device and remove it", runRelease},
	"sync":     {"commit, and wait until deleted subvolumes are freed", runSync},
}

// args are every flag an operation may take; each operation checks those it needs.
type args struct {
	fs       *flag.FlagSet
	top      string
	image    string
	template string
	id       string
	source   string
	with     string
	ids      multi
	loop     int
	prefer   int
	size     int64
	bytes    int64
	quota    int64
	readOnly bool
}

type multi []string

func (m *multi) String() string     { return strings.Join(*m, ",") }
func (m *multi) Set(v string) error { *m = append(*m, v); return nil }

func newArgs(name string) *args {
	a := &args{fs: flag.NewFlagSet(name, flag.ContinueOnError)}
	a.fs.SetOutput(io.Discard)
	a.fs.StringVar(&a.top, "top", "", "where the filesystem's top level is (a directory on btrfs)")
	a.fs.StringVar(&a.image, "image", "", "the store's image file")
	a.fs.StringVar(&a.template, "template", "", "the compressed empty filesystem")
	a.fs.StringVar(&a.id, "id", "", "the item's id")
	a.fs.StringVar(&a.source, "source", "", "the id to snapshot")
	a.fs.StringVar(&a.with, "with", "", "the id to exchange with")
	a.fs.Var(&a.ids, "ids", "ids to report (repeatable; none: all)")
	a.fs.IntVar(&a.loop, "loop", -1, "the loop device's number")
	a.fs.IntVar(&a.prefer, "prefer", -1, "the loop number to take when it is free")
	a.fs.Int64Var(&a.size, "size", 0, "the image's size in bytes")
	a.fs.Int64Var(&a.bytes, "bytes", -1, "a quota in bytes")
	a.fs.Int64Var(&a.quota, "quota", 0, "a quota in bytes for the new subvolume")
	a.fs.BoolVar(&a.readOnly, "readonly", false, "make the snapshot read-only")
	return a
}

// Main runs `store <op> [flags]` and answers the exit status.
func Main(argv []string, stdout, stderr io.Writer) int {
	if len(argv) == 0 || argv[0] == "help" || argv[0] == "-h" || argv[0] == "--help" {
		names := make([]string, 0, len(ops))
		for name := range ops {
			names = append(names, name)
		}
		sort.Strings(names)
		fmt.Fprintln(stderr, "usage: boxdesk-agent store <op> [flags]")
		for _, name := range names {
			fmt.Fprintf(stderr, "  %-9s %s\n", name, ops[name].summary)
		}
		return 2
	}
	o, ok := ops[argv[0]]
	if !ok {
		return answer(stdout, nil, fail("invalid", "unknown store operation %q", argv[0]), 2)
	}
	a := newArgs(argv[0])
	if err := a.fs.Parse(argv[1:]); err != nil {
		return answer(stdout, nil, fail("invalid", "%s: %v", argv[0], err), 2)
	}
	if a.fs.NArg() > 0 {
		return answer(stdout, nil, fail("invalid", "%s: unexpected argument %q", argv[0], a.fs.Arg(0)), 2)
	}
	out, err := o.run(a)
	return answer(stdout, out, err, 1)
}

func answer(w io.Writer, out interface{}, err error, code int) int {
	enc := json.NewEncoder(w)
	if err != nil {
		_ = enc.Encode(map[string]interface{}{"error": asOpError(err, "failed")})
		return code
	}
	_ = enc.Encode(out)
	return 0
}

// absPath checks a path flag: given, absolute and clean (no `..`, no trailing slash).
func absPath(name, value string) error {
	if value == "" {
		return fail("invalid", "--%s is required", name)
	}
	if !filepath.IsAbs(value) || filepath.Clean(value) != value || strings.Contains(value, "\x00") {
		return fail("invalid", "--%s must be an absolute, clean path (got %q)", name, value)
	}
	return nil
}

func checkID(name, value string) error {
	if !idPattern.MatchString(value) {
		return fail("invalid", "--%s must match %s (got %q)", name, idPattern, value)
	}
	return nil
}

func checkImage(a *args) error {
	if err := absPath("image", a.image); err != nil {
		return err
	}
	if !strings.HasSuffix(a.image, ".img") {
		return fail("invalid", "--image must name a .img file")
	}
	return nil
}

func checkLoop(a *args) error {
	if a.loop < 0 || a.loop >= maxLoopWant {
		return fail("invalid", "--loop must be a loop device number")
	}
	return nil
}

// itemPath answers <top>/subvols/<id> once top and id are valid.
func itemPath(a *args, flagName, id string) (string, error) {
	if err := absPath("top", a.top); err != nil {
		return "", err
	}
	if err := checkID(flagName, id); err != nil {
		return "", err
	}
	return filepath.Join(a.top, subvolDir, id), nil
}
