package engine

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"kalah"
)

// TestExposureOrdersQuietMoves checks the order of a node's children with
// and without Tuning.Exposure (houses 1-based, the mover's then the
// opponent's, each from its owner's left).
func TestExposureOrdersQuietMoves(t *testing.T) {
	for _, tc := range []struct {
		name        string
		houses      []uint8
		with, witho []int
	}{
		// House 5 captures; 1, 2 and 4 are quiet. The opponent's house 1
		// ends in its empty house 3, opposite the mover's house 4: the
		// move from 4 empties it, one capture fewer for the opponent,
		// so it comes last with exposure.
		{"empties a target", []uint8{1, 2, 0, 1, 1, 0, 2, 0, 0, 0, 0, 1}, []int{5, 2, 1, 4}, []int{5, 4, 2, 1}},
		// Every move is quiet. The opponent's house 2 ends in its empty
		// house 4, opposite the mover's empty house 3: the moves from 1
		// and 2 fill it, so they come first with exposure.
		{"fills a target", []uint8{2, 1, 0, 0, 1, 0, 0, 2, 0, 0, 0, 1}, []int{2, 1, 5}, []int{5, 2, 1}},
	} {
		for _, on := range []bool{true, false} {
			tune := DefaultTuning()
			tune.Exposure, tune.ExposureMinSeeds = on, 0
			e, err := New(kalah.Standard(), Options{TableMB: 1, Threads: 1, NoBook: true, Tuning: &tune})
			if err != nil {
				t.Fatal(err)
			}
			r, done := e.newRun(context.Background())
			s := r.searcher(0, &r.stop, 48)
			var b board
			copy(b.H[:], tc.houses)
			n := node{b: &b, alpha: 0, beta: 1, depth: exactDepth, ply: 1, seeds: e.g.Seeds(&b)}
			s.generate(&n)
			done()
			var got []int
			for _, i := range n.order[:n.cnt] {
				got = append(got, int(i)+1)
			}
			want := tc.witho
			if on {
				want = tc.with
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s, exposure %v: order %v, want %v", tc.name, on, got, want)
			}
		}
	}
}

// TestExposureSolvesExactly solves small boards and random six-house
// positions by brute force and with the exposure ordering at every node
// (ExposureMinSeeds 0): the order of the quiet moves must change no value
// and no optimal move.
func TestExposureSolvesExactly(t *testing.T) {
	tune := DefaultTuning()
	tune.ExposureMinSeeds = 0
	check := func(r kalah.Rules, p kalah.Position) {
		t.Helper()
		memo := map[string]int{}
		want := bruteMemo(&r, pitsOf(&p), int(p.ToMove()), memo)
		e, err := New(r, Options{TableMB: 1, Threads: 1, NoBook: true, Tuning: &tune})
		if err != nil {
			t.Fatal(err)
		}
		res, err := e.Solve(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		if res.Value != want {
			t.Errorf("%s %s: solve %d, brute force %d", r, p, res.Value, want)
		}
		checkBest(t, &r, p, res, memo)
	}
	for _, sz := range [][2]int{{3, 2}, {4, 2}, {3, 3}, {2, 6}} {
		for _, r := range allRules(sz[0], sz[1]) {
			check(r, r.Start())
		}
	}
	rng := rand.New(rand.NewPCG(5, 6))
	r := kalah.Standard()
	for range 40 {
		p := r.Start()
		for !p.Over(&r) && p.Seeds(kalah.South)+p.Seeds(kalah.North) > 12 {
			ms := p.Moves()
			p.Play(&r, int(ms[rng.IntN(len(ms))]))
		}
		if !p.Over(&r) {
			check(r, p)
		}
	}
}
