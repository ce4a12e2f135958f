package book

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"time"

	"golang.org/x/sync/errgroup"

	"kalah"
)

// StrategyOptions configure BuildStrategy.
type StrategyOptions struct {
	// Plies: every position within Plies moves of the start is a root, met
	// by the player with either side to move (after an opening forced on
	// both, or as either player).
	Plies int
	// Opening, if not nil, is the variant's opening book: the player
	// follows it where it holds a position, and its positions are not
	// copied into the strategy book.
	Opening *Book
	// Solve values the optimal moves of p, as BuildOptions.Solve does (the
	// other moves may be Unknown).
	Solve func(ctx context.Context, p kalah.Position) ([]int, error)
	// Fast reports whether the player's own search answers p quickly
	// enough: such a position ends the book's line there. It must depend
	// on p alone (a node count on one thread with a fresh table, say), so
	// that a build, or a resumed one, gives the same book.
	Fast func(ctx context.Context, p kalah.Position) (bool, error)
	// FastWorkers is how many calls of Fast may run at once, each on a
	// position the build will meet next (the replies to one move of the
	// opponent); 0 or 1 calls it once at a time, in the build's order. Fast
	// searches on one thread, so one at a time leaves the other cores
	// idle while it runs.
	FastWorkers int
	// DBSeeds and NodeLimit are recorded in the book: what Fast meant
	// (Book.Frontier).
	DBSeeds   int
	NodeLimit uint64
	// Known, if not nil, holds positions already solved (a checkpoint of
	// this build): they are not solved or tested again.
	Known *Book
	// Checkpoint, if not nil, is called every CheckpointEvery with a book
	// of the positions solved so far, to pass back as Known.
	Checkpoint      func(*Book) error
	CheckpointEvery time.Duration
	// Progress, if not nil, is called after each position decided.
	Progress func(StrategyProgress)
}

// StrategyProgress is where a strategy build stands.
type StrategyProgress struct {
	Solved int // positions solved and kept
	Reused int // of Solved, taken from Known
	Fast   int // positions left to the search
	// Depth is the plies from the root of the position just decided, and
	// Deepest the most so far.
	Depth, Deepest int
	Elapsed        time.Duration
}

// BuildStrategy computes the strategy book of rules r: starting from every
// position within o.Plies moves of the start, the player plays the optimal
// move nearest the store (Choice), its opponent every legal move; every
// position where the player is to move that o.Fast does not pass is solved
// and kept, with its optimal moves' values. A player that follows the
// opening and strategy books, and searches the positions they do not hold,
// then plays every move exactly and searches only fast positions, whatever
// its opponent does. The book holds the same positions however often it is
// stopped and resumed: the positions met depend on the values alone, and
// Fast on the position alone.
func BuildStrategy(ctx context.Context, r kalah.Rules, o StrategyOptions) (*Book, error) {
	v, err := VariantOf(r)
	if err != nil {
		return nil, err
	}
	switch {
	case o.Plies < 0 || o.Plies > MaxPlies:
		return nil, fmt.Errorf("book: %d plies (want 0 to %d)", o.Plies, MaxPlies)
	case o.Solve == nil || o.Fast == nil:
		return nil, fmt.Errorf("book: a strategy build needs Solve and Fast")
	case o.NodeLimit > math.MaxUint32 || o.DBSeeds < 0 || o.DBSeeds > 255:
		return nil, fmt.Errorf("book: node limit %d or database of %d seeds out of range", o.NodeLimit, o.DBSeeds)
	}
	for _, k := range []*Book{o.Opening, o.Known} {
		if k != nil && !k.v.sameValues(v) {
			return nil, fmt.Errorf("%w: the known values are for %s, not %s", ErrMismatch, k.v, v)
		}
	}
	s := &strategy{o: o, v: v, rules: v.Rules(), values: map[uint64][]int8{}, decided: map[uint64]bool{},
		opponent: map[uint64]bool{}, ahead: map[uint64]bool{}, start: time.Now()}
	s.lastCheck = s.start
	for _, level := range enumerate(v, o.Plies) {
		for _, p := range level {
			if err := s.player(ctx, p, 0); err != nil {
				return nil, s.stopped(err)
			}
			if err := s.opponentMoves(ctx, p, 0); err != nil {
				return nil, s.stopped(err)
			}
		}
	}
	return s.book(), nil
}

// strategy is one strategy build.
type strategy struct {
	o         StrategyOptions
	v         Variant
	rules     kalah.Rules
	values    map[uint64][]int8 // the positions kept
	decided   map[uint64]bool   // positions with the player to move, done
	opponent  map[uint64]bool   // positions with the opponent to move, expanded
	ahead     map[uint64]bool   // Fast's answers found ahead of the build (FastWorkers)
	pr        StrategyProgress
	start     time.Time
	lastCheck time.Time
}

func (s *strategy) book() *Book {
	b := fromMap(s.v, s.o.Plies, s.values)
	b.kind, b.dbSeeds, b.nodeLimit = Strategy, s.o.DBSeeds, uint32(s.o.NodeLimit)
	return b
}

