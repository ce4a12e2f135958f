package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"kalah"
	"kalah/book"
	"kalah/egdb"
	"kalah/internal/cores"
)

// ErrTooLarge is returned for positions the engine's compact board cannot
// hold (more than 255 seeds in all).
var ErrTooLarge = errors.New("position too large for the engine")

// ErrNodeLimit is returned by a call that searched Options.NodeLimit nodes
// without an answer.
var ErrNodeLimit = errors.New("node limit reached")

// Options configure an Engine. The zero value is usable.
type Options struct {
	// TableMB is the size of the transposition table in MiB (default 256).
	TableMB int
	// Threads is the number of search threads (default: GOMAXPROCS, at most
	// 2). Extra threads search the same tree over the shared table, taking
	// the children of nodes another thread has split (Tuning.Split).
	Threads int
	// DB is an endgame database for the rules, probed whenever the seeds in
	// the houses are at most its K. It must match the rules (egdb.DB.Check).
	DB *egdb.DB
	// MaxDepth is the deepest iteration of the depth-limited search before
	// an exact search. Its value is the first guess of MTD(f), and the moves
	// it leaves in the table order the exact search. The default (0)
	// depends on the position (idDepth).
	MaxDepth int
	// Progress, if not nil, is called by the main search thread after each
	// null-window search of MTD(f), so a long search can show how it goes.
	// It must return quickly.
	Progress func(Progress)
	// NodeLimit, if not zero, stops a call once its threads have searched
	// that many nodes: Solve, Best, Analyze and Test then return
	// ErrNodeLimit, Search its best move so far. With one thread the nodes
	// a search takes do not depend on the machine, so the limit is a
	// measure of "fast" that a book build can repeat exactly.
	NodeLimit uint64
	// ProgressEvery is how many nodes of the main thread pass between the
	// reports within a pass (default 4 M, about a second).
	ProgressEvery uint64
	// NoBook turns off the opening books (package book): by default Solve,
	// Analyze, Search and the players answer at once, exactly, for every
	// position an embedded book of the rules holds. Benchmarks and tests of
	// the search set it.
	NoBook bool
	// NoStrategyBook keeps the opening books but not the strategy books:
	// the engine player's strength is its own search, the strategy books
	// (every reply of the perfect player) are the perfect player's, and
	// with them the two levels would play the same moves.
	NoStrategyBook bool
	// Tuning, if not nil, replaces DefaultTuning: benchmarks and tests
	// compare a search with and without a feature.
	Tuning *Tuning
	// Debug, if not nil, receives a line for every pass of MTD(f) of every
	// thread and for every root move of an exact pass (kalah solve writes
	// it to standard error with KALAH_ENGINE_DEBUG=1).
	Debug io.Writer
}

// Progress is where a search stands: the iteration (a depth, or 0 for the
// exact search), the bounds on the value found so far (from the view of
// the side to move at the root, relative to the current stores), and the
// nodes of every thread so far (to within a thousand a thread) and the time.
type Progress struct {
	Depth  int // 0: the exact search
	Lo, Hi int // the value lies in [Lo, Hi]
	// Running says a null-window pass is under way, testing whether the
	// value is at least Testing; otherwise the pass that tested it has just
	// ended.
	Running bool
	Testing int
	Nodes   uint64
	Elapsed time.Duration
}

// Engine searches positions of one rule variant. Its transposition table
// persists across calls, so analysing a game move by move reuses work. An
// Engine serializes its calls; it is safe for concurrent use.
type Engine struct {
	mu    sync.Mutex
	rules kalah.Rules
	g     game
	tt    *table
	o     Options
	tune  Tuning
	books []*book.Book
	start time.Time // for Debug's times
}

