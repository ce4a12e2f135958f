package web

import (
	"context"
	"slices"
	"sync"
	"time"

	"kalah"
	"kalah/engine"
)

// Engine is an Analyzer backed by package engine: exact values where its
// search (and endgame database, if one is given) proves them, otherwise its
// estimates with their depth. It keeps one engine a rule variant, so the
// transposition table helps when a game is analysed move by move. Positions
// the engine cannot hold go to Fallback.
type Engine struct {
	// Options configure each engine; TableMB defaults to 32 here.
	Options engine.Options
	// Fallback analyses what the engine refuses; nil means Search.
	Fallback Analyzer

	mu      sync.Mutex
	engines map[kalah.Rules]*engine.Engine
}

// maxEngines bounds the rule variants kept at once.
const maxEngines = 4

func (a *Engine) engine(r kalah.Rules) (*engine.Engine, error) {
	r.Name = "" // presets and equal custom rules share an engine
	a.mu.Lock()
	defer a.mu.Unlock()
	if e, ok := a.engines[r]; ok {
		return e, nil
	}
	if a.engines == nil || len(a.engines) >= maxEngines {
		a.engines = map[kalah.Rules]*engine.Engine{}
	}
	o := a.Options
	if o.TableMB <= 0 {
		o.TableMB = 32
	}
	e, err := engine.New(r, o)
	if err != nil {
		return nil, err
	}
	a.engines[r] = e
	return e, nil
}

// Analyze implements Analyzer. Values are final store differences, as for
// Search: the engine's, which count from the difference now, are shifted.
func (a *Engine) Analyze(ctx context.Context, r kalah.Rules, p kalah.Position, budget time.Duration) (Analysis, error) {
	if err := r.Validate(); err != nil {
		return Analysis{}, err
	}
	if err := p.CheckRules(&r); err != nil {
		return Analysis{}, err
	}
	if p.Over(&r) {
		return Analysis{}, ErrNoMoves
	}
	e, err := a.engine(r)
	if err != nil {
		return Analysis{}, err
	}
	if budget <= 0 {
		budget = time.Second
	}
	vals, err := e.Analyze(ctx, p, budget)
	// Too large a position, or too short a budget for even one iteration:
	// the plain search always finishes its first ply.
	if (err != nil && ctx.Err() == nil) || (err == nil && len(vals) == 0) {
		fb := a.Fallback
		if fb == nil {
			fb = Search{}
		}
		return fb.Analyze(ctx, r, p, budget)
	}
	if err != nil {
		return Analysis{}, err
	}
	me := p.ToMove()
	now := p.Store(me) - p.Store(me.Other())
	out := Analysis{Source: "engine"}
	for _, v := range vals {
		out.Moves = append(out.Moves, MoveValue{Move: v.Move, Value: v.Value + now, Exact: v.Exact, Depth: v.Depth})
	}
	slices.SortStableFunc(out.Moves, func(a, b MoveValue) int { return b.Value - a.Value })
	return out, nil
}
