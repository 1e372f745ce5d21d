package netfilter

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"
)

// The sysctls of the box's namespace the egress log needs: byte counts on connections, and a UDP
// flow without an answer forgotten (so recorded) after 10 s rather than 30.
var egressSysctls = map[string]string{
	"nf_conntrack_acct":        "1",
	"nf_conntrack_udp_timeout": "10",
}

// A proc of the helper's own (its /proc/sys is read-only): a sysctl file opened by a thread in the
// box's namespace is that namespace's.
const procDir = "/tmp/boxdesk-proc"

var mountProc sync.Once
var mountProcErr error

const (
	nfulnlMsgConfig = 1
	nfulaCfgCmd     = 1
	nfulaCfgMode    = 2
	nfulaCfgQthresh = 5
	cfgCmdBind      = 1
	cfgCmdPfBind    = 3
	copyPacket      = 2
	copyBytes       = 600 // a DNS answer's addresses fit
	nflogGroup      = 1
	ctGroups        = 1<<1 | 1<<2 // NFNLGRP_CONNTRACK_UPDATE (2) and _DESTROY (3) as a bind mask
	recvBufBytes    = 256 << 10
)

// nlRequest is one netlink config message to nfnetlink_log: nfgenmsg then one attribute.
func nlRequest(family uint8, group uint16, attrType uint16, value []byte) []byte {
	attrLen := 4 + len(value)
	total := nlmsgHdrLen + nfgenLen + (attrLen+3)&^3
	b := make([]byte, total)
	binary.LittleEndian.PutUint32(b[0:], uint32(total))
	binary.LittleEndian.PutUint16(b[4:], subsysUlog<<8|nfulnlMsgConfig)
	binary.LittleEndian.PutUint16(b[6:], syscall.NLM_F_REQUEST|syscall.NLM_F_ACK)
	b[16], b[17] = family, 0
	binary.BigEndian.PutUint16(b[18:], group)
	binary.LittleEndian.PutUint16(b[20:], uint16(attrLen))
	binary.LittleEndian.PutUint16(b[22:], attrType)
	copy(b[24:], value)
	return b
}

// ask sends a config message and reads its acknowledgement (an error code 0, or the error).
func ask(fd int, msg []byte) error {
	if err := syscall.Sendto(fd, msg, 0, &syscall.SockaddrNetlink{Family: syscall.AF_NETLINK}); err != nil {
		return err
	}
	buf := make([]byte, 4096)
	n, _, err := syscall.Recvfrom(fd, buf, 0)
	if err != nil {
		return err
	}
	if n >= 20 && binary.LittleEndian.Uint16(buf[4:6]) == syscall.NLMSG_ERROR {
		if code := int32(binary.LittleEndian.Uint32(buf[16:20])); code != 0 {
			return syscall.Errno(-code)
		}
	}
	return nil
}

func netlinkSocket(groups uint32) (int, error) {
	fd, err := syscall.Socket(syscall.AF_NETLINK, syscall.SOCK_RAW|syscall.SOCK_CLOEXEC, syscall.NETLINK_NETFILTER)
	if err != nil {
		return -1, err
	}
	_ = syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_RCVBUFFORCE, recvBufBytes)
	if err := syscall.Bind(fd, &syscall.SockaddrNetlink{Family: syscall.AF_NETLINK, Groups: groups}); err != nil {
		syscall.Close(fd)
		return -1, err
	}
	return fd, nil
}

// openInNamespace opens, from inside the namespace `ns`, the NFLOG socket of its filter table's
// log rules and conntrack's event socket, and sets the namespace's sysctls the log needs. The
// thread that entered it is not given back (it ends with its goroutine).
func openInNamespace(ns *os.File) (nflog, ct int, err error) {
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends, still in the box's namespace
		if _, _, errno := syscall.RawSyscall(sysSetns, ns.Fd(), syscall.CLONE_NEWNET, 0); errno != 0 {
			done <- fmt.Errorf("entering the box's network namespace: %v", errno)
			return
		}
		done <- func() error {
			if err := setSysctls(); err != nil {
				return err
			}
			if nflog, err = netlinkSocket(0); err != nil {
				return err
			}
			mode := make([]byte, 6)
			binary.BigEndian.PutUint32(mode, copyBytes)
			mode[4] = copyPacket
			for _, m := range [][]byte{
				nlRequest(syscall.AF_INET, 0, nfulaCfgCmd, []byte{cfgCmdPfBind}),
				nlRequest(syscall.AF_UNSPEC, nflogGroup, nfulaCfgCmd, []byte{cfgCmdBind}),
				nlRequest(syscall.AF_UNSPEC, nflogGroup, nfulaCfgMode, mode),
				// Each packet sent at once (the default waits for 100, or a second).
				nlRequest(syscall.AF_UNSPEC, nflogGroup, nfulaCfgQthresh, []byte{0, 0, 0, 1}),
			} {
				if err := ask(nflog, m); err != nil {
					return fmt.Errorf("the packet log (NFLOG): %v", err)
				}
			}
			if ct, err = netlinkSocket(ctGroups); err != nil {
				return fmt.Errorf("conntrack's events: %v", err)
			}
			return nil
		}()
	}()
	if err = <-done; err != nil {
		for _, fd := range []int{nflog, ct} {
			if fd > 0 {
				syscall.Close(fd)
			}
		}
	}
	return nflog, ct, err
}

