package kalah

import (
	"strings"
	"testing"
)

func TestMovesText(t *testing.T) {
	for _, c := range []struct {
		ms   []Move
		want string
	}{
		{nil, ""},
		{[]Move{3}, "3"},
		{[]Move{1, Swap, 6}, "1 swap 6"},
	} {
		if got := MovesText(c.ms); got != c.want {
			t.Errorf("MovesText(%v) = %q, want %q", c.ms, got, c.want)
		}
		// Each word reads back as its move.
		for i, f := range strings.Fields(c.want) {
			if m, err := ParseMove(f); err != nil || m != c.ms[i] {
				t.Errorf("ParseMove(%q) = %v, %v; want %v", f, m, err, c.ms[i])
			}
		}
	}
}
