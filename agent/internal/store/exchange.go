package store

import (
	"path/filepath"
	"syscall"
	"unsafe"
)

const renameExchange = 1 << 1

// exchangePaths swaps two directory entries in one step (renameat2 RENAME_EXCHANGE): a
// restore puts a new copy in place without a moment where the item is missing or half there.
func exchangePaths(a, b string) error {
	pa, err := syscall.BytePtrFromString(a)
	if err != nil {
		return fail("invalid", "bad path %q", a)
	}
	pb, err := syscall.BytePtrFromString(b)
	if err != nil {
		return fail("invalid", "bad path %q", b)
	}
	atFdcwd := -100
	_, _, errno := syscall.Syscall6(sysRenameat2, uintptr(atFdcwd), uintptr(unsafe.Pointer(pa)),
		uintptr(atFdcwd), uintptr(unsafe.Pointer(pb)), renameExchange, 0)
	if errno != 0 {
		return fail(errnoKind(errno), "exchanging %s and %s: %v", filepath.Base(a), filepath.Base(b), errno)
	}
	return nil
}

func runExchange(a *args) (interface{}, error) {
	first, err := itemPath(a, "id", a.id)
	if err != nil {
		return nil, err
	}
	second, err := itemPath(a, "with", a.with)
	if err != nil {
		return nil, err
	}
	for _, p := range []string{first, second} {
		if err := requireSubvolume(p, filepath.Base(p)); err != nil {
			return nil, err
		}
	}
	if err := exchangePaths(first, second); err != nil {
		return nil, err
	}
	return map[string]interface{}{"id": a.id, "with": a.with}, nil
}
