package store

import (
	"errors"
	"syscall"
	"unsafe"
)

var iocQuotaRescanWait = ioNone(btrfsMagic, 46)

// enableQuota turns qgroups on (already on is not an error) and waits for the first scan.
func enableQuota(top string) error {
	return inDir(top, func(fd int) error {
		args := quotaCtlArgs{Cmd: quotaCtlEnable}
		if err := ioctlPtr(fd, iocQuotaCtl, unsafe.Pointer(&args)); err != nil {
			return fail(errnoKind(err), "enabling quotas: %v", err)
		}
		if _, err := ioctlInt(fd, iocQuotaRescanWait, 0); err != nil && !errors.Is(err, syscall.EINVAL) {
			return fail("failed", "waiting for the quota scan: %v", err)
		}
		return nil
	})
}

// limitReferenced caps what subvolume id may refer to (0 lifts the cap).
func limitReferenced(top string, subvolID uint64, bytes uint64) error {
	return inDir(top, func(fd int) error {
		args := qgroupLimitArgs{QgroupID: subvolID, Flags: qgroupLimitRfer, MaxRfer: bytes}
		if bytes == 0 {
			args.MaxRfer = qgroupClearValue
		}
		if err := ioctlPtr(fd, iocQgroupLimit, unsafe.Pointer(&args)); err != nil {
			if errors.Is(err, syscall.ENOTCONN) {
				return fail("unsupported", "quotas are not enabled on this filesystem")
			}
			return fail(errnoKind(err), "setting the quota of subvolume %d: %v", subvolID, err)
		}
		return nil
	})
}

type qgroupUsage struct {
	Referenced uint64
	Exclusive  uint64
}

// readQgroups answers every level-0 qgroup's usage by subvolume id, from the quota tree;
// ok is false when quotas are off.
func readQgroups(top string) (map[uint64]qgroupUsage, bool, error) {
	fd, err := openDir(top)
	if err != nil {
		return nil, false, err
	}
	defer syscall.Close(fd)
	out := map[uint64]qgroupUsage{}
	var args searchArgs
	args.Key = searchKey{
		TreeID:      quotaTreeID,
		MaxObjectID: 0,
		MaxOffset:   ^uint64(0),
		MaxTransid:  ^uint64(0),
		MinType:     qgroupInfoKey,
		MaxType:     qgroupInfoKey,
	}
	for {
		args.Key.NrItems = 4096
		if err := ioctlPtr(fd, iocTreeSearch, unsafe.Pointer(&args)); err != nil {
			if errors.Is(err, syscall.ENOENT) {
				return out, false, nil
			}
			return nil, false, fail("failed", "searching the quota tree: %v", err)
		}
		n := int(args.Key.NrItems)
		if n == 0 {
			return out, true, nil
		}
		pos := 0
		var last uint64
		for i := 0; i < n; i++ {
			hdr := args.Buf[pos : pos+32]
			offset := le64(hdr[16:24])
			typ := uint32(hdr[24]) | uint32(hdr[25])<<8 | uint32(hdr[26])<<16 | uint32(hdr[27])<<24
			length := int(uint32(hdr[28]) | uint32(hdr[29])<<8 | uint32(hdr[30])<<16 | uint32(hdr[31])<<24)
			item := args.Buf[pos+32 : pos+32+length]
			pos += 32 + length
			last = offset
			if typ != qgroupInfoKey || offset>>48 != 0 || length < 40 {
				continue
			}
			out[offset] = qgroupUsage{Referenced: le64(item[8:16]), Exclusive: le64(item[24:32])}
		}
		if last == ^uint64(0) {
			return out, true, nil
		}
		args.Key.MinOffset = last + 1
	}
}
