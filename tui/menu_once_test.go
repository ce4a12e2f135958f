package tui

import (
	"strings"
	"testing"
)

// TestOpponentsOnce: the menu offers each opponent once, though a level
// and a kind of player share a name (perfect).
func TestOpponentsOnce(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range Opponents() {
		k := strings.ToLower(c.Spec)
		if seen[k] {
			t.Errorf("%s offered twice", c.Spec)
		}
		seen[k] = true
	}
	if !seen["perfect"] {
		t.Error("perfect not offered")
	}
}
