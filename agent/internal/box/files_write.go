package box

import (
	"archive/tar"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path"
	"strings"
	"syscall"
	"time"
	"unsafe"
)

func invalid(format string, args ...any) error {
	return &fileError{http.StatusBadRequest, fmt.Sprintf(format, args...)}
}

// extractInto unpacks a tar into the existing directory dir, as the engine's archive upload does
// with noOverwriteDirNonDir: missing parents of an entry are made (0755), what is at an entry's
// path is replaced (a directory onto a directory is merged; a directory is never replaced by a
// non-directory or the reverse), modes, owners and times come from the headers. Each entry's
// parent is resolved inside the box, so no entry lands outside it. The body is read only once
// dir is known to be served here (the core sends it on 100 Continue).
func extractInto(dirPath string, body io.Reader) error {
	dir, err := resolveInBox(dirPath, true)
	if err != nil {
		return err
	}
	fi, err := os.Stat(dir)
	if os.IsNotExist(err) {
		return &fileError{http.StatusNotFound, "no such directory in the box: " + dirPath}
	}
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return invalid("%s is not a directory", dirPath)
	}
	tr := tar.NewReader(body)
	buf := make([]byte, copyBuffer)
	type dirTime struct {
		path  string
		mtime time.Time
	}
	var dirTimes []dirTime
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return invalid("not a readable tar archive: %v", err)
		}
		name := path.Clean("/" + hdr.Name)
		if name == "/" {
			continue
		}
		if strings.HasPrefix(path.Clean(hdr.Name), "../") || path.Clean(hdr.Name) == ".." {
			return invalid("the entry %q would be outside %s", hdr.Name, dirPath)
		}
		if hdr.Typeflag == tar.TypeSymlink && !within(dir, path.Join(dir, path.Dir(name), hdr.Linkname)) {
			return invalid("the symlink %q points to %q, outside %s", hdr.Name, hdr.Linkname, dirPath)
		}
		parent, err := resolveInBox(path.Join(dir, path.Dir(name)), true)
		if errors.Is(err, errEngine) {
			return invalid("the entry %q leads into /proc, /sys, /dev or /.boxdesk, which the files routes do not write", hdr.Name)
		}
		if err != nil {
			return err
		}
		if err := os.MkdirAll(parent, 0o755); err != nil {
			return err
		}
		target := path.Join(parent, path.Base(name))
		if enginePath(target) {
			return invalid("the entry %q is in /proc, /sys, /dev or /.boxdesk, which the files routes do not write", hdr.Name)
		}
		if err := extractEntry(dir, target, hdr, tr, buf); err != nil {
			return err
		}
		if hdr.Typeflag == tar.TypeDir {
			dirTimes = append(dirTimes, dirTime{target, hdr.ModTime})
		}
	}
	for _, d := range dirTimes {
		if f, err := openResolved(d.path, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW, 0); err == nil {
			_ = setMtime(f, d.mtime)
			f.Close()
		}
	}
	return nil
}

func extractEntry(dir, target string, hdr *tar.Header, r io.Reader, buf []byte) error {
	isDir := hdr.Typeflag == tar.TypeDir
	if fi, err := os.Lstat(target); err == nil {
		switch {
		case fi.IsDir() && !isDir:
			return invalid("cannot overwrite directory %q with non-directory %q", target, hdr.Name)
		case !fi.IsDir() && isDir:
			return invalid("cannot overwrite non-directory %q with directory %q", target, hdr.Name)
		case !fi.IsDir():
			if err := os.Remove(target); err != nil {
				return err
			}
		}
	}
	mode := os.FileMode(hdr.Mode).Perm()
	switch hdr.Typeflag {
	case tar.TypeDir:
		if err := os.Mkdir(target, mode); err != nil && !os.IsExist(err) {
			return err
		}
		return withOpen(target, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW, 0, func(d *os.File) error {
			return setMeta(d, hdr, false)
		})
	case tar.TypeReg, tar.TypeRegA:
		return withOpen(target, syscall.O_CREAT|syscall.O_EXCL|syscall.O_WRONLY|syscall.O_NOFOLLOW, uint32(mode), func(f *os.File) error {
			if _, err := io.CopyBuffer(writerOnly{f}, r, buf); err != nil {
				return err
			}
			// Owner, mode and time on the open file: the path could be a link by now.
			return setMeta(f, hdr, true)
		})
	case tar.TypeSymlink:
		if err := os.Symlink(hdr.Linkname, target); err != nil {
			return err
		}
	case tar.TypeLink:
		from, err := resolveInBox(path.Join(dir, path.Clean("/"+hdr.Linkname)), false)
		if err != nil {
			return err
		}
		if err := os.Link(from, target); err != nil {
			return err
		}
	default:
		return fmt.Errorf("unhandled tar header type %d", hdr.Typeflag)
	}
	if err := os.Lchown(target, hdr.Uid, hdr.Gid); err != nil {
		return err
	}
	if hdr.Typeflag == tar.TypeSymlink {
		return nil
	}
	if fi, err := os.Lstat(target); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		return nil // a hard link to a symlink: its owner is set, a link has no mode of its own
	}
	// A hard link: the file it names, opened without following a link.
	return withOpen(target, syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0, func(f *os.File) error {
		return setMeta(f, hdr, true)
	})
}

