package netfilter

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

func TestApplyRefusesWhatIsNotTheContainersProcess(t *testing.T) {
	id := strings.Repeat("ab", 32)
	for _, c := range []struct{ pid, container, want string }{
		{"x", id, "a process id"},
		{"0", id, "a process id"},
		{"1", "short", "a process id"},
		// This test's own process is in no container of that id.
		{strconv.Itoa(os.Getpid()), id, "is not in container abababababab"},
		{"999999999", id, "the box is not running"},
	} {
		err := apply(c.pid, c.container, []string{"/bin/true"})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("apply(%s, %.12s): %v, want %q", c.pid, c.container, err, c.want)
		}
	}
}
