package web

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"kalah"
	"kalah/egdb"
	"kalah/engine"
)

// Engine is an Analyzer backed by package engine: exact values where its
// search (and endgame database, if one is given) proves them, otherwise its
// estimates with their depth. It keeps one engine a rule variant, so the
// transposition table helps when a game is analysed move by move. Positions
// the engine cannot hold go to Fallback.
type Engine struct {
	// Options configure each engine; TableMB defaults to 32 here. If DB is
	// nil, the largest endgame database for the rules found in EgdbDir is
	// used.
	Options engine.Options
	// EgdbDir is where endgame databases are looked for (file names as
	// egdb.FileName gives); empty means egdb.DefaultDir, "-" none.
	EgdbDir string
	// Fallback analyses what the engine refuses; nil means Search.
	Fallback Analyzer

	mu      sync.Mutex
	engines map[kalah.Rules]*engine.Engine
	dbs     map[kalah.Rules]string // the endgame database each engine probes
}

func (a *Engine) dbOf(r kalah.Rules) string {
	r.Name = ""
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.dbs[r]
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
		a.dbs = map[kalah.Rules]string{}
	}
	o := a.Options
	if o.TableMB <= 0 {
		o.TableMB = 32
	}
	if o.DB == nil {
		o.DB = a.findDB(r)
	}
	if o.DB != nil {
		a.dbs[r] = fmt.Sprintf("the endgame database of %d seeds", o.DB.Seeds())
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
	if d := a.dbOf(r); d != "" {
		out.Source = "engine with " + d
	}
	if vals[0].Book {
		out.Source = "opening book" // every value exact, without a search
	}
	for _, v := range vals {
		out.Moves = append(out.Moves, MoveValue{Move: v.Move, Value: v.Value + now, Exact: v.Exact, Depth: v.Depth})
	}
	slices.SortStableFunc(out.Moves, func(a, b MoveValue) int { return b.Value - a.Value })
	return out, nil
}

// findDB opens the endgame database for r with the most seeds in EgdbDir,
// or returns nil if there is none that opens and checks out.
func (a *Engine) findDB(r kalah.Rules) *egdb.DB {
	dir := a.EgdbDir
	if dir == "-" || egdb.Supported(r) != nil {
		return nil
	}
	if dir == "" {
		d, err := egdb.DefaultDir()
		if err != nil {
			return nil
		}
		dir = d
	}
	for k := 64; k >= 1; k-- {
		path := filepath.Join(dir, egdb.FileName(r, k))
		if _, err := os.Stat(path); err != nil {
			continue
		}
		db, err := egdb.Open(path, false)
		if err != nil {
			continue
		}
		if db.Check(r) != nil {
			db.Close()
			continue
		}
		return db
	}
	return nil
}
