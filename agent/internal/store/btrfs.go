package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"unsafe"
)

// <linux/btrfs.h>
const (
	btrfsMagic       = 0x94
	btrfsSuperMagic  = 0x9123683E
	firstFreeObject  = 256 // the inode number of every subvolume's root directory
	subvolRdonly     = 1 << 1
	pathNameMax      = 4087
	volNameMax       = 4039
	quotaCtlEnable   = 1
	qgroupLimitRfer  = 1 << 0
	qgroupClearValue = ^uint64(0)
	quotaTreeID      = 8
	qgroupStatusKey  = 240
	qgroupInfoKey    = 242
	rootTreeID       = 1
	rootRefKey       = 156
)

type volArgs struct {
	Fd   int64
	Name [pathNameMax + 1]byte
}

type volArgsV2 struct {
	Fd      int64
	Transid uint64
	Flags   uint64
	Unused  [4]uint64
	Name    [volNameMax + 1]byte
}

type inoLookupArgs struct {
	TreeID   uint64
	ObjectID uint64
	Name     [4080]byte
}

type quotaCtlArgs struct {
	Cmd    uint64
	Status uint64
}

type qgroupLimitArgs struct {
	QgroupID uint64
	Flags    uint64
	MaxRfer  uint64
	MaxExcl  uint64
	RsvRfer  uint64
	RsvExcl  uint64
}

type searchKey struct {
	TreeID      uint64
	MinObjectID uint64
	MaxObjectID uint64
	MinOffset   uint64
	MaxOffset   uint64
	MinTransid  uint64
	MaxTransid  uint64
	MinType     uint32
	MaxType     uint32
	NrItems     uint32
	Unused      uint32
	Unused1     [4]uint64
}

type searchArgs struct {
	Key searchKey
	Buf [4096 - 104]byte
}

type subvolWaitArgs struct {
	SubvolID uint64
	Mode     uint32
	Count    uint32
}

var (
	iocResize         = iow(btrfsMagic, 3, unsafe.Sizeof(volArgs{}))
	iocSync           = ioNone(btrfsMagic, 8)
	iocSubvolCreate   = iow(btrfsMagic, 14, unsafe.Sizeof(volArgs{}))
	iocTreeSearch     = iowr(btrfsMagic, 17, unsafe.Sizeof(searchArgs{}))
	iocInoLookup      = iowr(btrfsMagic, 18, unsafe.Sizeof(inoLookupArgs{}))
	iocSnapCreateV2   = iow(btrfsMagic, 23, unsafe.Sizeof(volArgsV2{}))
	iocGetFlags       = ior(btrfsMagic, 25, 8)
	iocQuotaCtl       = iowr(btrfsMagic, 40, unsafe.Sizeof(quotaCtlArgs{}))
	iocQgroupLimit    = ior(btrfsMagic, 43, unsafe.Sizeof(qgroupLimitArgs{}))
	iocSnapDestroyV2  = iow(btrfsMagic, 63, unsafe.Sizeof(volArgsV2{}))
	iocSubvolSyncWait = iow(btrfsMagic, 65, unsafe.Sizeof(subvolWaitArgs{}))
)

func openDir(path string) (int, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		if errors.Is(err, syscall.ENOENT) {
			return -1, fail("not_found", "%s does not exist", path)
		}
		return -1, fail("failed", "cannot open %s: %v", path, err)
	}
	return fd, nil
}

// requireSubvolume fails with not_found unless path is a subvolume (name: how the error names it).
func requireSubvolume(path, name string) error {
	ok, err := isSubvolume(path)
	if err != nil {
		return err
	}
	if !ok {
		return fail("not_found", "no subvolume %s", name)
	}
	return nil
}

// inDir runs f on the open directory at path, and closes it after.
func inDir(path string, f func(fd int) error) error {
	fd, err := openDir(path)
	if err != nil {
		return err
	}
	defer syscall.Close(fd)
	return f(fd)
}

// isBtrfs says whether path is on btrfs.
func isBtrfs(path string) (bool, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(path, &st); err != nil {
		return false, fail("failed", "statfs %s: %v", path, err)
	}
	return uint32(st.Type) == btrfsSuperMagic, nil
}

