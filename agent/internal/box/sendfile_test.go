package box

import (
	"bytes"
	"io"
	"net"
	"os"
	"path/filepath"
	"testing"
)

// unixPair is both ends of a connected unix socket.
func unixPair(t *testing.T) (net.Conn, net.Conn) {
	path := filepath.Join(t.TempDir(), "s.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		accepted <- c
	}()
	dialed, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	other := <-accepted
	t.Cleanup(func() { dialed.Close(); other.Close() })
	return dialed, other
}

func TestSendFileMovesAFilesBytesAndStopsAtItsEnd(t *testing.T) {
	out, in := unixPair(t)
	body := bytes.Repeat([]byte("abcdefgh"), 3<<20/8+123) // over the send buffer: sendfile waits for the reader
	file := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(file, body, 0o644); err != nil {
		t.Fatal(err)
	}
	f, _ := os.Open(file)
	defer f.Close()
	got := make(chan []byte)
	go func() {
		b, _ := io.ReadAll(in)
		got <- b
	}()
	// Asked for more than the file holds: the count says how much there was.
	limited := &io.LimitedReader{R: f, N: int64(len(body)) + 10}
	n, handled, err := sendFile(out, limited)
	out.Close()
	if !handled || err != nil || n != int64(len(body)) || limited.N != 10 {
		t.Fatalf("sendFile: %d %v %v, left %d", n, handled, err, limited.N)
	}
	if b := <-got; !bytes.Equal(b, body) {
		t.Fatalf("read %d bytes, not the file's %d", len(b), len(body))
	}
}

func TestSendFileLeavesPipesToTheCopy(t *testing.T) {
	out, _ := unixPair(t)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if n, handled, err := sendFile(out, r); handled || n != 0 || err != nil {
		t.Fatalf("a pipe: %d %v %v, want it left to the copy", n, handled, err)
	}
}
