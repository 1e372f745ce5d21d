package store

import (
	"bytes"
	"encoding/json"
	"testing"
)

// A bad command line changes nothing and says what is wrong, as JSON with a kind.
func TestRefusesBadArguments(t *testing.T) {
	cases := [][]string{
		{"nope"},
		{"create", "--top", "relative/dir", "--id", "a"},
		{"create", "--top", "/mnt/top/../etc", "--id", "a"},
		{"create", "--top", "/mnt/top", "--id", "../escape"},
		{"create", "--top", "/mnt/top", "--id", "UPPER"},
		{"snapshot", "--top", "/mnt/top", "--source", "a/b", "--id", "c"},
		{"prepare", "--image", "/store/x.txt", "--size", "1"},
		{"prepare", "--image", "/store/x.img", "--size", "0"},
		{"release", "--image", "/store/x.img", "--loop", "-3"},
		{"create", "--top", "/mnt/top", "--id", "a", "extra"},
		{"create", "--unknown", "x"},
	}
	for _, argv := range cases {
		var out bytes.Buffer
		code := Main(argv, &out, &bytes.Buffer{})
		var answer struct {
			Error *opError `json:"error"`
		}
		if err := json.Unmarshal(out.Bytes(), &answer); err != nil || answer.Error == nil {
			t.Errorf("%v: want a JSON error, got %q", argv, out.String())
			continue
		}
		if code == 0 || answer.Error.Kind != "invalid" {
			t.Errorf("%v: exit %d kind %q, want non-zero and invalid", argv, code, answer.Error.Kind)
		}
	}
}