// isSubvolume says whether path is the root of a subvolume.
func isSubvolume(path string) (bool, error) {
	var st syscall.Stat_t
	if err := syscall.Lstat(path, &st); err != nil {
		if errors.Is(err, syscall.ENOENT) {
			return false, nil
		}
		return false, fail("failed", "stat %s: %v", path, err)
	}
	return st.Ino == firstFreeObject && st.Mode&syscall.S_IFMT == syscall.S_IFDIR, nil
}

func errnoKind(err error) string {
	switch {
	case errors.Is(err, syscall.EEXIST):
		return "exists"
	case errors.Is(err, syscall.ENOENT):
		return "not_found"
	case errors.Is(err, syscall.EBUSY):
		return "busy"
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EDQUOT):
		return "no_space"
	case errors.Is(err, syscall.EPERM), errors.Is(err, syscall.EACCES):
		return "denied"
	case errors.Is(err, syscall.ENOTTY), errors.Is(err, syscall.EOPNOTSUPP):
		return "unsupported"
	}
	return "failed"
}

// createSubvolume makes an empty subvolume at parent/name.
func createSubvolume(parent, name string) error {
	return inDir(parent, func(fd int) error {
		var args volArgs
		copy(args.Name[:], name)
		if err := ioctlPtr(fd, iocSubvolCreate, unsafe.Pointer(&args)); err != nil {
			return fail(errnoKind(err), "creating subvolume %s: %v", filepath.Join(parent, name), err)
		}
		return nil
	})
}

// snapshotSubvolume snapshots the subvolume at source into parent/name (read-only or writable).
func snapshotSubvolume(source, parent, name string, readOnly bool) error {
	src, err := openDir(source)
	if err != nil {
		return err
	}
	defer syscall.Close(src)
	dst, err := openDir(parent)
	if err != nil {
		return err
	}
	defer syscall.Close(dst)
	args := volArgsV2{Fd: int64(src)}
	if readOnly {
		args.Flags = subvolRdonly
	}
	copy(args.Name[:], name)
	if err := ioctlPtr(dst, iocSnapCreateV2, unsafe.Pointer(&args)); err != nil {
		return fail(errnoKind(err), "snapshotting %s to %s: %v", source, filepath.Join(parent, name), err)
	}
	return nil
}

// destroySubvolume deletes the subvolume parent/name and any subvolume made inside it (a
// box may make its own); the space is freed in the background.
func destroySubvolume(parent, name string) error {
	err := snapDestroy(parent, name)
	if errors.Is(err, syscall.ENOTEMPTY) {
		children, cerr := childSubvolumes(filepath.Join(parent, name))
		if cerr != nil {
			return cerr
		}
		for _, child := range children {
			if err := destroySubvolume(filepath.Dir(child), filepath.Base(child)); err != nil {
				return err
			}
		}
		err = snapDestroy(parent, name)
	}
	if err != nil {
		return fail(errnoKind(err), "deleting subvolume %s: %v", filepath.Join(parent, name), err)
	}
	return nil
}

func snapDestroy(parent, name string) error {
	return inDir(parent, func(fd int) error {
		var args volArgsV2
		copy(args.Name[:], name)
		return ioctlPtr(fd, iocSnapDestroyV2, unsafe.Pointer(&args))
	})
}

