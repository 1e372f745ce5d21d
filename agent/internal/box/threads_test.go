package box

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// threads is this process's OS thread count, as the kernel (and a pids limit) counts them.
func threads(t *testing.T) int {
	t.Helper()
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if strings.HasPrefix(line, "Threads:") {
			n, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "Threads:")))
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatal("no Threads line in /proc/self/status")
	return 0
}

func TestReservedThreadsStayForLater(t *testing.T) {
	before := threads(t)
	reserveThreads(before + 16)
	after := threads(t)
	if after < before+16 {
		t.Fatalf("threads: %d before, %d after reserving %d more", before, after, before+16)
	}
	// Reserving again needs no new thread: the runtime uses the ones it keeps (give or take the
	// one or two another test's leftover goroutines may have made meanwhile).
	reserveThreads(before + 16)
	if again := threads(t); again > after+2 {
		t.Fatalf("threads: %d after the first reserve, %d after the second", after, again)
	}
}
