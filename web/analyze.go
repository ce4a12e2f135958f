package web

import (
	"context"
	"fmt"
	"slices"
	"time"

	"kalah"
	"kalah/engine"
	"kalah/internal/httpapi"
	"kalah/search"
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

// GameAnalyzer is an Analyzer that also values whole games at once
// (Engine: engine.AnalyzeGame, backwards from the end, so that only the
// mistakes are solved): every position's value for its side to move, its
// optimal move and the value of the move played, exact where proven within
// the budget and the same on every run. The game must start in play (no pie
// phase).
type GameAnalyzer interface {
	Analyzer
	AnalyzeGame(ctx context.Context, r kalah.Rules, start kalah.Position, moves []kalah.Move, budget time.Duration) ([]engine.PlyValue, error)
}

// ErrNoMoves is returned when a position has no legal move.
var ErrNoMoves = fmt.Errorf("%w: no legal moves: the game is over", httpapi.ErrBadRequest)

// Search values moves with package search's alpha-beta (iterative
// deepening, the simple utility: the store difference) where the engine
// cannot: positions too large for it. A move's value is exact when the
// search below it reached the end of every line; otherwise it is the store
// difference at the horizon. The budget is shared equally by the moves.
type Search struct {
	// MaxDepth bounds the search in sowings, the move itself included;
	// zero means search.MaxDepth.
	MaxDepth int
}

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
	if maxDepth <= 0 || maxDepth > search.MaxDepth {
		maxDepth = search.MaxDepth
	}
	if budget <= 0 {
		budget = time.Second
	}
	moves := p.Moves()
	each := budget / time.Duration(len(moves))
	out := Analysis{Source: "search"}
	me := p.ToMove()
	for _, m := range moves {
		c := p
		if m == kalah.Swap {
			c.Swap()
		} else {
			c.Play(&r, int(m))
		}
		mv := MoveValue{Move: m, Depth: 1}
		switch {
		case c.Over(&r):
			mv.Value, mv.Exact = c.Store(me)-c.Store(me.Other()), true
		case maxDepth == 1:
			mv.Value = c.Store(me) - c.Store(me.Other())
		default:
			res, err := search.Search(ctx, &r, c, search.Params{Algorithm: search.AlphaBeta, Utility: search.Simple,
				Depth: maxDepth - 1, Deadline: time.Now().Add(each)})
			if err != nil {
				return Analysis{}, err
			}
			v := res.Score / search.StoreWeight
			if c.ToMove() != me {
				v = -v
			}
			mv.Value, mv.Exact, mv.Depth = v, res.Resolved, res.Depth+1
			out.Nodes += res.Nodes
		}
		out.Moves = append(out.Moves, mv)
	}
	slices.SortStableFunc(out.Moves, func(a, b MoveValue) int { return b.Value - a.Value })
	return out, nil
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