// New returns an engine for rules r.
func New(r kalah.Rules, o Options) (*Engine, error) {
	if err := r.Validate(); err != nil {
		return nil, err
	}
	if o.TableMB <= 0 {
		o.TableMB = 256
	}
	if o.Threads <= 0 {
		o.Threads = min(cores.N(), 2)
	}
	if o.MaxDepth < 0 {
		o.MaxDepth = 0
	}
	if o.DB != nil {
		if err := o.DB.Check(r); err != nil {
			return nil, err
		}
	}
	if o.ProgressEvery == 0 {
		o.ProgressEvery = 1 << 22
	}
	e := &Engine{rules: r, g: newGame(r), tt: newTable(o.TableMB), o: o, tune: DefaultTuning(), start: time.Now()}
	if o.Tuning != nil {
		e.tune = *o.Tuning
	}
	if !o.NoBook {
		for _, b := range book.For(r) {
			if b.Kind() != book.Strategy || !o.NoStrategyBook {
				e.books = append(e.books, b)
			}
		}
	}
	return e, nil
}

// Rules returns the engine's rules.
func (e *Engine) Rules() kalah.Rules { return e.rules }

// Result is what Solve and Search find about a position.
type Result struct {
	// Value is for the side to move: the final store difference it can
	// force from here minus the store difference now (so the start of
	// Kalah(6,4) has value 8). With the pie rule in its first two moves it
	// is the final store difference of the player to move (whichever side
	// it ends up on) minus the current difference of the side to move.
	Value int `json:"value"`
	// Exact says Value is proven; otherwise it is an estimate at Depth.
	Exact bool `json:"exact"`
	// Depth is the deepest completed iteration (plies), or 0 if exact.
	Depth int `json:"depth"`
	// Best are the moves that achieve Value (all of them when exact and
	// from Solve; the one chosen otherwise).
	Best []kalah.Move `json:"best"`
	// PV is a principal variation: a line of best play from here.
	PV    []kalah.Move  `json:"pv"`
	Nodes uint64        `json:"nodes"`
	Time  time.Duration `json:"time_ns"`
	// Book says the answer came from an opening book, without a search;
	// its PV then ends where the book does.
	Book bool `json:"book,omitempty"`
}

// MoveValue is the value of one legal move, from the mover's view, in the
// same units as Result.Value.
type MoveValue struct {
	Move  kalah.Move `json:"move"`
	Value int        `json:"value"`
	Exact bool       `json:"exact"`
	Depth int        `json:"depth"`          // plies of the estimate, 0 if exact
	Book  bool       `json:"book,omitempty"` // from an opening book
}

// run is one search over the shared table by the main thread and helpers.
type run struct {
	e         *Engine
	deadline  time.Time
	stop      atomic.Bool
	overLimit atomic.Bool // stopped by Options.NodeLimit
	nodes     atomic.Uint64
	live      atomic.Uint64 // every thread's nodes so far, added every thousand or so, for progress
	threads   int
	started   time.Time
	busy      *busyTable // nil on one thread
	splits    *splits    // nil on one thread
}

func (e *Engine) newRun(ctx context.Context) (*run, func()) {
	r := &run{e: e, threads: e.o.Threads, started: time.Now()}
	if r.threads > 1 {
		if e.tune.Split {
			r.splits = &splits{}
		} else {
			r.busy = newBusyTable()
		}
	}
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			r.stop.Store(true)
		case <-done:
		}
	}()
	e.tt.gen++
	return r, func() { close(done) }
}

// err is why a stopped run stopped: its node limit or ctx's end.
func (r *run) err(ctx context.Context) error {
	if r.overLimit.Load() {
		return ErrNodeLimit
	}
	return ctx.Err()
}

