package main

import (
	"testing"

	"kalah/tournament"
)

// TestSPRTBar draws the likelihood ratio between its bounds: the # moves
// with the ratio, the | stays at zero, and a ratio past a bound sits at
// that end.
func TestSPRTBar(t *testing.T) {
	for _, tc := range []struct {
		llr  float64
		want string
	}{
		{0, "H0 -2.94 [....#....] +2.94 H1  llr +0.00"},
		{1.5, "H0 -2.94 [....|.#..] +2.94 H1  llr +1.50"},
		{-2.9, "H0 -2.94 [#...|....] +2.94 H1  llr -2.90"},
		{2.6616278164550953, "H0 -2.94 [....|...#] +2.94 H1  llr +2.66"},
		{7, "H0 -2.94 [....|...#] +2.94 H1  llr +7.00"},
		{-9, "H0 -2.94 [#...|....] +2.94 H1  llr -9.00"},
	} {
		st := tournament.SPRTState{LLR: tc.llr}
		st.Lower, st.Upper = tournament.Bounds(0.05, 0.05)
		if got := sprtBar(st, 9); got != tc.want {
			t.Errorf("llr %v:\n got %q\nwant %q", tc.llr, got, tc.want)
		}
	}
}
