package kalah

import (
	"fmt"
	"testing"
)

// TestOpenings counts the openings of Kalah(6,4) and checks each is
// playable: 6 of one ply; of two, 5 first moves that pass the turn times
// North's 6 replies, and house 3's extra turn followed by South's 5 other
// houses (house 3 is empty now): 35.
func TestOpenings(t *testing.T) {
	r := Standard()
	for plies, want := range map[int]int{0: 1, 1: 6, 2: 35} {
		got := Openings(r, plies)
		if len(got) != want {
			t.Errorf("%d plies: %d openings, want %d", plies, len(got), want)
		}
		seen := map[string]bool{}
		for _, line := range got {
			g, err := NewGame(r)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range line {
				if _, err := g.Play(m); err != nil {
					t.Fatalf("opening %v: %v", line, err)
				}
			}
			key := g.Position().String()
			k := fmt.Sprint(key, line)
			if len(line) != plies || seen[k] {
				t.Errorf("opening %v: %d plies or seen before", line, len(line))
			}
			seen[k] = true
		}
	}
}