func (r *run) searcher(id int, stop *atomic.Bool, total int) *searcher {
	e := r.e
	t := e.tune
	s := &searcher{g: &e.g, tt: e.tt, dbK: -1, tune: t, stop: stop, runStop: &r.stop, live: &r.live, deadline: r.deadline, id: id,
		nodeLimit: e.o.NodeLimit, overLimit: &r.overLimit, onlyMine: !e.rules.SowOpponentStore,
		rankKeys: !e.g.EarlyEnd() && exactKeys(e.g.M, total), debug: e.o.Debug, debugStart: e.start}
	s.ttMin, s.etcMin = t.TTMinSeeds, t.ETCMinSeeds
	if id == 0 && e.o.Progress != nil {
		s.progress, s.progressEvery, s.started = e.o.Progress, e.o.ProgressEvery, r.started
	}
	if e.o.DB != nil {
		s.db, s.dbK = e.o.DB, e.o.DB.Seeds()
		s.ttMin, s.etcMin = max(s.ttMin, s.dbK+t.DBTTMargin), max(s.etcMin, s.dbK+t.DBETCMargin)
	}
	s.exposureMin = t.ExposureMinSeeds
	if s.db != nil {
		s.exposureMin = max(s.exposureMin, s.dbK+t.DBExposureMargin)
	}
	if !t.Exposure {
		s.exposureMin = 1 << 30
	}
	s.fewest = t.FewestAway && s.onlyMine
	s.busy, s.splits, s.busyMin = r.busy, r.splits, max(s.ttMin, t.BusyMinSeeds)
	if s.db != nil {
		s.busyMin = max(s.busyMin, s.dbK+t.DBBusyMargin)
	}
	if s.leafOK() {
		s.leafMax = s.etcMin
		if s.busy != nil || s.splits != nil {
			s.leafMax = min(s.leafMax, s.busyMin)
		}
	}
	return s
}

// estimate returns a function giving a position's depth-d value from
// the mover's view, searched on every thread, and whether the search was
// not stopped; it clears *allExact when a value is only an estimate.
func (r *run) estimate(e *Engine, d int, allExact *bool) func(q kalah.Position) (int, bool) {
	return func(q kalah.Position) (int, bool) {
		b := e.g.FromPosition(&q)
		var v int
		var proven bool
		r.parallel(q.Total(), func(s *searcher) {
			h := s.horizon
			vv, _ := s.mtd(&b, 0, d)
			if s.id == 0 {
				v, proven = vv, s.horizon == h
			}
		})
		*allExact = *allExact && proven
		return v, !r.stop.Load()
	}
}

// parallel runs f on the main searcher and on helper searchers until the
// main one returns; it returns the main searcher.
func (r *run) parallel(total int, f func(s *searcher)) *searcher {
	main := r.searcher(0, &r.stop, total)
	var helpStop atomic.Bool
	var wg sync.WaitGroup
	helpers := make([]*searcher, r.threads-1)
	for i := range helpers {
		h := r.searcher(i+1, &helpStop, total)
		helpers[i] = h
		wg.Go(func() {
			if r.splits != nil {
				h.work() // takes children of the split points of f's search
			} else {
				f(h)
			}
		})
	}
	f(main)
	helpStop.Store(true)
	wg.Wait()
	n := main.nodes
	for _, h := range helpers {
		n += h.nodes
	}
	r.nodes.Add(n)
	return main
}

// check validates a position for the engine's rules.
func (e *Engine) check(p kalah.Position) error {
	if err := p.CheckRules(&e.rules); err != nil {
		return err
	}
	if p.Total() > 255 {
		return fmt.Errorf("%w: %d seeds", ErrTooLarge, p.Total())
	}
	return nil
}

func diff(p *kalah.Position, s kalah.Side) int { return p.Store(s) - p.Store(s.Other()) }

// Solve finds the exact value of p, every move that achieves it and a
// principal variation. It runs until done or until ctx is cancelled (then it
// returns ctx's error).
func (e *Engine) Solve(ctx context.Context, p kalah.Position) (Result, error) {
	return e.solve(ctx, p, 60)
}

