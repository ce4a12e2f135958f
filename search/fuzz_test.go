package search

import (
	"context"
	"testing"

	"kalah"
)

// positionFrom builds a position from fuzz bytes: a rule preset, the
// houses a side, the side to move and each pit's seeds.
func positionFrom(data []byte) (kalah.Rules, kalah.Position, bool) {
	if len(data) < 3 {
		return kalah.Rules{}, kalah.Position{}, false
	}
	presets := kalah.Presets()
	r := presets[int(data[0])%len(presets)].Rules
	r.Pie = false
	n := 1 + int(data[1])%8
	r.Houses = n
	side := kalah.Side(data[2] & 1)
	data = data[3:]
	seeds := func(i int) int {
		if i < len(data) {
			return int(data[i]) % 16
		}
		return 0
	}
	south, north := make([]int, n), make([]int, n)
	for i := range n {
		south[i], north[i] = seeds(i), seeds(n+i)
	}
	p, err := kalah.NewPosition(south, north, seeds(2*n), seeds(2*n+1), side)
	if err != nil || p.Over(&r) || p.Mask() == 0 {
		return r, p, false
	}
	return r, p, true
}

// FuzzSearch checks on any position that every algorithm returns a legal
// move and that alpha-beta agrees with minimax.
func FuzzSearch(f *testing.F) {
	f.Add([]byte{0, 5, 0, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 0, 0})
	f.Add([]byte{4, 5, 1, 13, 0, 1, 2, 0, 3, 0, 0, 7, 1, 1, 9, 3, 5})
	f.Add([]byte{7, 7, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		r, p, ok := positionFrom(data)
		if !ok {
			return
		}
		var scores [2]int
		for i, a := range []Algorithm{Minimax, AlphaBeta, KBAB} {
			res, err := Search(context.Background(), &r, p, Params{Algorithm: a, Utility: Knowledge, Depth: 4})
			if err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			if !p.Legal(res.Move) {
				t.Fatalf("%s %s: illegal move %s", r, p, res.Move)
			}
			if i < 2 {
				scores[i] = res.Score
			}
		}
		if scores[0] != scores[1] {
			t.Fatalf("%s %s: minimax %d, alpha-beta %d", r, p, scores[0], scores[1])
		}
	})
}
