package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"unsafe"
)

// <linux/loop.h>
const (
	loopSetFd       = 0x4C00
	loopClrFd       = 0x4C01
	loopSetStatus64 = 0x4C04
	loopGetStatus64 = 0x4C05
	loopSetCapacity = 0x4C07
	loopConfigure   = 0x4C0A
	loopCtlAdd      = 0x4C80
	loopCtlRemove   = 0x4C81
	loopCtlGetFree  = 0x4C82

	loFlagsAutoclear = 4
	loFlagsDirectIO  = 16

	loopMajor   = 7
	maxLoopWant = 1 << 20
)

type loopInfo64 struct {
	Device         uint64
	Inode          uint64
	Rdevice        uint64
	Offset         uint64
	Sizelimit      uint64
	Number         uint32
	EncryptType    uint32
	EncryptKeySize uint32
	Flags          uint32
	FileName       [64]byte
	CryptName      [64]byte
	EncryptKey     [32]byte
	Init           [2]uint64
}

type loopConfig struct {
	Fd        uint32
	BlockSize uint32
	Info      loopInfo64
	Reserved  [8]uint64
}

func loopPath(n int) string { return "/dev/loop" + strconv.Itoa(n) }

// backingName is what the kernel shows of the image once the container that attached it
// is gone (the path inside a bind mount that no longer exists): its base name. Image names
// carry the store's instance id, so the base name alone identifies a store's image.
func backingName(image string) string { return filepath.Base(image) }

// findBacking answers the loop device whose backing file is the image (by the name sysfs
// shows), or -1. Only loops we can see in /sys/block; nothing is opened.
func findBacking(image string) (int, error) {
	entries, err := os.ReadDir("/sys/block")
	if err != nil {
		return -1, fail("failed", "cannot read /sys/block: %v", err)
	}
	want := backingName(image)
	for _, e := range entries {
		n, ok := loopNumber(e.Name())
		if !ok {
			continue
		}
		raw, err := os.ReadFile(filepath.Join("/sys/block", e.Name(), "loop", "backing_file"))
		if err != nil {
			continue // not bound
		}
		name := strings.TrimSuffix(strings.TrimSpace(string(raw)), " (deleted)")
		if filepath.Base(name) == want {
			return n, nil
		}
	}
	return -1, nil
}

func loopNumber(name string) (int, bool) {
	if !strings.HasPrefix(name, "loop") {
		return 0, false
	}
	n, err := strconv.Atoi(strings.TrimPrefix(name, "loop"))
	return n, err == nil && n >= 0
}

// loopBound says whether /sys shows loop n as bound to a file (false when it does not exist).
func loopBound(n int) bool {
	_, err := os.Stat(fmt.Sprintf("/sys/block/loop%d/loop/backing_file", n))
	return err == nil
}

func loopExists(n int) bool {
	_, err := os.Stat(fmt.Sprintf("/sys/block/loop%d", n))
	return err == nil
}

// reserveLoop finds a loop number for the image: `prefer` when it is free (made with
// LOOP_CTL_ADD when the device does not exist, e.g. after a reboot), else the next free
// number above it, so the number the engine's volumes name stays the same across restarts.
func reserveLoop(prefer int) (int, error) {
	ctl, err := syscall.Open("/dev/loop-control", syscall.O_RDWR|syscall.O_CLOEXEC, 0)
	if err != nil {
		return -1, fail("unsupported", "cannot open /dev/loop-control: %v (is the loop module loaded, and the device given to the helper?)", err)
	}
	defer syscall.Close(ctl)
	if prefer < 0 {
		n, err := ioctlInt(ctl, loopCtlGetFree, 0)
		if err != nil {
			return -1, fail("failed", "LOOP_CTL_GET_FREE: %v", err)
		}
		return n, nil
	}
	for n := prefer; n < prefer+64 && n < maxLoopWant; n++ {
		if loopBound(n) {
			continue
		}
		if !loopExists(n) {
			if _, err := ioctlInt(ctl, loopCtlAdd, uintptr(n)); err != nil && !errors.Is(err, syscall.EEXIST) {
				return -1, fail("failed", "LOOP_CTL_ADD %d: %v", n, err)
			}
		}
		return n, nil
	}
	return -1, fail("busy", "no free loop device from %d to %d", prefer, prefer+63)
}

// loopStatus reads a loop device's status; ENXIO means it is not bound.
func loopStatus(fd int) (*loopInfo64, error) {
	var info loopInfo64
	if err := ioctlPtr(fd, loopGetStatus64, unsafe.Pointer(&info)); err != nil {
		return nil, err
	}
	return &info, nil
}