// solve is Solve with a principal variation of up to plies moves.
func (e *Engine) solve(ctx context.Context, p kalah.Position, plies int) (Result, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.check(p); err != nil {
		return Result{}, err
	}
	start := time.Now()
	res := Result{Exact: true}
	if p.Over(&e.rules) {
		q := p
		q.Settle(&e.rules)
		res.Value = diff(&q, p.ToMove()) - diff(&p, p.ToMove())
		res.Time = time.Since(start)
		return res, nil
	}
	if res, ok := e.bookResult(p, start); ok {
		return res, nil
	}
	r, done := e.newRun(ctx)
	defer done()
	if p.Phase() != kalah.PhasePlay {
		vals, ok := e.moveValues(p, func(q kalah.Position) (int, bool) { return e.exact(r, q) })
		if !ok {
			return Result{}, r.err(ctx)
		}
		res.Value = -1 << 20
		for _, mv := range vals {
			res.Value = max(res.Value, mv.Value)
		}
		for _, mv := range vals {
			if mv.Value == res.Value {
				res.Best = append(res.Best, mv.Move)
			}
		}
	} else {
		v, rm, ok := e.exactRoot(r, p)
		if !ok {
			return Result{}, r.err(ctx)
		}
		res.Value = v
		// A move is optimal if a null-window test shows it reaches v, unless
		// the search's last pass sorted it already. The helpers test the
		// moves in the other order, so that the main thread finds their
		// proofs in the table.
		b := e.g.FromPosition(&p)
		var moves []int
		var good []bool
		for i := 0; i < e.g.N; i++ {
			switch {
			case b.H[i] == 0 || rm.below&(1<<i) != 0:
			case rm.tied&(1<<i) != 0:
				res.Best = append(res.Best, kalah.Move(i+1))
			default:
				moves = append(moves, i)
				good = append(good, false)
			}
		}
		if len(moves) > 0 {
			r.parallel(p.Total(), func(s *searcher) {
				for j := range moves {
					if s.id%2 == 1 {
						j = len(moves) - 1 - j
					}
					c := b
					d, extra, over := e.g.Play(&c, moves[j])
					ok := d >= v
					if !over {
						ok = s.reaches(&c, d, extra, v)
					}
					if s.aborted {
						return
					}
					if s.id == 0 {
						good[j] = ok
					}
				}
			})
		}
		if r.stop.Load() {
			return Result{}, r.err(ctx)
		}
		if e.o.Debug != nil {
			fmt.Fprintf(e.o.Debug, "solve: root moves checked (%v)\n", time.Since(e.start).Round(time.Millisecond))
		}
		for j, i := range moves {
			if good[j] {
				res.Best = append(res.Best, kalah.Move(i+1))
			}
		}
		slices.Sort(res.Best)
	}
	if p.Phase() == kalah.PhasePlay && plies > 0 {
		res.PV = e.pv(r, p, res.Value, plies)
		if e.o.Debug != nil {
			fmt.Fprintf(e.o.Debug, "solve: principal variation found (%v)\n", time.Since(e.start).Round(time.Millisecond))
		}
	}
	if r.stop.Load() {
		return Result{}, r.err(ctx)
	}
	res.Nodes = r.nodes.Load()
	res.Time = time.Since(start)
	return res, nil
}

// exact returns the exact value of q (in play, not over); ok is false if
// the run was stopped.
func (e *Engine) exact(r *run, q kalah.Position) (int, bool) {
	v, _, ok := e.exactRoot(r, q)
	return v, ok
}

// rootMoves is what the last pass of an exact search learned about the
// root moves, by house bit: those worth less than the value and those worth
// it. A move in neither is unknown.
type rootMoves struct{ below, tied uint32 }

// exactRoot is exact, and reports which root moves reach the value where
// its last pass found out (searcher.floor).
func (e *Engine) exactRoot(r *run, q kalah.Position) (int, rootMoves, bool) {
	b := e.g.FromPosition(&q)
	var v int
	var rm rootMoves
	r.parallel(q.Total(), func(s *searcher) {
		vv, _, _ := s.deepen(&b, e.idDepth(&b), true, nil)
		if s.id == 0 {
			v = vv
			if s.floorPass && s.floor == vv {
				rm = rootMoves{s.below, s.tied}
			}
		}
	})
	return v, rm, !r.stop.Load()
}

