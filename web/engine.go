package web

import (
	"context"
	"errors"
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
// estimates with their depth. It keeps engines for each rule variant, so
// the transposition table helps when a game is analysed move by move.
// Positions the engine cannot hold go to Fallback, and so does a request
// that finds every engine of its rules busy for a quarter of its budget: an
// analysis always answers within its budget, never queued behind another's
// (a 300 ms hint once waited 3.2 s behind a guest's 10 s analysis).
type Engine struct {
	// Options configure each engine; TableMB defaults to 32 here. If DB is
	// nil, the largest endgame database for the rules found in EgdbDir is
	// used.
	Options engine.Options
	// EgdbDir is where endgame databases are looked for (file names as
	// egdb.FileName gives); empty means egdb.DefaultDir, "-" none.
	EgdbDir string
	// Fallback analyses what the engine refuses or cannot take in time;
	// nil means Search.
	Fallback Analyzer
	// Engines is how many engines each rule variant may have, each
	// analysing one position at a time (default 1; each holds its own
	// transposition table of Options.TableMB).
	Engines int
	// Recheck is how often a variant's engines look in EgdbDir for a
	// larger database than theirs (one built since: kalah egdb build, or
	// the perfect player's on first use), and are replaced by engines
	// that probe it: zero means a minute, negative every request.
	Recheck time.Duration
	// FirstUse gives the perfect player's database built on first use in
	// this process for the rules, or the smaller one it makes first while
	// it is built, which the engines take as they would a larger file;
	// nil means engine.FirstUseDB where EgdbDir is the default (where
	// those are built), none elsewhere.
	FirstUse func(kalah.Rules) *egdb.DB

	mu    sync.Mutex
	pools map[kalah.Rules]*enginePool
}

// enginePool holds one rule variant's engines: free ones in free, made of
// at most max, each probing db (nil: none; set when the pool is made),
// found in EgdbDir when checked.
type enginePool struct {
	free    chan *engine.Engine
	made    int
	max     int
	db      *egdb.DB
	checked time.Time
}

// newPool returns an empty pool whose engines will probe db.
func (a *Engine) newPool(db *egdb.DB) *enginePool {
	p := &enginePool{max: max(a.Engines, 1), db: db, checked: time.Now()}
	p.free = make(chan *engine.Engine, p.max)
	return p
}

// recheck replaces the pool of r, if it is due to look again, by one
// whose engines probe a larger database found in EgdbDir since. The
// engines in use go back to the pool replaced, and are dropped with it.
func (a *Engine) recheck(r kalah.Rules) {
	if a.Options.DB != nil {
		return
	}
	every := a.Recheck
	if every == 0 {
		every = time.Minute
	}
	a.mu.Lock()
	p := a.pools[r]
	if p == nil || time.Since(p.checked) < every {
		a.mu.Unlock()
		return
	}
	p.checked = time.Now()
	have := 0
	if p.db != nil {
		have = p.db.Seeds()
	}
	a.mu.Unlock()
	if _, k := a.largestDB(r); k <= have && seedsOf(a.firstUse(r)) <= have {
		return
	}
	db := a.findDB(r) // reads and checks the file: outside the lock
	if db == nil || db.Seeds() <= have {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.pools[r] == p {
		a.pools[r] = a.newPool(db)
	}
}

// maxVariants bounds the rule variants kept at once.
const maxVariants = 4

// errEnginesBusy says every engine of a variant stayed busy for the
// time a request could wait.
var errEnginesBusy = errors.New("every engine busy")

// acquire takes a free engine for r, making one if the variant has fewer
// than Engines, else waiting up to wait for one to be released.
func (a *Engine) acquire(ctx context.Context, r kalah.Rules, wait time.Duration) (*engine.Engine, *enginePool, error) {
	if a.FirstUse == nil && a.EgdbDir == "" {
		// An analysis asked: the perfect player's database is built now
		// where builds on first use are on (kalah serve) and it is
		// missing, as a game against perfect would (at once otherwise).
		engine.StartDBBuild(r)
	}
	r.Name = "" // presets and equal custom rules share engines
	a.recheck(r)
	a.mu.Lock()
	p, ok := a.pools[r]
	if !ok {
		if a.pools == nil || len(a.pools) >= maxVariants {
			// Engines in use go back to their forgotten pool and are
			// dropped with it.
			a.pools = map[kalah.Rules]*enginePool{}
		}
		db := a.Options.DB
		if db == nil {
			db = a.findDB(r)
		}
		p = a.newPool(db)
		a.pools[r] = p
	}
	select {
	case e := <-p.free:
		a.mu.Unlock()
		return e, p, nil
	default:
	}
	if p.made < p.max {
		p.made++
		o := a.Options
		if o.TableMB <= 0 {
			o.TableMB = 32
		}
		o.DB = p.db
		a.mu.Unlock()
		e, err := engine.New(r, o)
		if err != nil {
			a.mu.Lock()
			p.made--
			a.mu.Unlock()
			return nil, nil, err
		}
		return e, p, nil
	}
	a.mu.Unlock()
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case e := <-p.free:
		return e, p, nil
	case <-t.C:
		return nil, nil, errEnginesBusy
	case <-ctx.Done():
		return nil, nil, ctx.Err()
	}
}

// Analyze implements Analyzer. Values are final store differences, as for
// Search: the engine's, which count from the difference now, are shifted.
// It returns within budget (and the fallback's first ply), whatever other
// requests are doing.
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
	if budget <= 0 {
		budget = time.Second
	}
	deadline := time.Now().Add(budget)
	fallback := func() (Analysis, error) {
		fb := a.Fallback
		if fb == nil {
			fb = Search{}
		}
		return fb.Analyze(ctx, r, p, max(time.Until(deadline), time.Millisecond))
	}
	e, pool, err := a.acquire(ctx, r, budget/4)
	if errors.Is(err, errEnginesBusy) {
		return fallback()
	}
	if err != nil && ctx.Err() != nil {
		return Analysis{}, err
	}
	if err != nil {
		return fallback() // rules the engine cannot hold
	}
	vals, err := e.Analyze(ctx, p, max(time.Until(deadline), time.Millisecond))
	pool.free <- e
	// Too large a position, or too short a budget for even one iteration:
	// the plain search always finishes its first ply.
	if (err != nil && ctx.Err() == nil) || (err == nil && len(vals) == 0) {
		return fallback()
	}
	if err != nil {
		return Analysis{}, err
	}
	me := p.ToMove()
	now := p.Store(me) - p.Store(me.Other())
	out := Analysis{Source: "engine"}
	if pool.db != nil {
		out.Source = fmt.Sprintf("engine with the endgame database of %d seeds", pool.db.Seeds())
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

// AnalyzeGame implements GameAnalyzer with one of the variant's engines,
// held for the whole game (its table carries each proof to the position
// before). Each position gets its share of the budget left; one not
// proven within it gets an estimate, and so do those before it.
func (a *Engine) AnalyzeGame(ctx context.Context, r kalah.Rules, start kalah.Position, moves []kalah.Move, budget time.Duration) ([]engine.PlyValue, error) {
	if err := r.Validate(); err != nil {
		return nil, err
	}
	if budget <= 0 {
		budget = time.Second
	}
	e, pool, err := a.acquire(ctx, r, budget/4)
	if err != nil {
		return nil, err
	}
	defer func() { pool.free <- e }()
	// Each position has at least an equal share of the budget, and the
	// time the later ones (analysed first) leave goes to the earlier.
	ctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	share := max(budget/time.Duration(len(moves)+1), time.Millisecond)
	return e.AnalyzeGame(ctx, start, moves, share)
}

// dbDir is where the engines look for databases, "" for nowhere.
func (a *Engine) dbDir(r kalah.Rules) string {
	dir := a.EgdbDir
	if dir == "-" || egdb.Supported(r) != nil {
		return ""
	}
	if dir == "" {
		d, err := egdb.DefaultDir()
		if err != nil {
			return ""
		}
		dir = d
	}
	return dir
}

// largestDB returns the file of r's database with the most seeds in
// EgdbDir and its seeds, without opening it (0 if there is none).
func (a *Engine) largestDB(r kalah.Rules) (string, int) {
	dir := a.dbDir(r)
	if dir == "" {
		return "", 0
	}
	for k := 64; k >= 1; k-- {
		path := filepath.Join(dir, egdb.FileName(r, k))
		if _, err := os.Stat(path); err == nil {
			return path, k
		}
	}
	return "", 0
}

// firstUse returns the perfect player's database built on first use in
// this process, or its bridge while it is built (FirstUse), if any.
func (a *Engine) firstUse(r kalah.Rules) *egdb.DB {
	get := a.FirstUse
	if get == nil && a.EgdbDir == "" {
		get = engine.FirstUseDB
	}
	if get == nil || a.dbDir(r) == "" {
		return nil
	}
	if db := get(r); db != nil && db.Check(r) == nil {
		return db
	}
	return nil
}

// seedsOf returns db's seeds, 0 for none.
func seedsOf(db *egdb.DB) int {
	if db == nil {
		return 0
	}
	return db.Seeds()
}

// findDB opens the endgame database for r with the most seeds in EgdbDir,
// or returns nil if there is none that opens and checks out. The perfect
// player's built on first use in this process is taken instead of a file
// of no more seeds (it is that file, or the bridge before it).
func (a *Engine) findDB(r kalah.Rules) *egdb.DB {
	dir := a.dbDir(r)
	if dir == "" {
		return nil
	}
	fu := a.firstUse(r)
	for k := 64; k > seedsOf(fu); k-- {
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
	return fu
}
