package search

import (
	"context"
	"testing"

	"kalah"
)

// benchPositions are a start and two middle-game positions on each board.
var benchPositions = map[string][]string{
	"kalah": {
		"4,4,4,4,4,4/4,4,4,4,4,4 0-0 S",
		"5,5,0,6,5,1/4,5,5,1,6,5 2-3 S",
		"0,7,1,8,2,0/3,0,6,6,1,2 7-5 N",
	},
	"thesis": {
		"6,6,6,6,6,6/6,6,6,6,6,6 0-0 S",
		"7,7,1,8,0,9/1,8,7,7,2,8 5-3 N",
	},
}

// BenchmarkSearch searches fixed positions to a fixed depth with each
// algorithm and utility and reports the speed in nodes a second.
func BenchmarkSearch(b *testing.B) {
	for _, bc := range []struct {
		name  string
		rules string
		algo  Algorithm
		util  Utility
		depth int
	}{
		{"minimax/simple/kalah/d7", "kalah", Minimax, Simple, 7},
		{"minimax/knowledge/kalah/d7", "kalah", Minimax, Knowledge, 7},
		{"alphabeta/simple/kalah/d11", "kalah", AlphaBeta, Simple, 11},
		{"alphabeta/knowledge/kalah/d11", "kalah", AlphaBeta, Knowledge, 11},
		{"kbab/simple/kalah/d11", "kalah", KBAB, Simple, 11},
		{"kbab/knowledge/kalah/d11", "kalah", KBAB, Knowledge, 11},
		{"minimax/knowledge/thesis/d6", "thesis", Minimax, Knowledge, 6},
		{"alphabeta/knowledge/thesis/d10", "thesis", AlphaBeta, Knowledge, 10},
		{"kbab/knowledge/thesis/d10", "thesis", KBAB, Knowledge, 10},
	} {
		b.Run(bc.name, func(b *testing.B) {
			r, _ := kalah.PresetRules(bc.rules)
			var ps []kalah.Position
			for _, s := range benchPositions[bc.rules] {
				ps = append(ps, pos(b, s))
			}
			var nodes uint64
			b.ReportAllocs()
			for b.Loop() {
				for _, p := range ps {
					res, _ := Search(context.Background(), &r, p, Params{Algorithm: bc.algo, Utility: bc.util, Depth: bc.depth})
					nodes += res.Nodes
				}
			}
			b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
			b.ReportMetric(float64(nodes)/float64(b.N), "nodes/op")
		})
	}
}
