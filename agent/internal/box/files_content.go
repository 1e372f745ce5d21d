package box

import (
	"errors"
	"io"
	"net/http"
	"os"
	"path"
	"strconv"
	"syscall"
)

// The content calls move one regular file's bytes as the body itself, with its Content-Length: no
// tar around them, so the core hands the bytes on as they come (docs/protocol.md, "file-content").

// readContent answers the regular file at p (its parents' symlinks resolved in the box, p itself
// not followed) as the body, its length up front.
func readContent(w http.ResponseWriter, p string) {
	full, err := entryPath(p)
	if err == nil && full == "/" {
		err = invalid("%s is a directory", p)
	}
	if err == nil {
		if fi, lerr := os.Lstat(full); lerr == nil && fi.Mode()&os.ModeSymlink != 0 {
			// The core follows links itself before it reads (a link met at the open is one swapped in).
			err = invalid("%s is a symbolic link", p)
		}
	}
	var f *os.File
	if err == nil {
		f, err = openResolved(full, syscall.O_RDONLY|syscall.O_NOFOLLOW, 0)
	}
	if err != nil {
		fileProblem(w, contentError(p, err))
		return
	}
	defer f.Close()
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = invalid("%s is not a regular file", p)
	}
	if err != nil {
		fileProblem(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Length", strconv.FormatInt(fi.Size(), 10))
	w.WriteHeader(http.StatusOK)
	// The server hands the body to the connection's ReadFrom once the head is out: sendfile(2).
	n, err := io.Copy(w, io.LimitReader(f, fi.Size()))
	if err != nil || n < fi.Size() {
		// The length was promised: a file that shrank or failed midway cuts the connection.
		panic(http.ErrAbortHandler)
	}
}

// writeContent creates the file p (nothing may be there; its directory must exist) from exactly
// the body's Content-Length bytes, with `mode` and the owner root; a body cut short is an error.
// The body is read only once p is known to be served here (the core sends it on 100 Continue).
func writeContent(p string, mode uint32, r *http.Request) error {
	if r.ContentLength < 0 {
		return invalid("a Content-Length is needed")
	}
	if p == "/" {
		return invalid("/ is a directory")
	}
	dir, err := resolveInBox(path.Dir(p), true)
	if err != nil {
		return err
	}
	full := path.Join(dir, path.Base(p))
	if enginePath(full) {
		return errEngine
	}
	f, err := openResolved(full, syscall.O_WRONLY|syscall.O_CREAT|syscall.O_EXCL|syscall.O_NOFOLLOW, mode&0o777)
	if err != nil {
		return contentError(p, err)
	}
	// Through the 1 MiB buffer: the file's own ReadFrom would copy a socket body 32 KiB at a time.
	n, err := io.CopyBuffer(writerOnly{f}, r.Body, make([]byte, copyBuffer))
	if err == nil && n != r.ContentLength {
		err = invalid("the body ended after %d of its %d bytes", n, r.ContentLength)
	}
	if err == nil {
		err = f.Chown(0, 0)
	}
	if err == nil {
		err = f.Chmod(os.FileMode(mode&0o777) | modeBits(mode))
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		// What was written stays, as with a tar cut short: the core removes its temporary file
		// (at once, or after a restart when it was the core that went away).
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return invalid("the body ended before its %d bytes", r.ContentLength)
		}
		return err
	}
	return nil
}

// contentError words an open's failure as the engine's archive calls would.
func contentError(p string, err error) error {
	switch {
	case errors.Is(err, syscall.ENOENT):
		return &fileError{http.StatusNotFound, "no such path in the box: " + p}
	case errors.Is(err, syscall.EEXIST):
		return invalid("%s already exists", p)
	case errors.Is(err, syscall.EISDIR):
		return invalid("%s is a directory", p)
	case errors.Is(err, errChanged):
		return &fileError{http.StatusConflict, p + ": " + err.Error()}
	case errors.Is(err, syscall.ELOOP):
		// Without openat2: O_NOFOLLOW met a symlink at p itself.
		return invalid("%s is a symbolic link", p)
	}
	return err
}

func registerContent(mux *http.ServeMux) {
	handlePath(mux, "/v1/files/content", func(w http.ResponseWriter, r *http.Request, p string) {
		switch r.Method {
		case http.MethodGet:
			readContent(w, p)
		case http.MethodPut:
			mode, perr := strconv.ParseUint(r.URL.Query().Get("mode"), 8, 32)
			if perr != nil || mode > 0o7777 {
				problem(w, http.StatusBadRequest, "mode: octal permission bits are needed, such as 644")
				return
			}
			if err := writeContent(p, uint32(mode), r); err != nil {
				fileProblem(w, err)
				return
			}
			w.WriteHeader(http.StatusNoContent)
		default:
			problem(w, http.StatusMethodNotAllowed, "GET or PUT only")
		}
	})
}
