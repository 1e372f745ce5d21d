package box

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"unsafe"
)

// The file calls resolve a path's symlinks inside the box (resolveInBox) and check where it leads
// before they open it. Between the check and the open, a process in the box could put a symlink in
// place of a component it can write. Opens therefore go through openat2(2) on the box's root with
// RESOLVE_IN_ROOT (every lookup, ".." and absolute links included, stays under the root),
// RESOLVE_NO_MAGICLINKS (no /proc/<pid>/fd or /proc/<pid>/root jumps) and RESOLVE_NO_SYMLINKS: the
// path was resolved already, so a symlink met now is one swapped in, and the open fails (errChanged)
// instead of following it. A kernel without openat2 (before 5.6: ENOSYS) gets a plain open of the
// checked path, as before. golang.org/x/sys is not used (the agent builds with the standard library
// only), so the call and its struct are declared here.

const (
	// sysOpenat2 is openat2's number on amd64 and arm64 alike (the calls added since Linux 5.1
	// share one numbering across architectures).
	sysOpenat2          = 437
	resolveNoMagiclinks = 0x02
	resolveNoSymlinks   = 0x04
	resolveInRoot       = 0x10
)

// openHow is struct open_how (linux/openat2.h).
type openHow struct {
	flags   uint64
	mode    uint64
	resolve uint64
}

// errChanged: a symlink was met where the checked path had none.
var errChanged = errors.New("a component of the path was replaced by a symbolic link while it was opened; nothing was done, try again")

// errNoOpenat2 reports a kernel without openat2 (ENOSYS); the caller falls back to a plain open.
var errNoOpenat2 = errors.New("openat2 is not available")

// openat2Missing is set once the kernel answered ENOSYS (tests set it to run the fallback).
var openat2Missing bool

func openat2(dirfd int, p string, how *openHow) (int, error) {
	name, err := syscall.BytePtrFromString(p)
	if err != nil {
		return -1, err
	}
	for tries := 0; ; tries++ {
		fd, _, errno := syscall.Syscall6(sysOpenat2, uintptr(dirfd), uintptr(unsafe.Pointer(name)),
			uintptr(unsafe.Pointer(how)), unsafe.Sizeof(*how), 0, 0)
		switch {
		case errno == 0:
			return int(fd), nil
		case errno == syscall.EINTR:
			continue
		case errno == syscall.EAGAIN && tries < 16:
			// RESOLVE_IN_ROOT met a rename somewhere on the system during a ".." lookup: asked again.
			continue
		case errno == syscall.ENOSYS:
			return -1, errNoOpenat2
		}
		return -1, errno
	}
}

// openInRoot opens p (relative to root, or absolute: both mean below root) with openat2 and
// RESOLVE_IN_ROOT|RESOLVE_NO_MAGICLINKS plus `resolve`. errNoOpenat2 when the kernel lacks it.
func openInRoot(root *os.File, p string, flags int, mode uint32, resolve uint64) (*os.File, error) {
	if openat2Missing {
		return nil, errNoOpenat2
	}
	how := openHow{flags: uint64(flags | syscall.O_CLOEXEC), resolve: resolveInRoot | resolveNoMagiclinks | resolve}
	if flags&syscall.O_CREAT != 0 {
		how.mode = uint64(mode)
	}
	rel := strings.TrimLeft(p, "/")
	if rel == "" {
		rel = "."
	}
	fd, err := openat2(int(root.Fd()), rel, &how)
	if err == errNoOpenat2 {
		openat2Missing = true
		return nil, err
	}
	if err != nil {
		return nil, &os.PathError{Op: "openat2", Path: p, Err: err}
	}
	return os.NewFile(uintptr(fd), p), nil
}

var boxRoot struct {
	once sync.Once
	dir  *os.File
	err  error
}

// rootDir is the box's root, opened once (the agent's "/": it is the box's first process).
func rootDir() (*os.File, error) {
	boxRoot.once.Do(func() {
		boxRoot.dir, boxRoot.err = os.OpenFile("/", syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	})
	return boxRoot.dir, boxRoot.err
}

// openResolved opens the box path p, whose symlinks resolveInBox has resolved and whose place
// was checked: no symlink may be met on the way (errChanged when one is). Without openat2, a
// plain open of p, as before.
func openResolved(p string, flags int, mode uint32) (*os.File, error) {
	return openResolvedIn("/", rootDir, p, flags, mode)
}

// openResolvedIn is openResolved below the directory rootPath (opened by root).
func openResolvedIn(rootPath string, root func() (*os.File, error), p string, flags int, mode uint32) (*os.File, error) {
	dir, err := root()
	if err == nil {
		var f *os.File
		f, err = openInRoot(dir, p, flags, mode, resolveNoSymlinks)
		if err == nil || !errors.Is(err, errNoOpenat2) {
			if errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.EXDEV) {
				return nil, errChanged
			}
			return f, err
		}
	}
	return os.OpenFile(filepath.Join(rootPath, p), flags|syscall.O_CLOEXEC, os.FileMode(mode))
}
