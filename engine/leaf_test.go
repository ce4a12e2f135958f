package engine

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"kalah"
	"kalah/egdb"
)

// TestLeafSearchesTheSameNodes solves positions of Kalah(6,3) and (6,4),
// both capture rules, with a small endgame database, with and without
// Tuning.Leaf on one thread, and with the leaf's probe early and late
// (Tuning.ProbeLate): the leaf search must give the same value and move
// and visit the very same nodes (the same moves in the same order), so a
// change to either search that the other does not follow fails here.
func TestLeafSearchesTheSameNodes(t *testing.T) {
	const k = 8
	rng := rand.New(rand.NewPCG(11, 12))
	for _, capture := range []bool{false, true} {
		for _, seeds := range []int{3, 4} {
			r := kalah.Standard()
			r.Seeds, r.EmptyCapture = seeds, capture
			db, err := egdb.Build(context.Background(), r, k, egdb.BuildOptions{})
			if err != nil {
				t.Fatal(err)
			}
			solve := func(p kalah.Position, leaf, late bool) Result {
				t.Helper()
				tune := DefaultTuning()
				tune.Leaf, tune.ProbeLate = leaf, late
				e, err := New(r, Options{TableMB: 4, Threads: 1, NoBook: true, DB: db, Tuning: &tune})
				if err != nil {
					t.Fatal(err)
				}
				// With the leaf search every node below the root of these
				// positions (at most 21 seeds) is the leaf's; without it none:
				// else the two solves below would compare a search with itself.
				run, done := e.newRun(context.Background())
				lm := run.searcher(0, &run.stop, r.TotalSeeds()).leafMax
				done()
				if leaf && lm <= 21 || !leaf && lm != 0 {
					t.Fatalf("%s, leaf %v: the leaf search takes nodes below %d seeds", r, leaf, lm)
				}
				res, err := e.Solve(context.Background(), p)
				if err != nil {
					t.Fatal(err)
				}
				return res
			}
			positions := []kalah.Position{}
			if seeds == 3 {
				positions = append(positions, r.Start())
			}
			for len(positions) < 12 {
				p := r.Start()
				for !p.Over(&r) && p.Seeds(kalah.South)+p.Seeds(kalah.North) > 16+rng.IntN(6) {
					ms := p.Moves()
					p.Play(&r, int(ms[rng.IntN(len(ms))]))
				}
				if !p.Over(&r) {
					positions = append(positions, p)
				}
			}
			for _, p := range positions {
				without := solve(p, false, false)
				for _, late := range []bool{true, false} {
					with := solve(p, true, late)
					if with.Value != without.Value || !slices.Equal(with.Best, without.Best) || with.Nodes != without.Nodes {
						t.Errorf("%s %s: with the leaf search (probe late %v) value %d moves %v in %d nodes; without %d, %v in %d",
							r, p, late, with.Value, with.Best, with.Nodes, without.Value, without.Best, without.Nodes)
					}
				}
			}
			db.Close()
		}
	}
}
