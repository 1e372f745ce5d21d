package box

import (
	"bytes"
	"testing"
	"time"
)

// A copier that reaches the terminal only after its deadline passed (a busy machine) still copies
// what the process wrote before it exited, and then ends.
func TestTheTerminalsLastOutputIsCopiedWhenItsReaderIsLate(t *testing.T) {
	master, slave, err := openPty()
	if err != nil {
		t.Fatal(err)
	}
	defer master.Close()
	defer slave.Close()
	if _, err := slave.Write([]byte("bye\n")); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond) // the line reaches the master's side
	_ = master.SetReadDeadline(time.Now().Add(-time.Second))
	var out bytes.Buffer
	done := make(chan struct{})
	go func() {
		copyTerminal(&out, master)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the copy did not end with the terminal still open and quiet")
	}
	if !bytes.Contains(out.Bytes(), []byte("bye")) {
		t.Fatalf("copied %q, want the line written before the deadline", out.String())
	}
}
