package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"kalah"
)

// selfPlay records a game of rules r played by kind ("random", or "greedy":
// the move that leaves the mover's store furthest ahead, a random one a
// fifth of the time) from seed.
func selfPlay(t *testing.T, r kalah.Rules, kind string, seed uint64) []kalah.Move {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	p := r.Start()
	var moves []kalah.Move
	for !p.Over(&r) {
		legal := p.Moves()
		m := legal[rng.IntN(len(legal))]
		if kind == "greedy" && rng.IntN(5) != 0 {
			me, best := p.ToMove(), -1<<20
			for _, c := range legal {
				q := p
				q.Play(&r, int(c))
				if d := q.Store(me) - q.Store(me.Other()); d > best {
					m, best = c, d
				}
			}
		}
		p.Play(&r, int(m))
		moves = append(moves, m)
	}
	return moves
}

// checkPlies fails where AnalyzeGame's values contradict one another: a
// move named best that gave something away, a move not named best that
// gave nothing, a move worth more than the position, a proven loss whose
// values are not both proven, or (where a solver is given) a value
// claimed exact that is not the solver's.
func checkPlies(t *testing.T, r kalah.Rules, moves []kalah.Move, vals []PlyValue, solver *Engine) (best, played int) {
	t.Helper()
	p := r.Start()
	for i, v := range vals {
		if i == len(moves) {
			break
		}
		played++
		loss := v.Value - v.PlayedValue
		switch {
		case v.Played != moves[i]:
			t.Errorf("ply %d: played %v, the game %v", i, v.Played, moves[i])
		case loss < 0:
			t.Errorf("ply %d: the move played (%+d) is worth more than the position (%+d): %+v", i, v.PlayedValue, v.Value, v)
		case v.Best == v.Played && loss != 0:
			t.Errorf("ply %d: %v named best but gives away %d: %+v", i, v.Played, loss, v)
		case v.Best != v.Played && loss == 0:
			t.Errorf("ply %d: %v gives nothing away but %v is named best: %+v", i, v.Played, v.Best, v)
		case v.PlayedExact && !v.Exact:
			t.Errorf("ply %d: the move played proven in a position estimated: %+v", i, v)
		case !v.Exact && v.Depth < 1:
			t.Errorf("ply %d: an estimate of no depth: %+v", i, v)
		}
		if loss == 0 {
			best++
		}
		if solver != nil && v.Exact {
			all, err := solver.Analyze(context.Background(), p, 0)
			if err != nil {
				t.Fatal(err)
			}
			truth := -1 << 20
			for _, mv := range all {
				truth = max(truth, mv.Value)
				if mv.Move == v.Played && v.PlayedExact && mv.Value != v.PlayedValue {
					t.Errorf("ply %d, %s: the move played proven %+d, the solver says %+d", i, p, v.PlayedValue, mv.Value)
				}
				if mv.Move == v.Best && mv.Value != v.Value {
					t.Errorf("ply %d, %s: best %v proven %+d, the solver says %+d", i, p, v.Best, v.Value, mv.Value)
				}
			}
			if truth != v.Value {
				t.Errorf("ply %d, %s: proven %+d, the solver says %+d", i, p, v.Value, truth)
			}
		}
		p.Play(&r, int(moves[i]))
	}
	return best, played
}

// TestAnalyzeGameConsistent analyses self-played games (random and greedy
// players, recorded) with estimates, as the page does a few minutes after a
// restart: no endgame database and a short time, so that most positions are
// estimated. A move named best never gives anything away, a move that gives
// nothing away is the one named best, so that each side's share of best
// moves (the page's accuracy) is the share of unmarked moves; on Kalah(4,3),
// where a solver checks them at once, every value claimed proven is the
// solver's.
func TestAnalyzeGameConsistent(t *testing.T) {
	small := kalah.Standard()
	small.Name, small.Houses, small.Seeds = "", 4, 3
	for _, tc := range []struct {
		rules  kalah.Rules
		kind   string
		seed   uint64
		budget time.Duration
		check  bool
	}{
		{kalah.Standard(), "random", 1, 600 * time.Millisecond, false},
		{kalah.Standard(), "greedy", 2, 600 * time.Millisecond, false},
		{kalah.Standard(), "greedy", 3, 150 * time.Millisecond, false},
		{kalah.Standard(), "random", 4, 0, false}, // past the deadline: shallow estimates only
		{small, "random", 5, 200 * time.Millisecond, true},
		{small, "greedy", 6, 100 * time.Millisecond, true},
	} {
		t.Run(fmt.Sprintf("%s-%d", tc.kind, tc.seed), func(t *testing.T) {
			if err := tc.rules.Validate(); err != nil {
				t.Fatal(err)
			}
			moves := selfPlay(t, tc.rules, tc.kind, tc.seed)
			e, err := New(tc.rules, Options{TableMB: 16})
			if err != nil {
				t.Fatal(err)
			}
			deadline := time.Now().Add(tc.budget)
			if tc.budget == 0 {
				deadline = time.Now().Add(-time.Second)
			}
			ctx, cancel := context.WithDeadline(context.Background(), deadline)
			defer cancel()
			vals, err := e.AnalyzeGame(ctx, tc.rules.Start(), moves, max(tc.budget/time.Duration(len(moves)+1), time.Millisecond))
			if err != nil {
				t.Fatal(err)
			}
			var solver *Engine
			if tc.check {
				if solver, err = New(tc.rules, Options{TableMB: 16, NoBook: true}); err != nil {
					t.Fatal(err)
				}
			}
			best, played := checkPlies(t, tc.rules, moves, vals, solver)
			est := 0
			for _, v := range vals {
				if !v.Exact {
					est++
				}
			}
			t.Logf("%d plies, %d estimated, %d of %d moves best", len(moves), est, best, played)
			if tc.rules == kalah.Standard() && est == 0 {
				t.Errorf("no estimate at all: the test does not test what it says")
			}
		})
	}
}