// Iterative deepening before an exact search: from deepIDSeeds seeds in the
// houses it goes to deepIDDepth plies, below that one ply. The depth-limited
// moves, found with a leaf value of zero, mislead the exact search of a
// mid-sized board (Kalah(6,4) takes more nodes with 4 to 24 plies than with
// 1 to 3), but on a large one the first exact pass is hopeless without the
// order they leave in the table (Kalah(6,5) searches twice as long with one
// ply): docs/ENGINE.md, "Tuning".
const (
	deepIDSeeds = 49
	deepIDDepth = 16
)

// idDepth is the deepest depth-limited iteration before the exact search
// of b: Options.MaxDepth, or by default by the seeds in b's houses.
func (e *Engine) idDepth(b *board) int {
	switch {
	case e.o.MaxDepth > 0:
		return e.o.MaxDepth
	case e.g.Seeds(b) >= deepIDSeeds:
		return deepIDDepth
	}
	return 1
}

// moveValues returns the value of every legal move of p (not over), given
// the value of positions in play; ok is false if value was stopped.
func (e *Engine) moveValues(p kalah.Position, value func(kalah.Position) (int, bool)) ([]MoveValue, bool) {
	me := p.ToMove()
	d0 := diff(&p, me)
	var out []MoveValue
	for _, m := range p.Moves() {
		q := p
		var fin int // the mover's final difference after m
		if m == kalah.Swap {
			q.Swap()
			// The opponent now plays the side to move; the player who
			// swapped gets the opposite of its final difference.
			v, ok := e.final(q, value)
			if !ok {
				return nil, false
			}
			fin = -v
		} else {
			eff := q.Play(&e.rules, int(m))
			switch {
			case eff&kalah.End != 0:
				fin = diff(&q, me)
			default:
				v, ok := e.final(q, value)
				if !ok {
					return nil, false
				}
				if q.ToMove() == me {
					fin = v
				} else {
					fin = -v
				}
			}
		}
		out = append(out, MoveValue{Move: m, Value: fin - d0, Exact: true})
	}
	return out, true
}

// final returns the final store difference the player to move in q can
// force, for the side it plays now.
func (e *Engine) final(q kalah.Position, value func(kalah.Position) (int, bool)) (int, bool) {
	if q.Phase() == kalah.PhasePlay {
		v, ok := value(q)
		return diff(&q, q.ToMove()) + v, ok
	}
	vals, ok := e.moveValues(q, value)
	if !ok {
		return 0, false
	}
	best := -1 << 20
	for _, mv := range vals {
		best = max(best, mv.Value)
	}
	return best + diff(&q, q.ToMove()), true
}

// pv follows optimal moves from p, whose exact value is v, up to plies
// moves: at each step the first move shown (by a narrow search, cheap once
// the table holds the proof) to keep the value.
func (e *Engine) pv(r *run, p kalah.Position, v, plies int) []kalah.Move {
	var line []kalah.Move
	s := r.searcher(0, &r.stop, p.Total())
	defer func() { r.nodes.Add(s.nodes) }()
	b := e.g.FromPosition(&p)
	for len(line) < plies {
		next, nv, found := b, 0, false
		// The table's move first: the search's proof went through it, so
		// it is almost always the one, and a wrong guess costs a
		// refutation search of its own.
		first := -1
		if e.g.Seeds(&b) >= s.ttMin {
			if t, ok := s.tt.probe(s.key(&b)); ok && t.move >= 0 && b.H[t.move] != 0 {
				first = t.move
			}
		}
		for j := e.g.N; j >= 0 && !found; j-- {
			i := j
			if j == e.g.N {
				i = first
			} else if j == first {
				continue
			}
			if i < 0 || b.H[i] == 0 {
				continue
			}
			c := b
			d, extra, over := e.g.Play(&c, i)
			switch {
			case over:
				found = d == v
			case extra:
				nv = v - d
				found = s.search(&c, nv-1, nv+1, exactDepth, 1, true) == nv
			default:
				nv = d - v
				found = s.search(&c, nv-1, nv+1, exactDepth, 1, true) == nv
			}
			if s.aborted {
				return line
			}
			if found {
				line = append(line, kalah.Move(i+1))
				if over {
					return line
				}
				next = c
			}
		}
		if !found {
			return line // cannot happen with a correct value
		}
		b, v = next, nv
	}
	return line
}