// withOpen opens target in the box (openResolved), runs use on it and closes it, keeping the
// first error.
func withOpen(target string, flags int, mode uint32, use func(*os.File) error) error {
	f, err := openResolved(target, flags, mode)
	if err != nil {
		return err
	}
	err = use(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// setMeta gives the open file f the header's owner and mode (and its mtime, with times).
func setMeta(f *os.File, hdr *tar.Header, times bool) error {
	if err := f.Chown(hdr.Uid, hdr.Gid); err != nil {
		return err
	}
	if err := f.Chmod(hdr.FileInfo().Mode() & (os.ModePerm | os.ModeSetuid | os.ModeSetgid | os.ModeSticky)); err != nil {
		return err
	}
	if !times {
		return nil
	}
	return setMtime(f, hdr.ModTime)
}

// setMtime sets an open file's access and modification times (utimensat on the descriptor itself).
func setMtime(f *os.File, t time.Time) error {
	ts := [2]syscall.Timespec{syscall.NsecToTimespec(t.UnixNano()), syscall.NsecToTimespec(t.UnixNano())}
	_, _, errno := syscall.Syscall6(syscall.SYS_UTIMENSAT, f.Fd(), 0, uintptr(unsafe.Pointer(&ts[0])), 0, 0, 0)
	if errno != 0 {
		return &os.PathError{Op: "utimensat", Path: f.Name(), Err: errno}
	}
	return nil
}

// removeFile removes p (a directory with everything in it, a symlink itself); nothing there is no error.
func removeFile(p string) error {
	if p == "/" {
		return invalid("cannot remove the root of the box")
	}
	full, err := entryPath(p)
	if err != nil {
		return err
	}
	return os.RemoveAll(full)
}

// renameFile puts the file at `from` in place of `to` (one directory) in one step and gives it `mode`.
func renameFile(fromRaw, toRaw string, mode uint32) error {
	from, err := boxPath(fromRaw)
	if err != nil {
		return err
	}
	to, err := boxPath(toRaw)
	if err != nil {
		return err
	}
	if path.Dir(from) != path.Dir(to) || from == "/" || to == "/" {
		return invalid("cannot rename %q to %q: not two names in one directory", fromRaw, toRaw)
	}
	src, err := entryPath(from)
	if err != nil {
		return err
	}
	dst := path.Join(path.Dir(src), path.Base(to))
	if enginePath(dst) {
		return errEngine
	}
	if fi, err := os.Lstat(dst); err == nil && fi.IsDir() {
		return invalid("cannot overwrite directory %q with non-directory %q", to, path.Base(from))
	}
	if err := os.Rename(src, dst); err != nil {
		return err
	}
	f, err := openResolved(dst, syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return err
	}
	err = f.Chmod(os.FileMode(mode&0o777) | modeBits(mode))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func modeBits(mode uint32) os.FileMode {
	var m os.FileMode
	if mode&0o4000 != 0 {
		m |= os.ModeSetuid
	}
	if mode&0o2000 != 0 {
		m |= os.ModeSetgid
	}
	if mode&0o1000 != 0 {
		m |= os.ModeSticky
	}
	return m
}

// within says whether the clean path p is dir or below it.
func within(dir, p string) bool {
	return dir == "/" || p == dir || strings.HasPrefix(p, dir+"/")
}