// childSubvolumes answers the paths of the subvolumes directly inside the subvolume at path
// (its ROOT_REF items in the root tree, each placed by an inode lookup of its directory).
func childSubvolumes(path string) ([]string, error) {
	parentID, err := subvolumeID(path)
	if err != nil {
		return nil, err
	}
	fd, err := openDir(path)
	if err != nil {
		return nil, err
	}
	defer syscall.Close(fd)
	var args searchArgs
	args.Key = searchKey{TreeID: rootTreeID, MinObjectID: parentID, MaxObjectID: parentID,
		MaxOffset: ^uint64(0), MaxTransid: ^uint64(0), MinType: rootRefKey, MaxType: rootRefKey}
	var out []string
	for {
		args.Key.NrItems = 4096
		if err := ioctlPtr(fd, iocTreeSearch, unsafe.Pointer(&args)); err != nil {
			return nil, fail("failed", "searching the root tree: %v", err)
		}
		n := int(args.Key.NrItems)
		if n == 0 {
			return out, nil
		}
		pos := 0
		var last uint64
		for i := 0; i < n; i++ {
			hdr := args.Buf[pos : pos+32]
			last = le64(hdr[16:24])
			length := int(binary.LittleEndian.Uint32(hdr[28:32]))
			item := args.Buf[pos+32 : pos+32+length]
			pos += 32 + length
			if binary.LittleEndian.Uint32(hdr[24:28]) != rootRefKey || length < 18 {
				continue
			}
			dirID := le64(item[0:8])
			nameLen := int(binary.LittleEndian.Uint16(item[16:18]))
			name := string(item[18 : 18+nameLen])
			lookup := inoLookupArgs{TreeID: parentID, ObjectID: dirID}
			if err := ioctlPtr(fd, iocInoLookup, unsafe.Pointer(&lookup)); err != nil {
				return nil, fail("failed", "placing subvolume %s: %v", name, err)
			}
			dir := string(lookup.Name[:bytes.IndexByte(lookup.Name[:], 0)])
			out = append(out, filepath.Join(path, dir, name))
		}
		if last == ^uint64(0) {
			return out, nil
		}
		args.Key.MinOffset = last + 1
	}
}

// subvolumeID answers the id of the subvolume whose root is path.
func subvolumeID(path string) (uint64, error) {
	fd, err := openDir(path)
	if err != nil {
		return 0, err
	}
	defer syscall.Close(fd)
	args := inoLookupArgs{ObjectID: firstFreeObject}
	if err := ioctlPtr(fd, iocInoLookup, unsafe.Pointer(&args)); err != nil {
		return 0, fail("failed", "looking up the subvolume of %s: %v", path, err)
	}
	return args.TreeID, nil
}

func subvolumeReadOnly(path string) (bool, error) {
	fd, err := openDir(path)
	if err != nil {
		return false, err
	}
	defer syscall.Close(fd)
	var flags uint64
	if err := ioctlPtr(fd, iocGetFlags, unsafe.Pointer(&flags)); err != nil {
		return false, fail("failed", "reading the flags of %s: %v", path, err)
	}
	return flags&subvolRdonly != 0, nil
}

// syncFs commits the running transaction, so the quota tree counts every write before it.
func syncFs(top string) error {
	return inDir(top, func(fd int) error {
		if _, err := ioctlInt(fd, iocSync, 0); err != nil {
			return fail("failed", "BTRFS_IOC_SYNC: %v", err)
		}
		return nil
	})
}

// waitCleaner waits until every deleted subvolume's space is freed (kernels from 6.8; earlier
// ones answer ENOTTY and the space is freed a moment later on its own).
func waitCleaner(top string) error {
	return inDir(top, func(fd int) error {
		args := subvolWaitArgs{Mode: 1} // BTRFS_SUBVOL_SYNC_WAIT_FOR_QUEUED
		if err := ioctlPtr(fd, iocSubvolSyncWait, unsafe.Pointer(&args)); err != nil && !errors.Is(err, syscall.ENOTTY) && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, syscall.ENOENT) {
			return fail("failed", "waiting for deleted subvolumes: %v", err)
		}
		return nil
	})
}

// resizeMax grows the filesystem to its device's size.
func resizeMax(top string) error {
	return inDir(top, func(fd int) error {
		var args volArgs
		copy(args.Name[:], "max")
		if err := ioctlPtr(fd, iocResize, unsafe.Pointer(&args)); err != nil {
			return fail("failed", "BTRFS_IOC_RESIZE max: %v", err)
		}
		return nil
	})
}

// fsSpace answers the filesystem's size and what is used of it.
func fsSpace(top string) (size, used uint64, err error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(top, &st); err != nil {
		return 0, 0, fail("failed", "statfs %s: %v", top, err)
	}
	bs := uint64(st.Bsize)
	return st.Blocks * bs, (st.Blocks - st.Bfree) * bs, nil
}

func le64(b []byte) uint64 { return binary.LittleEndian.Uint64(b) }

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}