// Analyze returns the value of every legal move of p: exact values if limit
// is zero (running until done or ctx is cancelled), else the best estimates
// reachable within limit, each with its depth (exact where proven).
func (e *Engine) Analyze(ctx context.Context, p kalah.Position, limit time.Duration) ([]MoveValue, error) {
	if limit <= 0 {
		e.mu.Lock()
		defer e.mu.Unlock()
		if err := e.check(p); err != nil {
			return nil, err
		}
		if p.Over(&e.rules) {
			return nil, nil
		}
		if vals, ok := e.bookAnalysis(&p); ok {
			return vals, nil
		}
		r, done := e.newRun(ctx)
		defer done()
		vals, ok := e.moveValues(p, func(q kalah.Position) (int, bool) { return e.exact(r, q) })
		if !ok {
			return nil, r.err(ctx)
		}
		return vals, nil
	}
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.check(p); err != nil {
		return nil, err
	}
	if p.Over(&e.rules) {
		return nil, nil
	}
	if vals, ok := e.bookAnalysis(&p); ok {
		return vals, nil
	}
	r, done := e.newRun(ctx)
	defer done()
	// Deepen all moves together, keeping the last complete iteration.
	var last []MoveValue
	for d := 1; d <= 200; d++ {
		allExact := true
		vals, ok := e.moveValues(p, r.estimate(e, d, &allExact))
		if !ok {
			break
		}
		for i := range vals {
			vals[i].Exact = allExact
			if !allExact {
				vals[i].Depth = d
			}
		}
		last = vals
		if allExact {
			break
		}
	}
	if last == nil {
		return nil, fmt.Errorf("analyze: no search finished within %v", limit)
	}
	return last, nil
}

// Search chooses a move for p within limit (zero: until ctx is done or the
// value is proven) by iterative deepening, and reports the value of the
// position as far as it got. It always returns a legal move if p is in play,
// even when stopped at once.
func (e *Engine) Search(ctx context.Context, p kalah.Position, limit time.Duration) (Result, error) {
	res, _, err := e.search(ctx, p, limit, false)
	return res, err
}

// Best finds the exact value of p and one move that achieves it: what the
// perfect player plays. It is Solve without the other optimal moves and the
// principal variation, which often cost as much again. From a book it
// chooses the optimal house nearest the store, the move the strategy books
// (package book) follow. It runs until done or until ctx is cancelled or
// the node limit is reached (then it returns that error). Positions of the
// pie phase are Solve's (ErrNotInPlay).
func (e *Engine) Best(ctx context.Context, p kalah.Position) (Result, error) {
	if p.Phase() != kalah.PhasePlay {
		return Result{}, ErrNotInPlay
	}
	res, stopped, err := e.search(ctx, p, 0, true)
	if err == nil && !res.Exact {
		err = stopped
	}
	if err != nil {
		return Result{}, err
	}
	res.PV = res.Best
	return res, nil
}

