package web

import (
	"context"
	"errors"
	"fmt"
	"math/bits"
	"slices"
	"time"

	"kalah"
)

// MoveValue is what an analysis knows about one legal move. Value is the
// final store difference (the mover's store less the opponent's) the move
// leads to: proven when Exact, otherwise an estimate from a search Depth
// sowings deep.
type MoveValue struct {
	Move  kalah.Move `json:"move"`
	Value int        `json:"value"`
	Exact bool       `json:"exact"`
	Depth int        `json:"depth"`
}

// Analysis is the value of every legal move of a position, best first.
type Analysis struct {
	Moves []MoveValue `json:"moves"`
	// Source names what produced the values, such as "search" or "engine".
	Source string `json:"source"`
	Nodes  uint64 `json:"nodes"`
}

// Best returns the best move, or NoMove when there is none.
func (a Analysis) Best() kalah.Move {
	if len(a.Moves) == 0 {
		return kalah.NoMove
	}
	return a.Moves[0].Move
}

// Analyzer values every legal move of a position within a time budget. The
// position must not be over.
type Analyzer interface {
	Analyze(ctx context.Context, r kalah.Rules, p kalah.Position, budget time.Duration) (Analysis, error)
}

// ErrNoMoves is returned when a position has no legal move.
var ErrNoMoves = errors.New("no legal moves: the game is over")

// Search is the built-in Analyzer: an iterative-deepening alpha-beta search
// over the final store difference. A move's value is exact once its search
// reaches the end of every line it had to look at; otherwise the horizon is
// scored by the current store difference.
type Search struct {
	// MaxDepth bounds the search in sowings; zero means 64.
	MaxDepth int
}

type searcher struct {
	r        kalah.Rules
	deadline time.Time
	ctx      context.Context
	nodes    uint64
	stopped  bool
}

var errStopped = errors.New("search stopped")

// Analyze implements Analyzer.
func (s Search) Analyze(ctx context.Context, r kalah.Rules, p kalah.Position, budget time.Duration) (Analysis, error) {
	if err := r.Validate(); err != nil {
		return Analysis{}, err
	}
	if err := p.CheckRules(&r); err != nil {
		return Analysis{}, err
	}
	if p.Over(&r) {
		return Analysis{}, ErrNoMoves
	}
	maxDepth := s.MaxDepth
	if maxDepth <= 0 {
		maxDepth = 64
	}
	if budget <= 0 {
		budget = time.Second
	}
	sr := &searcher{r: r, deadline: time.Now().Add(budget), ctx: ctx}
	moves := p.Moves()
	res := make([]MoveValue, len(moves))
	for i, m := range moves {
		res[i] = MoveValue{Move: m}
	}
	for depth := 1; depth <= maxDepth; depth++ {
		allExact := true
		for i := range res {
			if res[i].Exact {
				continue
			}
			v, exact, err := sr.root(p, res[i].Move, depth)
			if err != nil {
				if res[0].Depth == 0 && depth == 1 {
					// Not even one ply finished: finish it regardless, it is tiny.
					sr.deadline = time.Now().Add(time.Hour)
					sr.stopped = false
					v, exact, _ = sr.root(p, res[i].Move, depth)
				} else {
					return finish(res, sr.nodes), nil
				}
			}
			res[i].Value, res[i].Exact, res[i].Depth = v, exact, depth
			allExact = allExact && exact
		}
		if allExact {
			break
		}
	}
	return finish(res, sr.nodes), nil
}

func finish(res []MoveValue, nodes uint64) Analysis {
	out := slices.Clone(res)
	slices.SortStableFunc(out, func(a, b MoveValue) int { return b.Value - a.Value })
	return Analysis{Moves: out, Source: "search", Nodes: nodes}
}

// root returns the value of move m in p for the player to move.
func (sr *searcher) root(p kalah.Position, m kalah.Move, depth int) (int, bool, error) {
	c := p
	flip := sr.play(&c, m)
	v, exact := sr.search(&c, depth-1, -1<<20, 1<<20)
	if sr.stopped {
		return 0, false, errStopped
	}
	if flip {
		v = -v
	}
	return v, exact, nil
}

// play makes m in p and reports whether the player to move changed.
func (sr *searcher) play(p *kalah.Position, m kalah.Move) bool {
	if m == kalah.Swap {
		p.Swap()
		return true
	}
	before := p.ToMove()
	p.Play(&sr.r, int(m))
	return p.ToMove() != before
}

func diff(p *kalah.Position) int {
	me := p.ToMove()
	return p.Store(me) - p.Store(me.Other())
}

// search is a fail-soft alpha-beta from the view of the player to move. It
// reports whether the value is exact: no horizon was met below.
func (sr *searcher) search(p *kalah.Position, depth, alpha, beta int) (int, bool) {
	sr.nodes++
	if sr.nodes&1023 == 0 && (time.Now().After(sr.deadline) || sr.ctx.Err() != nil) {
		sr.stopped = true
	}
	if sr.stopped {
		return 0, false
	}
	if p.Over(&sr.r) {
		q := *p
		q.Settle(&sr.r)
		return diff(&q), true
	}
	if depth <= 0 {
		return diff(p), false
	}
	best, exact := -1<<20, true
	try := func(m kalah.Move) bool {
		c := *p
		flip := sr.play(&c, m)
		var v int
		var ex bool
		if flip {
			v, ex = sr.search(&c, depth-1, -beta, -alpha)
			v = -v
		} else {
			v, ex = sr.search(&c, depth-1, alpha, beta)
		}
		exact = exact && ex
		if v > best {
			best = v
		}
		if v > alpha {
			alpha = v
		}
		return alpha >= beta
	}
	// Extra-turn moves first: they are usually best and keep the tree narrow.
	mask := p.Mask()
	n := p.Houses()
	var late uint32
	for m := mask; m != 0; m &= m - 1 {
		h := bits.TrailingZeros32(m) + 1
		if p.House(p.ToMove(), h)%(2*n+1) == n+1-h {
			if try(kalah.Move(h)) {
				return best, exact
			}
		} else {
			late |= 1 << (h - 1)
		}
	}
	for m := late; m != 0; m &= m - 1 {
		if try(kalah.Move(bits.TrailingZeros32(m) + 1)) {
			return best, exact
		}
	}
	if p.CanSwap() {
		try(kalah.Swap)
	}
	return best, exact
}

// Hint returns the best move for the side to move in g by a, with a short
// budget.
func Hint(ctx context.Context, a Analyzer, g *kalah.Game, budget time.Duration) (kalah.Move, error) {
	if g.Over() {
		return kalah.NoMove, ErrNoMoves
	}
	an, err := a.Analyze(ctx, g.Rules(), g.Position(), budget)
	if err != nil {
		return kalah.NoMove, fmt.Errorf("hint: %w", err)
	}
	return an.Best(), nil
}
