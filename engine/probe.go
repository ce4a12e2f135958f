package engine

import (
	"context"
	"errors"
	"time"

	"kalah"
)

// ErrNotInPlay is returned by Test for a position in a pie-rule phase: its
// value is by player, not by side, and only Solve handles it.
var ErrNotInPlay = errors.New("null-window tests need a position in play (no pie phase)")

// Bound is the answer of a null-window test: a bound on the exact value,
// from the view of the side to move, in the units of Result.Value.
type Bound struct {
	// Value is the bound: the exact value is at least Value if Lower, else
	// at most Value. It is fail-soft: it may lie beyond the tested gamma,
	// so it says more than the test's yes or no.
	Value int `json:"value"`
	// Lower says the test succeeded (the value is at least gamma).
	Lower bool `json:"lower"`
	// Exact says Value is the exact value (a small position proven by the
	// shallow iterations, or a position whose game is over).
	Exact bool          `json:"exact,omitempty"`
	Nodes uint64        `json:"nodes"`
	Time  time.Duration `json:"time_ns"`
}

// Test reports whether the exact value of p is at least gamma, with a
// bound that proves it: a null-window search without a depth limit, after
// the shallow iterations that order the moves. It is the unit of work of a
// distributed solve: proving a value v needs one test that succeeds at v
// and one that fails at v+1, and a subtree away from the principal
// variation often needs a single test. The table is kept, so testing the
// same position again at another gamma reuses the work.
func (e *Engine) Test(ctx context.Context, p kalah.Position, gamma int) (Bound, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.check(p); err != nil {
		return Bound{}, err
	}
	start := time.Now()
	if p.Over(&e.rules) {
		q := p
		q.Settle(&e.rules)
		v := diff(&q, p.ToMove()) - diff(&p, p.ToMove())
		return Bound{Value: v, Lower: v >= gamma, Exact: true, Time: time.Since(start)}, nil
	}
	if p.Phase() != kalah.PhasePlay {
		return Bound{}, ErrNotInPlay
	}
	r, done := e.newRun(ctx)
	defer done()
	b := e.g.FromPosition(&p)
	seeds := e.g.Seeds(&b)
	var res Bound
	r.parallel(p.Total(), func(s *searcher) {
		v, _, proven := s.deepen(&b, e.idDepth(&b), false, nil)
		if s.aborted {
			return
		}
		if !proven {
			v = s.search(&b, gamma-1, gamma, exactDepth, 0, true)
			if s.aborted {
				return
			}
		}
		if s.id == 0 {
			res = Bound{Value: v, Lower: v >= gamma, Exact: proven}
		}
	})
	if r.stop.Load() {
		return Bound{}, r.err(ctx)
	}
	// Every value has the parity of the seeds left: tighten the bound.
	if !res.Exact && (res.Value-seeds)&1 != 0 {
		if res.Lower {
			res.Value++
		} else {
			res.Value--
		}
	}
	res.Value = min(max(res.Value, -seeds), seeds)
	res.Nodes, res.Time = r.nodes.Load(), time.Since(start)
	return res, nil
}