// search is Search; exact turns to an unlimited search after MaxDepth
// iterations instead of deepening further. stopped is why the search
// stopped before it proved the value (the deadline, ctx, the node limit).
func (e *Engine) search(ctx context.Context, p kalah.Position, limit time.Duration, exact bool) (res Result, stopped, err error) {
	start := time.Now()
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.check(p); err != nil {
		return Result{}, nil, err
	}
	if p.Over(&e.rules) {
		return Result{}, nil, kalah.ErrGameOver
	}
	if res, ok := e.bookResult(p, start); ok {
		res.Best = res.PV[:1:1] // the move the PV follows
		return res, nil, nil
	}
	r, done := e.newRun(ctx)
	defer done()
	if limit > 0 {
		r.deadline = start.Add(limit)
	}
	legal := p.Moves()
	res = Result{Best: legal[:1:1], Depth: 0}
	defer func() {
		res.Nodes, res.Time = r.nodes.Load(), time.Since(start)
		if r.stop.Load() {
			stopped = r.err(ctx)
			if stopped == nil {
				stopped = context.DeadlineExceeded // the limit's deadline
			}
		}
	}()
	if p.Phase() != kalah.PhasePlay {
		// The pie opening: compare the options by shallow estimates
		// deepened while time lasts.
		for d := 1; d <= 64; d++ {
			allExact := true
			vals, ok := e.moveValues(p, r.estimate(e, d, &allExact))
			if !ok {
				break
			}
			bi := 0
			for i, mv := range vals {
				if mv.Value > vals[bi].Value {
					bi = i
				}
			}
			res.Best, res.Value, res.Depth, res.Exact = []kalah.Move{vals[bi].Move}, vals[bi].Value, d, allExact
			if allExact {
				res.Depth = 0
				break
			}
		}
		return res, nil, nil
	}
	b := e.g.FromPosition(&p)
	r.parallel(p.Total(), func(s *searcher) {
		maxDepth := 200
		if exact {
			maxDepth = e.idDepth(&b)
		}
		s.deepen(&b, maxDepth, exact, func(v, move, depth int, proven bool) {
			if s.id != 0 {
				return
			}
			if move >= 0 {
				res.Best = []kalah.Move{kalah.Move(move + 1)}
			}
			res.Value, res.Depth, res.Exact = v, depth, proven
			if proven {
				res.Depth = 0
			}
		})
	})
	return res, nil, nil
}

// SearchDepth searches p by iterative deepening to depth plies (stopping
// early if the value is proven) and reports the value and best move. With
// one thread its node count depends only on the position, the depth and the
// table's contents, which makes it the basis of the bench signature.
func (e *Engine) SearchDepth(ctx context.Context, p kalah.Position, depth int) (Result, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.check(p); err != nil {
		return Result{}, err
	}
	if p.Over(&e.rules) || p.Phase() != kalah.PhasePlay {
		return Result{}, fmt.Errorf("search depth: the position must be in play: %s", p)
	}
	start := time.Now()
	r, done := e.newRun(ctx)
	defer done()
	b := e.g.FromPosition(&p)
	res := Result{Best: p.Moves()[:1:1]}
	r.parallel(p.Total(), func(s *searcher) {
		s.deepen(&b, depth, false, func(v, move, d int, proven bool) {
			if s.id != 0 {
				return
			}
			if move >= 0 {
				res.Best = []kalah.Move{kalah.Move(move + 1)}
			}
			res.Value, res.Depth, res.Exact = v, d, proven
		})
	})
	if r.stop.Load() {
		return Result{}, r.err(ctx)
	}
	res.Nodes, res.Time = r.nodes.Load(), time.Since(start)
	return res, nil
}

// Clear empties the transposition table.
func (e *Engine) Clear() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.tt.clear()
	e.tt.gen = 0
}

// setDB makes the engine probe db from its next search: a larger database
// built while it played (BuildDBOnFirstUse). Its table's entries stay: an
// exact bound holds whatever database proved it, and an estimate's depth
// says what it is worth.
func (e *Engine) setDB(db *egdb.DB) error {
	if err := db.Check(e.rules); err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.o.DB = db
	return nil
}
