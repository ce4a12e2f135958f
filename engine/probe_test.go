package engine

import (
	"context"
	"math/rand/v2"
	"testing"

	"kalah"
)

// TestTestAgreesWithSolve checks null-window tests against exact values on
// random positions of small variants, at gammas around and at the value.
func TestTestAgreesWithSolve(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	ctx := context.Background()
	searched := 0 // tests answered by the null-window search, not the shallow iterations
	for _, r := range []kalah.Rules{
		{Houses: 5, Seeds: 3},
		{Houses: 4, Seeds: 3, EmptyCapture: true, End: kalah.MoverStuck},
		{Houses: 4, Seeds: 4, EarlyEnd: true},
	} {
		solver, err := New(r, Options{TableMB: 8, Threads: 1})
		if err != nil {
			t.Fatal(err)
		}
		tester, err := New(r, Options{TableMB: 8, Threads: 2, MaxDepth: 2})
		if err != nil {
			t.Fatal(err)
		}
		for game := 0; game < 4; game++ {
			p := r.Start()
			for ply := rng.IntN(12); ply > 0 && !p.Over(&r); ply-- {
				ms := p.Moves()
				p.Play(&r, int(ms[rng.IntN(len(ms))]))
			}
			want, err := solver.Solve(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			for _, gamma := range []int{want.Value - 3, want.Value - 1, want.Value, want.Value + 1, want.Value + 2} {
				b, err := tester.Test(ctx, p, gamma)
				if err != nil {
					t.Fatal(err)
				}
				if !b.Exact {
					searched++
				}
				switch {
				case b.Lower != (want.Value >= gamma):
					t.Fatalf("%s %s gamma %d: lower %v, value %d", r, p, gamma, b.Lower, want.Value)
				case b.Exact && b.Value != want.Value:
					t.Fatalf("%s %s: exact %d, value %d", r, p, b.Value, want.Value)
				case b.Lower && b.Value > want.Value, !b.Lower && b.Value < want.Value:
					t.Fatalf("%s %s gamma %d: bound %+v does not hold for value %d", r, p, gamma, b, want.Value)
				}
			}
		}
	}
	if searched < 20 {
		t.Fatalf("only %d tests reached the null-window search", searched)
	}
}

func TestTestRefusesPie(t *testing.T) {
	r := kalah.Rules{Houses: 4, Seeds: 3, Pie: true}
	e, err := New(r, Options{TableMB: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Test(context.Background(), r.Start(), 0); err != ErrNotInPlay {
		t.Fatalf("pie opening: err %v, want ErrNotInPlay", err)
	}
}
