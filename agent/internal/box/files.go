package box

import (
	"archive/tar"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// The file calls act on the box's filesystem as the engine's archive calls do (docker cp): paths
// are absolute in the box, symlinks are resolved inside the box's root (".." at the root stays
// there), entries are owned by the uid/gid their tar header names. They are served only by an
// agent running as root in the box (the engine's archive calls act as root); otherwise hello says
// so and the core uses the engine.

// enginePaths are trees the agent leaves to the engine: the kernel's (live here, hidden under
// their mounts in the filesystem the engine's archive calls see) and the agent's own mounts.
var enginePaths = []string{"/proc", "/sys", "/dev", "/.boxdesk"}

// errEngine: the path is one the engine answers for (421; the core asks the engine instead).
var errEngine = errors.New("the engine serves this path: it is under /proc, /sys, /dev or /.boxdesk, or is the root of the box")

// maxLinks is how many symlinks one resolution follows, as the engine's does.
const maxLinks = 255

func enginePath(p string) bool {
	for _, tree := range enginePaths {
		if p == tree || strings.HasPrefix(p, tree+"/") {
			return true
		}
	}
	return false
}

// fileError is a refusal with the HTTP status the core maps to an engine error kind
// (400 invalid, 404 not found, 409 conflict, 421 ask the engine, 500 failed).
type fileError struct {
	status int
	detail string
}

func (e *fileError) Error() string { return e.detail }

func loopError(p string) error {
	return &fileError{http.StatusInternalServerError, "too many levels of symbolic links: " + p}
}

// resolveInBox resolves the symlinks of the absolute path p inside the box's root: every
// component, or every one but the last when followLast is false. Missing components are kept as
// they are. A path that leads into an engine tree is errEngine.
func resolveInBox(p string, followLast bool) (string, error) {
	resolved := "/"
	rest := strings.Split(p, "/")
	links := 0
	for len(rest) > 0 {
		c := rest[0]
		rest = rest[1:]
		if c == "" || c == "." {
			continue
		}
		if c == ".." {
			resolved = path.Dir(resolved)
			continue
		}
		next := path.Join(resolved, c)
		if enginePath(next) {
			return "", errEngine
		}
		if !followLast && len(rest) == 0 {
			return next, nil
		}
		fi, err := os.Lstat(next)
		if err != nil {
			if os.IsNotExist(err) {
				resolved = next
				continue
			}
			return "", err
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			resolved = next
			continue
		}
		if links++; links > maxLinks {
			return "", loopError(p)
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", err
		}
		if strings.HasPrefix(target, "/") {
			resolved = "/"
		}
		rest = append(strings.Split(target, "/"), rest...)
	}
	return resolved, nil
}

// boxPath checks a path the core sent: absolute, no NUL.
func boxPath(raw string) (string, error) {
	if !strings.HasPrefix(raw, "/") || strings.ContainsRune(raw, 0) {
		return "", &fileError{http.StatusBadRequest, "an absolute path in the box is needed, got " + raw}
	}
	return path.Clean(raw), nil
}

// pathStat is what GET /v1/files/stat answers, as the engine's path stat (in Unix terms).
type pathStat struct {
	Name       string  `json:"name"`
	Size       int64   `json:"size"`
	Type       string  `json:"type"`
	Mode       uint32  `json:"mode"`
	Mtime      string  `json:"mtime"`
	LinkTarget *string `json:"linkTarget"`
}

func typeOf(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "directory"
	case m&fs.ModeSymlink != 0:
		return "symlink"
	case m.IsRegular():
		return "file"
	}
	return "other"
}

// unixMode is a FileMode's permission bits with setuid, setgid and sticky.
func unixMode(m fs.FileMode) uint32 {
	bits := uint32(m.Perm())
	if m&fs.ModeSetuid != 0 {
		bits |= 0o4000
	}
	if m&fs.ModeSetgid != 0 {
		bits |= 0o2000
	}
	if m&fs.ModeSticky != 0 {
		bits |= 0o1000
	}
	return bits
}

