package store

import (
	"syscall"
	"unsafe"
)

// Linux's generic ioctl encoding (amd64 and arm64 share it).
const (
	iocWrite = 1
	iocRead  = 2
)

func ioc(dir, typ, nr, size uintptr) uintptr {
	return dir<<30 | size<<16 | typ<<8 | nr
}

func ioNone(typ, nr uintptr) uintptr     { return ioc(0, typ, nr, 0) }
func iow(typ, nr, size uintptr) uintptr  { return ioc(iocWrite, typ, nr, size) }
func ior(typ, nr, size uintptr) uintptr  { return ioc(iocRead, typ, nr, size) }
func iowr(typ, nr, size uintptr) uintptr { return ioc(iocRead|iocWrite, typ, nr, size) }

// ioctlPtr calls ioctl(fd, req, arg) with a pointer argument.
func ioctlPtr(fd int, req uintptr, arg unsafe.Pointer) error {
	_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), req, uintptr(arg))
	if errno != 0 {
		return errno
	}
	return nil
}

// ioctlInt calls ioctl(fd, req, n) with an integer argument; answers the call's result.
func ioctlInt(fd int, req uintptr, n uintptr) (int, error) {
	r, _, errno := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), req, n)
	if errno != 0 {
		return -1, errno
	}
	return int(r), nil
}
