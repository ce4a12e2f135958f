package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"kalah"
	"kalah/book"
)

// PlyValue is the analysis of one position of a game.
type PlyValue struct {
	// Value is the position's value for its side to move, in the units of
	// Result.Value (0 once the game is over).
	Value int `json:"value"`
	// Exact says Value is proven; otherwise it is an estimate at Depth.
	Exact bool `json:"exact"`
	Depth int  `json:"depth,omitempty"`
	// Best is an optimal move (NoMove once the game is over): the move
	// played where it is optimal, else the optimal house nearest the
	// store, so that the analysis is the same on every run.
	Best kalah.Move `json:"best,omitempty"`
	// Played is the move played from here (NoMove at the end of the
	// game), and PlayedValue its value for the mover: Value less
	// PlayedValue is what the move gave away, never less than zero, zero
	// exactly when Played is Best. PlayedExact says PlayedValue is
	// proven. Value and PlayedValue come from one set of values: both
	// proven, or both from one estimate of every move at Depth (the
	// played move's from the same search as the best's), or, where the
	// position is proven and the move played proven not optimal but not
	// its value, PlayedValue an estimate no higher than the proven bound
	// (Value less 2: every move's value has the parity of the seeds left).
	Played      kalah.Move `json:"played,omitempty"`
	PlayedValue int        `json:"played_value"`
	PlayedExact bool       `json:"played_exact,omitempty"`
	Book        bool       `json:"book,omitempty"` // from a book, without a search
	Nodes       uint64     `json:"nodes"`
}

// AnalyzeGame values every position of the game that starts at start and
// plays moves: position i is the one before moves[i], the last the one
// after them. With limit zero every value is exact (it runs until done or
// ctx is cancelled); otherwise a position not proven within limit gets an
// estimate of that time (every legal move valued by one search of one
// depth, the best and the move played among them), and so may the
// positions before it. If ctx has a
// deadline, each position's limit is instead its share of the time left
// (plyLimit), so that the analysis ends by the deadline; positions it
// reaches after the deadline (a slow or busy machine) get shallow estimates
// of lateDepth plies. A cancelled ctx ends it with the cancellation.
//
// It works backwards from the end: the value of the move played from a
// position is known from the position after it, so one null-window test
// shows whether another move is better; only when one is (the move played
// was a mistake) is the position solved. Each proof also leaves in the
// table much of the proof of the position before it.
func (e *Engine) AnalyzeGame(ctx context.Context, start kalah.Position, moves []kalah.Move, limit time.Duration) ([]PlyValue, error) {
	if err := e.check(start); err != nil {
		return nil, fmt.Errorf("analyze game: %w", err)
	}
	if start.Phase() != kalah.PhasePlay {
		return nil, fmt.Errorf("analyze game: %w", ErrNotInPlay)
	}
	pos := []kalah.Position{start}
	for i, m := range moves {
		p := pos[i]
		if p.Over(&e.rules) {
			return nil, fmt.Errorf("analyze game: move %d (%s) after the end", i+1, m)
		}
		if !slices.Contains(p.Moves(), m) || m == kalah.Swap {
			return nil, fmt.Errorf("analyze game: move %d (%s) is not legal in %s", i+1, m, p)
		}
		p.Play(&e.rules, int(m))
		pos = append(pos, p)
	}
	out := make([]PlyValue, len(pos))
	for i := len(pos) - 1; i >= 0; i-- {
		p := pos[i]
		if p.Over(&e.rules) {
			out[i] = PlyValue{Exact: true}
			continue
		}
		pv := PlyValue{Played: kalah.NoMove}
		known := false // the played move's value is exact
		if i < len(moves) {
			pv.Played = moves[i]
			pv.PlayedValue, known = e.playedValue(p, pos[i+1], out[i+1])
			pv.PlayedExact = known
		}
		var err error
		if pv, err = e.analyzePly(ctx, p, pv, known, plyLimit(ctx, limit, i+1)); err != nil {
			return nil, err
		}
		out[i] = pv
	}
	return out, nil
}

// lateDepth is the depth of the estimates of the positions AnalyzeGame
// reaches after its deadline: a fraction of a millisecond each.
const lateDepth = 4

// plyLimit is the time for one position of AnalyzeGame when left
// positions remain, this one included: limit, or, if ctx has a deadline,
// the position's share of the time left, half for the exact attempt and
// half for the estimate that follows if it runs out, a tenth held back so
// that the position's limit ends before ctx does. The later positions,
// analysed first, leave the time they do not use to the earlier ones,
// which are the harder. Zero stays zero: exact, however long.
func plyLimit(ctx context.Context, limit time.Duration, left int) time.Duration {
	if limit <= 0 {
		return limit
	}
	if d, ok := ctx.Deadline(); ok {
		return max(time.Until(d)*9/10/time.Duration(2*left), time.Millisecond)
	}
	return limit
}

// playedValue is the value of the move from p to q for p's mover, given
// q's analysis, and whether it is exact.
func (e *Engine) playedValue(p, q kalah.Position, next PlyValue) (int, bool) {
	me := p.ToMove()
	if q.Over(&e.rules) {
		q.Settle(&e.rules)
		return diff(&q, me) - diff(&p, me), true
	}
	fin := diff(&q, q.ToMove()) + next.Value
	if q.ToMove() != me {
		fin = -fin
	}
	return fin - diff(&p, me), next.Exact
}