// entryPath is where p is, its parent's symlinks resolved and its own name kept (a symlink at p is itself).
func entryPath(p string) (string, error) {
	if p == "/" {
		return "/", nil
	}
	return resolveInBox(p, false)
}

// statFile answers what is at p itself (nil: nothing); a symlink's target is the whole chain resolved.
func statFile(p string) (*pathStat, error) {
	full, err := entryPath(p)
	if err != nil {
		return nil, err
	}
	fi, err := os.Lstat(full)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	st := &pathStat{Name: path.Base(p), Size: fi.Size(), Type: typeOf(fi.Mode()), Mode: unixMode(fi.Mode()), Mtime: fi.ModTime().UTC().Format(time.RFC3339Nano)}
	if st.Type == "symlink" {
		target, err := resolveInBox(p, true)
		if err != nil {
			return nil, err
		}
		st.LinkTarget = &target
	}
	return st, nil
}

// archiveSource is the path a read's tar is made of: never the box's root or an engine tree (the engine's tar has those as its filesystem holds them).
func archiveSource(p string) (string, os.FileInfo, error) {
	full, err := entryPath(p)
	if err != nil {
		return "", nil, err
	}
	if full == "/" {
		return "", nil, errEngine
	}
	fi, err := os.Lstat(full)
	if os.IsNotExist(err) {
		return "", nil, &fileError{http.StatusNotFound, "no such path in the box: " + p}
	}
	return full, fi, err
}

// copyBuffer is the size of the reads and writes of file bytes.
const copyBuffer = 1 << 20

// writeArchive writes the tar the engine makes of src: its entry named `name`, and for a
// directory everything below it (symlinks as links, never followed), in path order.
func writeArchive(w io.Writer, src, name string) error {
	tw := tar.NewWriter(w)
	buf := make([]byte, copyBuffer)
	seen := map[[2]uint64]string{}
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) && p != src {
				return nil // gone while the tar was made
			}
			return err
		}
		fi, err := d.Info()
		if os.IsNotExist(err) {
			return nil
		}
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		return addEntry(tw, p, path.Join(name, rel), fi, seen, buf)
	})
	if err != nil {
		return err
	}
	return tw.Close()
}