// sameFile says whether the loop's backing file is the image (device and inode).
func sameFile(info *loopInfo64, image string) (bool, error) {
	var st syscall.Stat_t
	if err := syscall.Stat(image, &st); err != nil {
		return false, fail("not_found", "cannot stat the image %s: %v", image, err)
	}
	return info.Inode == st.Ino && info.Device == uint64(st.Dev), nil
}

// attachLoop binds the image to loop n (already ours: nothing to do) and answers the loop
// device open: the loop clears itself when its last user goes (LO_FLAGS_AUTOCLEAR), so the
// caller closes it only once the filesystem is mounted (the mount, and the boxes' volumes,
// then hold it).
func attachLoop(n int, image string) (int, error) {
	dev, err := syscall.Open(loopPath(n), syscall.O_RDWR|syscall.O_CLOEXEC, 0)
	if err != nil {
		return -1, fail("failed", "cannot open %s: %v (was it given to the helper?)", loopPath(n), err)
	}
	if err := bindLoop(dev, n, image); err != nil {
		syscall.Close(dev)
		return -1, err
	}
	return dev, nil
}

func bindLoop(dev, n int, image string) error {
	if info, err := loopStatus(dev); err == nil {
		ours, err := sameFile(info, image)
		if err != nil {
			return err
		}
		if ours {
			return nil
		}
		return fail("busy", "%s is bound to another file", loopPath(n))
	} else if !errors.Is(err, syscall.ENXIO) {
		return fail("failed", "LOOP_GET_STATUS64 %s: %v", loopPath(n), err)
	}
	file, err := syscall.Open(image, syscall.O_RDWR|syscall.O_CLOEXEC, 0)
	if err != nil {
		return fail("not_found", "cannot open the image %s: %v", image, err)
	}
	defer syscall.Close(file)
	// Direct I/O (with the page size as block size): the filesystem's writes reach the disk
	// through the loop without a second copy in the host's page cache, and a commit is on
	// disk when it returns. The kernel falls back to buffered I/O where the file cannot.
	cfg := loopConfig{Fd: uint32(file), BlockSize: 4096}
	cfg.Info.Flags = loFlagsAutoclear | loFlagsDirectIO
	copy(cfg.Info.FileName[:], backingName(image))
	err = ioctlPtr(dev, loopConfigure, unsafe.Pointer(&cfg))
	if errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOTTY) {
		// Kernels before 5.8: LOOP_SET_FD, then the status.
		if _, err = ioctlInt(dev, loopSetFd, uintptr(file)); err == nil {
			err = ioctlPtr(dev, loopSetStatus64, unsafe.Pointer(&cfg.Info))
			if err != nil {
				_, _ = ioctlInt(dev, loopClrFd, 0)
			}
		}
	}
	if errors.Is(err, syscall.EBUSY) {
		return fail("busy", "%s was taken by someone else meanwhile", loopPath(n))
	}
	if err != nil {
		return fail("failed", "attaching %s to %s: %v", image, loopPath(n), err)
	}
	return nil
}

// refreshCapacity tells the loop device its file grew.
func refreshCapacity(n int) error {
	dev, err := syscall.Open(loopPath(n), syscall.O_RDWR|syscall.O_CLOEXEC, 0)
	if err != nil {
		return fail("failed", "cannot open %s: %v", loopPath(n), err)
	}
	defer syscall.Close(dev)
	if _, err := ioctlInt(dev, loopSetCapacity, 0); err != nil {
		return fail("failed", "LOOP_SET_CAPACITY %s: %v", loopPath(n), err)
	}
	return nil
}

// releaseLoop detaches loop n if the image is what it holds (a loop still mounted only
// detaches when its last user goes, autoclear), then removes the device if it is unbound.
// Another file's loop is never touched.
func releaseLoop(n int, image string) (detached bool, removed bool, err error) {
	if dev, err := syscall.Open(loopPath(n), syscall.O_RDWR|syscall.O_CLOEXEC, 0); err == nil {
		info, serr := loopStatus(dev)
		if serr == nil {
			ours, err := sameFile(info, image)
			if err != nil || !ours {
				syscall.Close(dev)
				if err == nil {
					err = fail("busy", "%s holds another file; left alone", loopPath(n))
				}
				return false, false, err
			}
			if _, err := ioctlInt(dev, loopClrFd, 0); err == nil {
				detached = true
			}
		}
		syscall.Close(dev)
	}
	ctl, err := syscall.Open("/dev/loop-control", syscall.O_RDWR|syscall.O_CLOEXEC, 0)
	if err == nil {
		if _, err := ioctlInt(ctl, loopCtlRemove, uintptr(n)); err == nil {
			removed = true
		}
		syscall.Close(ctl)
	}
	return detached, removed, nil
}
