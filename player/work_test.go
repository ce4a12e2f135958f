package player_test

import (
	"testing"
	"time"

	"kalah"
	_ "kalah/heuristic"
	"kalah/player"
)

func TestWork(t *testing.T) {
	std := kalah.Standard()
	big := std
	big.Houses, big.Seeds = 16, 64
	l := player.Limits{Time: 30 * time.Second}
	for _, tc := range []struct {
		spec  string
		rules kalah.Rules
		want  time.Duration
	}{
		{"random", std, time.Millisecond},
		{"easy", std, time.Millisecond},
		{"pekar-tree:2", std, 5142 * time.Nanosecond}, // 36 positions
		{"pekar-tree:20", big, 30 * time.Second},      // a tree past any Duration: the limit
		{"pekar-tree:4:time=2s", std, 2 * time.Second},
		{"pekar-tree:4:time=2m", std, 30 * time.Second},
	} {
		got, err := player.Work(tc.spec, tc.rules, l)
		if err != nil || got != tc.want {
			t.Errorf("Work(%s, %dx%d) = %v, %v; want %v", tc.spec, tc.rules.Houses, tc.rules.Seeds, got, err, tc.want)
		}
	}
	if n := player.GamePlies(std); n != 48 {
		t.Errorf("GamePlies(standard) = %d", n)
	}
}
