package relay

import (
	"bytes"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
)

func TestRelayCarriesBothWays(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		got, _ := io.ReadAll(c)
		_, _ = c.Write(append([]byte("echo:"), got...))
		_ = c.Close()
	}()
	var out, errs bytes.Buffer
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	if code := Main([]string{"127.0.0.1", port}, strings.NewReader("hello"), &out, &errs); code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	if out.String() != "\x00echo:hello" {
		t.Fatalf("got %q", out.String())
	}
}

func TestRelayRefusedExits111(t *testing.T) {
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	ln.Close()
	var out, errs bytes.Buffer
	if code := Main([]string{"127.0.0.1", port}, strings.NewReader(""), &out, &errs); code != ExitRefused {
		t.Fatalf("exit %d, want %d", code, ExitRefused)
	}
	if out.Len() != 0 {
		t.Fatalf("wrote %q before connecting", out.String())
	}
}
