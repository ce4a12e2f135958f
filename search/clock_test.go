package search

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"kalah"
	"kalah/player"
	"kalah/referee"
)

// slowPace makes searching take fake time: a millisecond for every look at
// the clock (every checkEvery nodes), as on a machine a few hundred times
// slower than this one, so that under synctest's fake clock the search
// meets its deadline in the middle of an iteration.
func slowPace() { time.Sleep(time.Millisecond) }

// Under a per-move limit and with no grace, every move of a whole game
// between two searchers that ignore nothing but the clock comes back
// within the limit, as the referee measures it; and the clock, not the
// depth, is what stopped them.
func TestSearchersKeepToTheClock(t *testing.T) {
	for _, algo := range []Algorithm{Minimax, AlphaBeta, KBAB} {
		t.Run(algo.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				const limit = 200 * time.Millisecond
				mk := func() *Player { return &Player{Algorithm: algo, Utility: Knowledge, Pace: slowPace} }
				ref := referee.Referee{PerMove: limit}
				g, err := kalah.NewGame(kalah.Standard())
				if err != nil {
					t.Fatal(err)
				}
				out, err := ref.Play(context.Background(), g, [2]player.Player{mk(), mk()})
				if err != nil {
					t.Fatal(err)
				}
				if term := g.Termination(); term != kalah.Normal {
					t.Fatalf("game ended by %s: %v", term, out.Reason)
				}
				var longest time.Duration
				for _, m := range out.Moves {
					if m.Elapsed > limit {
						t.Errorf("move %s took %v, limit %v", m.Move, m.Elapsed, limit)
					}
					longest = max(longest, m.Elapsed)
				}
				if longest < limit/2 {
					t.Errorf("the longest move took %v: the clock never mattered", longest)
				}
			})
		})
	}
}

// The same game with a player that does not look at the clock is
// forfeited on time: the test above can fail.
func TestClockTestCanFail(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ref := referee.Referee{PerMove: 200 * time.Millisecond}
		g, _ := kalah.NewGame(kalah.Standard())
		slow := &Player{Algorithm: AlphaBeta, Utility: Knowledge, Depth: 12, Pace: slowPace}
		blind := clockBlind{slow, make(chan struct{}, 1)}
		if _, err := ref.Play(context.Background(), g, [2]player.Player{blind, slow}); err != nil {
			t.Fatal(err)
		}
		if g.Termination() != kalah.Timeout {
			t.Errorf("game ended by %s, want a timeout", g.Termination())
		}
		<-blind.done // the abandoned search ends in its own (fake) time
	})
}

// clockBlind searches to its fixed depth whatever the clock says.
type clockBlind struct {
	p    *Player
	done chan struct{}
}

func (c clockBlind) Move(ctx context.Context, g *kalah.Game, _ player.Clock) (kalah.Move, error) {
	defer func() { c.done <- struct{}{} }()
	return c.p.Move(context.WithoutCancel(ctx), g, player.Clock{})
}

// A search stops promptly when its context ends, with the best move of
// the last completed iteration.
func TestSearchStopsWhenContextEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, _ := kalah.PresetRules("thesis")
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		start := time.Now()
		res, err := Search(ctx, &r, r.Start(), Params{Algorithm: Minimax, Utility: Simple, Pace: slowPace})
		if err != nil {
			t.Fatal(err)
		}
		if took := time.Since(start); took > 51*time.Millisecond {
			t.Errorf("search took %v after a 50ms context", took)
		}
		if !res.Stopped || res.Depth < 1 || !func() bool { p := r.Start(); return p.Legal(res.Move) }() {
			t.Errorf("result %+v", res)
		}
	})
}
