package web

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"kalah"
)

func TestEngineMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	a := &Engine{}
	for _, name := range []string{"kalah", "egyptian", "dec1961"} {
		r, _ := kalah.PresetRules(name)
		for i := 0; i < 15; i++ {
			p := randomEndgame(rng, r, 4+rng.IntN(6))
			an, err := a.Analyze(context.Background(), r, p, 2*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			if an.Source != "engine" || len(an.Moves) != len(p.Moves()) {
				t.Fatalf("%s: %+v", p, an)
			}
			for _, mv := range an.Moves {
				if want := moveValue(&r, p, mv.Move); !mv.Exact || mv.Value != want {
					t.Errorf("%s %s move %s: got %d exact=%v, want %d", name, p, mv.Move, mv.Value, mv.Exact, want)
				}
			}
		}
	}
	// From the start it estimates, with a depth.
	r := kalah.Standard()
	an, err := a.Analyze(context.Background(), r, r.Start(), 100*time.Millisecond)
	if err != nil || len(an.Moves) != 6 {
		t.Fatalf("start: %v %+v", err, an)
	}
	if an.Moves[0].Exact || an.Moves[0].Depth == 0 {
		t.Errorf("start move proven in 100ms? %+v", an.Moves[0])
	}
}