// checkpoint is the book a checkpoint saves: the positions kept so far
// and those of Known not met again yet. A resumed build meets its known
// positions again one by one, so a checkpoint of the kept ones alone,
// saved (or stopped) before it has met them all, would lose the rest: a
// resumed Kalah(6,4) build, stopped after 16 minutes, left a checkpoint of
// 11,500 of its 27,000 positions.
func (s *strategy) checkpoint() *Book {
	k := s.o.Known
	if k == nil || s.pr.Reused == k.Len() {
		return s.book()
	}
	all := make(map[uint64][]int8, len(s.values)+k.Len())
	n := k.v.Houses
	for i, key := range k.keys {
		all[key] = k.vals[i*n : (i+1)*n]
	}
	maps.Copy(all, s.values)
	b := fromMap(s.v, s.o.Plies, all)
	b.kind, b.dbSeeds, b.nodeLimit = Strategy, s.o.DBSeeds, uint32(s.o.NodeLimit)
	return b
}

// stopped saves a checkpoint of a build that failed or was cancelled, so
// that no solve is lost, and returns its error.
func (s *strategy) stopped(err error) error {
	if s.o.Checkpoint != nil && s.pr.Solved > s.pr.Reused {
		if cerr := s.o.Checkpoint(s.checkpoint()); cerr != nil {
			return fmt.Errorf("%w (and saving a checkpoint: %v)", err, cerr)
		}
	}
	return err
}

// player decides p, the player to move, at depth plies from its root:
// the opening book's or a kept position's values, or nothing if it is
// fast, else a solve; then the player's move.
func (s *strategy) player(ctx context.Context, p kalah.Position, depth int) error {
	k := Key(&p)
	if s.decided[k] {
		return nil
	}
	s.decided[k] = true
	vals, known, ok := s.lookup(k)
	if known {
		s.values[k] = vals
		s.pr.Solved++
		s.pr.Reused++
	}
	if !ok {
		fast, found := s.ahead[k]
		delete(s.ahead, k)
		if !found {
			var err error
			if fast, err = s.o.Fast(ctx, p); err != nil {
				return err
			}
		}
		if fast {
			s.pr.Fast++
			return s.progress(depth)
		}
		got, err := s.o.Solve(ctx, p)
		if err != nil {
			return err
		}
		if vals, err = moveBytes(&p, got, s.v.Houses); err != nil {
			return err
		}
		s.values[k] = vals
		s.pr.Solved++
	}
	if err := s.progress(depth); err != nil {
		return err
	}
	q := p
	if q.Play(&s.rules, Choice(vals))&kalah.End != 0 {
		return nil
	}
	if q.ToMove() == p.ToMove() {
		return s.player(ctx, q, depth+1)
	}
	return s.opponentMoves(ctx, q, depth+1)
}

// opponentMoves follows every move of the opponent to move in p.
func (s *strategy) opponentMoves(ctx context.Context, p kalah.Position, depth int) error {
	k := Key(&p)
	if s.opponent[k] {
		return nil
	}
	s.opponent[k] = true
	if err := s.fastAhead(ctx, p); err != nil {
		return err
	}
	for _, m := range p.Moves() {
		q := p
		if q.Play(&s.rules, int(m))&kalah.End != 0 {
			continue
		}
		var err error
		if q.ToMove() == p.ToMove() {
			err = s.opponentMoves(ctx, q, depth+1)
		} else {
			err = s.player(ctx, q, depth+1)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// fastAhead runs Fast, FastWorkers at a time, on the positions the
// opponent's moves in p give the player that the build has not decided
// and no book holds, keeping the answers for when the build meets them.
// The answers depend on the positions alone, so the book is the same.
func (s *strategy) fastAhead(ctx context.Context, p kalah.Position) error {
	if s.o.FastWorkers < 2 {
		return nil
	}
	var next []kalah.Position
	for _, m := range p.Moves() {
		q := p
		if q.Play(&s.rules, int(m))&kalah.End != 0 || q.ToMove() == p.ToMove() {
			continue
		}
		k := Key(&q)
		if _, _, held := s.lookup(k); s.decided[k] || held {
			continue
		}
		if _, found := s.ahead[k]; !found && !slices.ContainsFunc(next, func(x kalah.Position) bool { return Key(&x) == k }) {
			next = append(next, q)
		}
	}
	if len(next) < 2 {
		return nil
	}
	fast := make([]bool, len(next))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(s.o.FastWorkers)
	for i := range next {
		g.Go(func() (err error) {
			fast[i], err = s.o.Fast(gctx, next[i])
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	for i := range next {
		s.ahead[Key(&next[i])] = fast[i]
	}
	return nil
}

// lookup returns k's move values from the opening book or, failing it,
// the known positions (known is then true).
func (s *strategy) lookup(k uint64) (vals []int8, known, ok bool) {
	if s.o.Opening != nil {
		if vals, ok = s.o.Opening.lookupKey(k); ok {
			return vals, false, true
		}
	}
	if s.o.Known != nil {
		if vals, ok = s.o.Known.lookupKey(k); ok {
			return vals, true, true
		}
	}
	return nil, false, false
}

// progress reports a decided position and saves a checkpoint when due.
func (s *strategy) progress(depth int) error {
	s.pr.Depth, s.pr.Deepest, s.pr.Elapsed = depth, max(s.pr.Deepest, depth), time.Since(s.start)
	if s.o.Progress != nil {
		s.o.Progress(s.pr)
	}
	if s.o.Checkpoint != nil && s.o.CheckpointEvery > 0 && time.Since(s.lastCheck) >= s.o.CheckpointEvery {
		s.lastCheck = time.Now()
		return s.o.Checkpoint(s.checkpoint())
	}
	return nil
}