// analyzePly values p, whose played move (if any) is in pv: from a book,
// by a test of the played move when its value is known, by a solve, or by
// an estimate when limit runs out.
func (e *Engine) analyzePly(ctx context.Context, p kalah.Position, pv PlyValue, known bool, limit time.Duration) (PlyValue, error) {
	e.mu.Lock()
	vals, ok := e.bookMoves(&p)
	e.mu.Unlock()
	if ok {
		pv.Value, pv.Exact, pv.Book = book.Best(vals), true, true
		pv.Best = kalah.Move(book.Choice(vals))
		// The book's own value of the move played, where it holds it: the
		// same proof as the best's. Where it holds only that the move is
		// not optimal (Unknown), its value is the next position's if that
		// is proven, else an estimate below the bound the book proves.
		var optimal []kalah.Move
		if pv.Played != kalah.NoMove {
			switch v := int(vals[pv.Played-1]); v {
			case book.Unknown:
				for i, w := range vals {
					if int(w) == pv.Value {
						optimal = append(optimal, kalah.Move(i+1))
					}
				}
			default:
				pv.PlayedValue, pv.PlayedExact = v, true
			}
		}
		return settle(pv, optimal), nil
	}
	cctx, cancel := ctx, context.CancelFunc(func() {})
	if limit > 0 {
		cctx, cancel = context.WithTimeout(ctx, limit)
	}
	defer cancel()
	// fatal sorts an error: a deadline, the position's or the whole
	// analysis's, leads to an estimate; a cancellation or anything else
	// ends the analysis.
	fatal := func(err error) error {
		switch {
		case ctx.Err() != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded):
			return ctx.Err()
		case errors.Is(err, context.DeadlineExceeded):
			return nil
		}
		return err
	}
	solve := true
	if known {
		// Every move's value has the parity of the seeds left, so a test
		// one above the played move's value settles whether it is best.
		b, err := e.Test(cctx, p, pv.PlayedValue+1)
		pv.Nodes += b.Nodes
		if err == nil && !b.Lower {
			pv.Value, pv.Exact, pv.Best = pv.PlayedValue, true, pv.Played
			return settle(pv, nil), nil
		}
		if err != nil {
			if err := fatal(err); err != nil {
				return pv, err
			}
			solve = false // out of time
		}
	}
	if solve {
		res, err := e.solve(cctx, p, 0)
		pv.Nodes += res.Nodes
		if err == nil {
			pv.Value, pv.Exact, pv.Best = res.Value, true, slices.Max(res.Best)
			return settle(pv, res.Best), nil
		}
		if err := fatal(err); err != nil {
			return pv, err
		}
	}
	// Out of time: an estimate of every move by one search of one depth,
	// searched for as long again; past the whole analysis's deadline (a
	// slow or busy machine), a shallow one, so that every position still
	// has its value. The best and the move played are valued by the same
	// search, so that the marks the page draws from them agree.
	var set []MoveValue
	var err error
	if ctx.Err() == nil && limit > 0 {
		if set, err = e.Analyze(ctx, p, limit); err != nil {
			if err := fatal(ctx.Err()); err != nil {
				return pv, err
			}
			set, err = nil, nil // no iteration in time: the shallow one below
		}
	}
	if err == nil && len(set) == 0 {
		set, err = e.analyzeDepth(context.WithoutCancel(ctx), p, lateDepth)
	}
	if err != nil {
		return pv, err
	}
	return fromSet(pv, set), nil
}

// fromSet fills pv from one set of values of every legal move of its
// position: the best value, the move played where it reaches it (else the
// best house nearest the store), and the move played's value from the same
// set.
func fromSet(pv PlyValue, vals []MoveValue) PlyValue {
	pv.Value, pv.Best = vals[0].Value, vals[0].Move
	pv.Exact, pv.Depth = vals[0].Exact, vals[0].Depth
	for _, v := range vals {
		if v.Value > pv.Value || v.Value == pv.Value && v.Move > pv.Best {
			pv.Value, pv.Best = v.Value, v.Move
		}
		pv.Exact = pv.Exact && v.Exact
		pv.Depth = max(pv.Depth, v.Depth)
	}
	if pv.Exact {
		pv.Depth = 0
	}
	if pv.Played != kalah.NoMove {
		for _, v := range vals {
			if v.Move == pv.Played {
				pv.PlayedValue, pv.PlayedExact = v.Value, pv.Exact
			}
		}
		if pv.PlayedValue == pv.Value {
			pv.Best = pv.Played
		}
	}
	return pv
}

// settle makes a proven position's played move agree with its value:
// named best exactly when it is optimal (optimal lists every optimal move,
// or is nil where the move played's value is proven), its value the
// position's when it is, and at most the proven bound (two below, by
// parity) when it is proven not optimal without its value.
func settle(pv PlyValue, optimal []kalah.Move) PlyValue {
	if pv.Played == kalah.NoMove {
		return pv
	}
	switch {
	case slices.Contains(optimal, pv.Played) || pv.PlayedExact && pv.PlayedValue == pv.Value:
		pv.Best, pv.PlayedValue, pv.PlayedExact = pv.Played, pv.Value, true
	case pv.PlayedExact:
		// Proven and below the value: the proofs agree.
	case optimal != nil:
		// Proven not optimal, its value not proven: an estimate kept below
		// the bound.
		pv.PlayedValue = min(pv.PlayedValue, pv.Value-2)
	}
	return pv
}

// analyzeDepth values every legal move of p (in play) by one search of
// depth plies each: Analyze's iteration of that depth, whatever the time.
func (e *Engine) analyzeDepth(ctx context.Context, p kalah.Position, depth int) ([]MoveValue, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	r, done := e.newRun(ctx)
	defer done()
	allExact := true
	vals, ok := e.moveValues(p, r.estimate(e, depth, &allExact))
	if !ok {
		return nil, r.err(ctx)
	}
	for i := range vals {
		vals[i].Exact = allExact
		if !allExact {
			vals[i].Depth = depth
		}
	}
	return vals, nil
}
