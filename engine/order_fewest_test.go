package engine

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"kalah"
	"kalah/egdb"
)

// TestFewestAway solves positions of Kalah(6,4) with 26 to 34 seeds in
// play, both capture rules, with and without Tuning.FewestAway on one
// thread: the same values and best moves, by other searches (a key no node
// used would visit the same nodes). Whether the order saves nodes is
// measured, not tested: BenchmarkSolveRandom64DB and docs/PERFORMANCE.md
// (it does from about 40 seeds; at these sizes it is about even).
func TestFewestAway(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for _, capture := range []bool{false, true} {
		r := kalah.Standard()
		r.EmptyCapture = capture
		db, err := egdb.Build(context.Background(), r, 12, egdb.BuildOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var total [2]uint64
		for range 12 {
			p := r.Start()
			left := 26 + rng.IntN(9)
			for !p.Over(&r) && p.Seeds(kalah.South)+p.Seeds(kalah.North) > left {
				ms := p.Moves()
				p.Play(&r, int(ms[rng.IntN(len(ms))]))
			}
			if p.Over(&r) {
				continue
			}
			var res [2]Result
			for i, fewest := range []bool{false, true} {
				tune := DefaultTuning()
				tune.FewestAway = fewest
				e, err := New(r, Options{TableMB: 16, Threads: 1, DB: db, NoBook: true, Tuning: &tune})
				if err != nil {
					t.Fatal(err)
				}
				if res[i], err = e.Solve(context.Background(), p); err != nil {
					t.Fatal(err)
				}
				total[i] += res[i].Nodes
			}
			if res[0].Value != res[1].Value || !slices.Equal(res[0].Best, res[1].Best) {
				t.Errorf("%s %s: without the order %+d best %v, with it %+d best %v", r, p, res[0].Value, res[0].Best, res[1].Value, res[1].Best)
			}
		}
		t.Logf("%s: %d nodes without the order, %d with it", r, total[0], total[1])
		if total[1] == total[0] {
			t.Errorf("%s: %d nodes with the fewest-away order and without: the order changed nothing", r, total[0])
		}
		db.Close()
	}
}
