package heuristic

import (
	"testing"

	"kalah"
)

// BenchmarkPekarTree runs the modified tree search at each depth on a
// position without a strictly positive move, so that the tree search
// decides, and reports nodes a second.
func BenchmarkPekarTree(b *testing.B) {
	r := kalah.Standard()
	p, _ := kalah.ParsePosition("7,7,7,7,7,7/7,7,7,7,7,7 0-0 S")
	for _, d := range []int{1, 2, 3, 4, 6} {
		b.Run("depth="+string(rune('0'+d)), func(b *testing.B) {
			t := NewPekarTree(d)
			var nodes uint64
			for b.Loop() {
				_, _, _, n, _ := t.Choose(&r, &p)
				nodes += n
			}
			b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
			b.ReportMetric(float64(nodes)/float64(b.N), "nodes/op")
		})
	}
}

// BenchmarkPekar times the deterministic player's choice.
func BenchmarkPekar(b *testing.B) {
	r := kalah.Standard()
	p, _ := kalah.ParsePosition("2,2,2,2,8,2/1,0,4,4,4,4 0-0 S")
	for b.Loop() {
		PekarChoice(&r, &p)
	}
}