func setSysctls() error {
	mountProc.Do(func() {
		if err := os.MkdirAll(procDir, 0o700); err != nil {
			mountProcErr = err
			return
		}
		mountProcErr = syscall.Mount("proc", procDir, "proc", syscall.MS_NOSUID|syscall.MS_NODEV|syscall.MS_NOEXEC, "")
	})
	if mountProcErr != nil {
		return fmt.Errorf("mounting proc for the box's sysctls: %v", mountProcErr)
	}
	for name, value := range egressSysctls {
		if err := os.WriteFile(procDir+"/sys/net/netfilter/"+name, []byte(value), 0); err != nil {
			return fmt.Errorf("the box's sysctl %s: %v", name, err)
		}
	}
	return nil
}

// watch streams the egress records of the box whose main process is `pid` (in `container`) as
// JSON lines on conn: first {"ready":true} once it listens, then a record a line, until the core
// closes its side or the box's process is gone.
func watch(conn net.Conn, in *bufio.Reader, pid, container string) {
	ns, err := boxNamespace(pid, container)
	if err == nil {
		defer ns.Close()
	}
	var nflog, ct int
	if err == nil {
		nflog, ct, err = openInNamespace(ns)
	}
	if err != nil {
		_ = json.NewEncoder(conn).Encode(map[string]any{"error": err.Error()})
		return
	}
	w := &watcher{send: sender(conn), stop: make(chan struct{}), t: newTracker()}
	w.send(map[string]bool{"ready": true})
	go func() { _, _ = in.ReadByte(); w.end() }() // the core closed its side
	go w.endWhenGone(pid, container)
	w.run(nflog, ct)
}

// sender writes one JSON record a call to the core, from any goroutine; false once it cannot.
func sender(conn net.Conn) func(v any) bool {
	var mu sync.Mutex
	out := json.NewEncoder(conn)
	return func(v any) bool {
		mu.Lock()
		defer mu.Unlock()
		_ = conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
		return out.Encode(v) == nil
	}
}

// A watcher reads one box's packet log and connection tracking until it is told to stop.
type watcher struct {
	send     func(v any) bool
	stop     chan struct{}
	stopping sync.Once
	t        *tracker
	tmu      sync.Mutex
}

func (w *watcher) end() { w.stopping.Do(func() { close(w.stop) }) }

// endWhenGone stops the watch once the box's process has left the container's cgroup.
func (w *watcher) endWhenGone(pid, container string) {
	for {
		select {
		case <-w.stop:
			return
		case <-time.After(2 * time.Second):
			cgroup, err := os.ReadFile("/proc/" + pid + "/cgroup")
			if err != nil || !strings.Contains(string(cgroup), container) {
				w.end()
				return
			}
		}
	}
}

// run reads both sockets until the watch stops. Through Go's poller (non-blocking, closed to
// stop): a blocked read would hold a thread per box, and the helper may run only 64 (threads count).
func (w *watcher) run(nflog, ct int) {
	files := map[int]*os.File{}
	for _, fd := range []int{nflog, ct} {
		_ = syscall.SetNonblock(fd, true)
		files[fd] = os.NewFile(uintptr(fd), "netlink")
	}
	var readers sync.WaitGroup
	readers.Add(2)
	go func() {
		defer readers.Done()
		w.read(files[nflog], nflog, func(b []byte) (rs []*record, _ [][]byte) {
			for _, pk := range parseNflog(b) {
				if r := w.t.packet(pk, time.Now()); r != nil {
					rs = append(rs, r)
				}
			}
			return rs, nil
		})
	}()
	go func() {
		defer readers.Done()
		w.read(files[ct], ct, func(b []byte) (rs []*record, qs [][]byte) {
			for _, f := range parseConntrack(b) {
				r, q := w.t.conntrack(f)
				if r != nil {
					rs = append(rs, r)
				}
				if q != nil {
					qs = append(qs, q)
				}
			}
			return rs, qs
		})
	}()
	<-w.stop
	for _, f := range files {
		f.Close() // the readers' Read returns
	}
	readers.Wait()
}

// read hands each batch of netlink messages to handle (under the tracker's lock), sends the
// records it makes to the core and the requests it asks for back to the kernel.
func (w *watcher) read(file *os.File, fd int, handle func([]byte) ([]*record, [][]byte)) {
	buf := make([]byte, 16<<10)
	for {
		n, err := file.Read(buf)
		if err != nil {
			select {
			case <-w.stop:
				return
			default:
				continue // records lost to a full buffer (ENOBUFS)
			}
		}
		w.tmu.Lock()
		records, requests := handle(buf[:n])
		w.tmu.Unlock()
		for _, q := range requests {
			_ = syscall.Sendto(fd, q, 0, &syscall.SockaddrNetlink{Family: syscall.AF_NETLINK})
		}
		for _, r := range records {
			if !w.send(r) {
				w.end()
			}
		}
	}
}