func addEntry(tw *tar.Writer, p, name string, fi os.FileInfo, seen map[[2]uint64]string, buf []byte) error {
	link := ""
	if fi.Mode()&os.ModeSymlink != 0 {
		var err error
		if link, err = os.Readlink(p); err != nil {
			return err
		}
	}
	hdr, err := tar.FileInfoHeader(fi, link)
	if err != nil {
		return nil // a socket: the engine's tar leaves it out too
	}
	hdr.Name = name
	if fi.IsDir() {
		hdr.Name += "/"
	}
	hdr.ModTime = hdr.ModTime.Truncate(time.Second)
	hdr.AccessTime, hdr.ChangeTime = time.Time{}, time.Time{}
	if sys, ok := fi.Sys().(*syscall.Stat_t); ok && fi.Mode().IsRegular() && sys.Nlink > 1 {
		key := [2]uint64{uint64(sys.Dev), sys.Ino}
		if first, ok := seen[key]; ok {
			hdr.Typeflag, hdr.Linkname, hdr.Size = tar.TypeLink, first, 0
			return tw.WriteHeader(hdr)
		}
		seen[key] = hdr.Name
	}
	if hdr.Typeflag != tar.TypeReg {
		return tw.WriteHeader(hdr)
	}
	f, err := openResolved(p, syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if os.IsNotExist(err) || errors.Is(err, errChanged) {
		return nil // gone, or replaced by a link, while the tar was made
	}
	if err != nil {
		return err
	}
	defer f.Close()
	if err := tw.WriteHeader(hdr); err != nil {
		return err
	}
	n, err := io.CopyBuffer(tw, io.LimitReader(f, hdr.Size), buf)
	if err != nil {
		return err
	}
	// A file that shrank while it was read is padded to the size its header gave.
	for ; n < hdr.Size; n++ {
		if _, err := tw.Write([]byte{0}); err != nil {
			return err
		}
	}
	return nil
}

// fileErrorStatus is the answer for a failed file call, and what it says.
func fileErrorStatus(err error) (int, string) {
	var fe *fileError
	switch {
	case errors.As(err, &fe):
		return fe.status, fe.detail
	case errors.Is(err, errEngine):
		return http.StatusMisdirectedRequest, err.Error()
	case errors.Is(err, syscall.EBUSY):
		return http.StatusConflict, "it is a mount point: the engine mounts a file there (as it does /etc/hostname, /etc/hosts and /etc/resolv.conf) or a volume is mounted there"
	case errors.Is(err, syscall.EROFS):
		return http.StatusConflict, "it is on a read-only mount (a volume attached read_only)"
	case errors.Is(err, syscall.ELOOP):
		return http.StatusInternalServerError, "too many levels of symbolic links: " + err.Error()
	}
	return http.StatusInternalServerError, err.Error()
}

func fileProblem(w http.ResponseWriter, err error) {
	status, detail := fileErrorStatus(err)
	problem(w, status, detail)
}

// handlePath registers a file call on the box path its ?path= names: a path that cannot be one
// is answered with its problem before the call runs.
func handlePath(mux *http.ServeMux, route string, call func(w http.ResponseWriter, r *http.Request, p string)) {
	mux.HandleFunc(route, func(w http.ResponseWriter, r *http.Request) {
		p, err := boxPath(r.URL.Query().Get("path"))
		if err != nil {
			fileProblem(w, err)
			return
		}
		call(w, r, p)
	})
}

// registerFiles adds the file calls (docs/protocol.md) to the agent's handler.
func registerFiles(mux *http.ServeMux) {
	registerContent(mux)
	handlePath(mux, "/v1/files/stat", func(w http.ResponseWriter, r *http.Request, p string) {
		if r.Method != http.MethodGet {
			problem(w, http.StatusMethodNotAllowed, "GET only")
			return
		}
		st, err := statFile(p)
		if err != nil {
			fileProblem(w, err)
			return
		}
		writeJSON(w, http.StatusOK, st)
	})
	handlePath(mux, "/v1/files/archive", func(w http.ResponseWriter, r *http.Request, p string) {
		switch r.Method {
		case http.MethodGet:
			serveArchive(w, p)
		case http.MethodPut:
			if err := extractInto(p, r.Body); err != nil {
				fileProblem(w, err)
				return
			}
			w.WriteHeader(http.StatusNoContent)
		default:
			problem(w, http.StatusMethodNotAllowed, "GET or PUT only")
		}
	})
	handlePath(mux, "/v1/files/remove", func(w http.ResponseWriter, r *http.Request, p string) {
		if r.Method != http.MethodPost {
			problem(w, http.StatusMethodNotAllowed, "POST only")
			return
		}
		if err := removeFile(p); err != nil {
			fileProblem(w, err)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("/v1/files/rename", func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			problem(w, http.StatusMethodNotAllowed, "POST only")
			return
		}
		var body struct {
			From string `json:"from"`
			To   string `json:"to"`
			Mode uint32 `json:"mode"`
		}
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10)).Decode(&body); err != nil {
			problem(w, http.StatusBadRequest, "a JSON {from, to, mode} is needed")
			return
		}
		if err := renameFile(body.From, body.To, body.Mode); err != nil {
			fileProblem(w, err)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
}

func serveArchive(w http.ResponseWriter, p string) {
	src, _, err := archiveSource(p)
	if err != nil {
		fileProblem(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/x-tar")
	w.WriteHeader(http.StatusOK)
	if err := writeArchive(w, src, path.Base(p)); err != nil {
		// The answer has begun: cutting the connection tells the core the tar is incomplete.
		panic(http.ErrAbortHandler)
	}
}
