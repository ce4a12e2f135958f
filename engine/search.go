package engine

import (
	"fmt"
	"math/bits"
	"os"
	"sync/atomic"
	"time"

	"kalah/egdb"
)

// etcDepth is the least remaining depth at which the enhanced transposition
// cut-off probes the children before searching them.
const etcDepth = 3

// searcher is one thread's search state over the shared table.
type searcher struct {
	g        *game
	tt       *table
	db       *egdb.DB
	dbK      int // seeds the database covers, or -1
	rankKeys bool
	stop     *atomic.Bool   // this thread's stop signal
	runStop  *atomic.Bool   // the whole run's, set when the deadline passes
	live     *atomic.Uint64 // the run's nodes so far, for progress
	counted  uint64         // the nodes added to live
	deadline time.Time      // zero for none
	aborted  bool
	id       int // 0 for the main thread
	nodes    uint64
	horizon  uint64 // depth-limited leaves and estimated table bounds used
	rootMove int
	// In an exact pass that can prove the value is floor (its window is
	// just above the proven lower bound floor), each root move is first
	// tested against floor: one below it needs no search at the pass's
	// window, and the moves are sorted for Solve as they go: below floor,
	// or (if the pass fails low) equal to it.
	floorOn     bool
	floorPass   bool // the last pass of mtd was such a pass
	floor       int
	below, tied uint32 // root moves, by house bit
	leafValue   func(b *board, seeds int) int
	stack       [][16]kid // children by ply, reused to avoid clearing
	ttMin       int       // least seeds for a table probe
	etcMin      int       // least seeds for the enhanced transposition cut-off
	progress    func(Progress)
	pass        Progress // the running pass of mtd, for progress
	nextReport  uint64   // the main thread's nodes at the next report within a pass
	started     time.Time
	busy        *busyTable // nil on one thread
	busyMin     int        // least seeds to mark a node busy
	prefetch    bool       // prefetch the children's table buckets and database entries
	lazy        bool       // sow children only when searched
	dbKids      bool       // value the children in the database first (dbChildren)
	allAhead    bool       // once the first child fails to cut, sow and prefetch the rest (allAhead)
}

// debug prints each MTD(f) pass of every thread to stderr
// (KALAH_ENGINE_DEBUG=1).
var (
	debug      = os.Getenv("KALAH_ENGINE_DEBUG") != ""
	debugStart = time.Now()
)

// Tuning: the least seeds in the houses for a table probe and for the
// enhanced transposition cut-off; below them a subtree is cheaper to search
// than a cache miss. With an endgame database of K seeds they rise to
// K+dbTTMargin and K+dbETCMargin (Kalah(6,4) with K = 20: 26 s instead of
// 43 s on two cores with margins 4 and 16). Since children are sown lazily,
// a table margin of 3 is the best (one thread, from the start: 17 seeds
// 24.8-26.0 s against 25.6 s with 2, 28.6 s with 4 and 27.5 s with 1; 20
// seeds 9.7-9.9 s against 9.8-10.4 s with 4).
var (
	ttMinSeeds  = 4
	etcMinSeeds = 20
	dbTTMargin  = 3
	dbETCMargin = 16
)

// progressEvery sets how often a long pass reports its progress: every
// 4 M nodes of the main thread, about a second.
var progressEvery uint64 = 1 << 22

// prefetchChildren turns on the prefetch of each child's table bucket or
// database entry when the children are generated (PREFETCH=0 in the
// benchmarks turns it off, to compare).
var prefetchChildren = true

// lazyChildren turns on sowing a child only when it is searched (LAZY=0 in
// the benchmarks turns it off, to compare).
var lazyChildren = true

// dbChildren turns on valuing, before any sibling is searched, the
// children that fall into the endgame database: their entries are
// prefetched together, so the misses overlap, and one that refutes the
// window spares the search of the rest (DBKIDS=0 in the benchmarks turns
// it off, to compare).
var dbChildren = true

// allAhead turns on, at a node whose first child did not refute the window
// (so most likely one where every child is searched), sowing the other
// children at once and prefetching their table buckets together
// (ALLAHEAD=0 in the benchmarks turns it off, to compare).
var allAhead = true

// busyMinSeeds is the least seeds (and at least the table's) at which a
// thread marks the node it searches, so that the others defer it. Below it
// the marks cost more than the work they share: Kalah(6,3) on two threads
// took the fewest nodes with 12 of 4, 12 and 20.
var busyMinSeeds = 12

// dbBusyMargin raises busyMinSeeds to K+8 with a K-seed database: Kalah(6,4)
// with 20 seeds on two threads, four runs each, took 6.7-7.5 s with the
// marks from 24 seeds, 5.6-6.8 s from 28 and 5.9-6.5 s from 36.
var dbBusyMargin = 8

type kid struct {
	b      board
	d      int
	i      int
	score  int
	extra  bool
	over   bool
	played bool // b, d, extra and over are the sowing's; else d and extra are predicted
	known  bool // in the endgame database, of cs seeds: its entry is prefetched
	cs     int
	v      int // if known, the move's value once read
}

func (s *searcher) key(b *board) uint64 {
	if s.rankKeys {
		return rankKey(b, s.g.M)
	}
	return hashKey(b, s.g.EarlyEnd())
}

// eval estimates the future store difference at a depth-limited leaf: zero,
// that is, the store difference so far. Weighting the seeds on each side
// (a quarter of the difference) played worse at 100 ms a move as North
// against the searching seed players (docs/EXPERIMENTS.md).
func (s *searcher) eval(b *board, seeds int) int {
	if s.leafValue != nil {
		return s.leafValue(b, seeds)
	}
	return 0
}

// search returns the value of b for the mover (the future store difference
// it can force) if it lies strictly between alpha and beta, else a bound on
// the same side (fail-soft). depth is the plies left, or exactDepth for no
// limit.
func (s *searcher) search(b *board, alpha, beta, depth, ply int) int {
	s.nodes++
	if s.nodes&1023 == 0 {
		s.flush()
		if s.progress != nil && s.pass.Running && s.nodes >= s.nextReport {
			// Within a long pass, too: about once a second.
			s.nextReport = s.nodes + progressEvery
			s.report()
		}
		if s.stop.Load() {
			s.aborted = true
		} else if !s.deadline.IsZero() && time.Now().After(s.deadline) {
			s.runStop.Store(true)
			s.aborted = true
		}
	}
	if s.aborted {
		return 0
	}
	g := s.g
	seeds := g.Seeds(b)
	if ply > 0 {
		// Every seed left goes to one store or the other: the value lies in
		// [-seeds, seeds] and has the parity of seeds.
		if seeds <= alpha {
			return seeds
		}
		if -seeds >= beta {
			return -seeds
		}
		if seeds <= s.dbK {
			v, _ := s.db.Value(b.H[:g.M], seeds)
			return v
		}
	}
	nodes0 := s.nodes
	useTT := seeds >= s.ttMin
	var key uint64
	ttMove := -1
	var prior entry
	var found bool
	if useTT {
		key = s.key(b)
		prior, found = s.tt.probe(key)
	}
	if found {
		ttMove = prior.move
		if prior.depth >= depth && ply > 0 {
			cut, v := false, 0
			switch {
			case prior.lo >= beta:
				cut, v = true, prior.lo
			case prior.hi <= alpha:
				cut, v = true, prior.hi
			case prior.lo == prior.hi:
				cut, v = true, prior.lo
			}
			if cut {
				if prior.depth != exactDepth {
					s.horizon++
				}
				return v
			}
		}
	}
	if depth <= 0 {
		s.horizon++
		return s.eval(b, seeds)
	}
	h0 := s.horizon
	next := depth - 1
	if depth == exactDepth {
		next = exactDepth
	}

	if ply >= len(s.stack) {
		s.stack = append(s.stack, make([][16]kid, ply+1-len(s.stack))...)
	}
	kids := &s.stack[ply]
	// Below the enhanced transposition cut-off, a child is sown only when
	// its turn to be searched comes: the order comes from Predict, and a
	// cut-off by an early child spares the sowing of the rest.
	lazy := s.lazy && !(ply > 0 && depth >= etcDepth && seeds >= s.etcMin)
	var order [16]uint8
	cnt, sown := 0, 0
	for i := g.N - 1; i >= 0; i-- {
		if b.H[i] == 0 {
			continue
		}
		k := &kids[i]
		k.i = i
		if lazy {
			k.d, k.extra = g.Predict(b, i)
			k.over, k.played, k.known = false, false, false
			// Predict's gain is what the sowing takes from the houses
			// (at least, when seeds go to the opponent's store too).
			if s.dbKids && ply > 0 && seeds-k.d <= s.dbK {
				s.sow(k, b)
				if cs := g.Seeds(&k.b); !k.over && cs <= s.dbK {
					k.known, k.cs = true, cs
					s.db.Prefetch(k.b.H[:g.M], cs)
				}
				sown++
			}
		} else {
			k.known = false
			s.sow(k, b)
			if s.prefetch {
				// Start the child's table or database miss now, so that the
				// misses of the children searched after the first overlap.
				s.prefetchKid(k)
			}
		}
		switch {
		case i == ttMove:
			k.score = 1 << 30
		case k.extra:
			k.score = 1<<29 + i
		default:
			k.score = k.d*64 + i // captures and passing the store first
		}
		order[cnt] = uint8(i)
		cnt++
	}
	for j := 1; j < cnt; j++ {
		for l := j; l > 0 && kids[order[l]].score > kids[order[l-1]].score; l-- {
			order[l], order[l-1] = order[l-1], order[l]
		}
	}

	if ply > 0 && !lazy {
		// Enhanced transposition cut-off: a child already known to refute
		// the window ends the search here.
		for j := 0; j < cnt; j++ {
			k := &kids[order[j]]
			lb, ok, est := 0, false, false
			switch {
			case k.over:
				lb, ok = k.d, true
			case depth >= etcDepth && seeds >= s.etcMin:
				e, hit := s.tt.probe(s.key(&k.b))
				if hit && e.depth >= next {
					ok, est = true, e.depth != exactDepth
					if k.extra {
						lb = k.d + e.lo
					} else {
						lb = k.d - e.hi
					}
				}
			}
			if ok && lb >= beta {
				if est {
					s.horizon++
				}
				s.save(key, prior, found, lb, seeds, alpha, beta, depth, h0, k.i, nodes0)
				return lb
			}
		}
	}

	if sown > 0 {
		// The children in the database, their entries loaded together, and
		// those that end the game: a refutation among them ends the search
		// here.
		for j := 0; j < cnt; j++ {
			k := &kids[order[j]]
			v := k.d // a move that ends the game
			switch {
			case k.known:
				s.nodes++ // a child visited, as when searched
				dv, _ := s.db.Value(k.b.H[:g.M], k.cs)
				if k.extra {
					v = k.d + dv
				} else {
					v = k.d - dv
				}
				k.v = v
			case !k.played || !k.over:
				continue
			}
			if v >= beta {
				s.save(key, prior, found, v, seeds, alpha, beta, depth, h0, k.i, nodes0)
				return v
			}
		}
	}

	best, bestMove := -1<<20, -1
	a := alpha
	// With helpers, a child another thread is searching is deferred to the
	// end (simplified ABDADA), so the threads spread over the moves.
	share := s.busy != nil && seeds >= s.busyMin && useTT
	if share {
		s.busy.enter(key)
	}
	var deferred uint32
children:
	for pass := 0; pass < 2; pass++ {
		for j := 0; j < cnt; j++ {
			k := &kids[order[j]]
			if pass == 1 && deferred&(1<<j) == 0 {
				continue
			}
			if j == 1 && pass == 0 && lazy && s.allAhead {
				// The first child did not refute the window: this is most
				// likely a node where every child is searched, so sow the
				// rest now and start their table misses together.
				for l := 1; l < cnt; l++ {
					if kk := &kids[order[l]]; !kk.played {
						s.sow(kk, b)
						s.prefetchKid(kk)
					}
				}
			}
			if !k.played {
				s.sow(k, b)
			}
			if pass == 0 && share && j > 0 && !k.over && !k.known && s.busy.busy(s.key(&k.b)) {
				deferred |= 1 << j
				continue
			}
			var v int
			switch {
			case k.over:
				v = k.d
			case k.known:
				v = k.v // read from the database above
			case ply == 0 && s.floorOn && !s.reaches(&k.b, k.d, k.extra, s.floor):
				v = s.floor - 1 // below the floor, so below the window
			case k.extra:
				v = k.d + s.search(&k.b, a-k.d, beta-k.d, next, ply+1)
			default:
				v = k.d - s.search(&k.b, k.d-beta, k.d-a, next, ply+1)
			}
			if s.aborted {
				return 0
			}
			if ply == 0 && s.floorOn {
				if v < s.floor {
					s.below |= 1 << k.i
				} else if v < beta {
					s.tied |= 1 << k.i
				}
			}
			if debug && ply == 0 && depth == exactDepth {
				fmt.Fprintf(os.Stderr, "thread %d:   root move %d (window %d..%d): %d (%v)\n", s.id, k.i+1, alpha, beta, v, time.Since(debugStart).Round(time.Millisecond))
			}
			if v > best {
				best, bestMove = v, k.i
				if ply == 0 {
					s.rootMove = k.i
				}
				if v >= beta {
					break children
				}
				a = max(a, v)
			}
		}
		if deferred == 0 {
			break
		}
	}
	if share {
		s.busy.leave(key)
	}
	s.save(key, prior, found, best, seeds, alpha, beta, depth, h0, bestMove, nodes0)
	return best
}

// flush adds this thread's nodes since the last flush to the run's count.
func (s *searcher) flush() {
	s.live.Add(s.nodes - s.counted)
	s.counted = s.nodes
}

// report calls progress with the pass as it stands and every thread's
// nodes so far.
func (s *searcher) report() {
	s.pass.Nodes, s.pass.Elapsed = s.live.Load(), time.Since(s.started)
	s.progress(s.pass)
}

// reaches tests by an exact null-window search whether a move worth d
// now, leading to c (not over; the mover's again if extra), is worth at
// least v to its mover.
func (s *searcher) reaches(c *board, d int, extra bool, v int) bool {
	if extra {
		return s.search(c, v-d-1, v-d, exactDepth, 1) >= v-d
	}
	return s.search(c, d-v, d-v+1, exactDepth, 1) <= d-v
}

// sow plays child k of b.
func (s *searcher) sow(k *kid, b *board) {
	k.b = *b
	k.d, k.extra, k.over = s.g.Play(&k.b, k.i)
	k.played = true
}

// prefetchKid starts the memory read of sown child k's database entry or
// table bucket, so that it overlaps other work.
func (s *searcher) prefetchKid(k *kid) {
	if k.over {
		return
	}
	if cs := s.g.Seeds(&k.b); cs <= s.dbK {
		s.db.Prefetch(k.b.H[:s.g.M], cs)
	} else if cs >= s.ttMin {
		s.tt.prefetch(s.key(&k.b))
	}
}

// save stores the result of a search of the window (alpha, beta) in the
// table, merged with what was known.
func (s *searcher) save(key uint64, prior entry, found bool, best, seeds, alpha, beta, depth int, h0 uint64, move int, nodes0 uint64) {
	if seeds < s.ttMin {
		return
	}
	if s.horizon == h0 {
		depth = exactDepth // no estimate was used: the bound is proven
	}
	lo, hi := -seeds, seeds
	if found && prior.depth == depth {
		lo, hi = prior.lo, prior.hi
	} else if found && prior.depth > depth {
		return
	}
	switch {
	case best >= beta:
		lo = max(lo, best)
	case best <= alpha:
		hi = min(hi, best)
	default:
		lo, hi = best, best
	}
	if depth == exactDepth {
		if (lo-seeds)&1 != 0 {
			lo++
		}
		if (hi-seeds)&1 != 0 {
			hi--
		}
	}
	if lo > hi { // estimates from different searches disagree: keep the new one
		lo, hi = -seeds, seeds
		switch {
		case best >= beta:
			lo = best
		case best <= alpha:
			hi = best
		default:
			lo, hi = best, best
		}
	}
	s.tt.store(key, entry{lo: lo, hi: hi, depth: depth, move: move}, bits.Len64(s.nodes-nodes0))
}

// mtd finds the value of b at the given depth by a series of null-window
// searches (MTD(f)) starting from guess. It returns the value and a best
// move (-1 if every move is as bad), or aborted.
func (s *searcher) mtd(b *board, guess, depth int) (int, int) {
	seeds := s.g.Seeds(b)
	lo, hi := -seeds, seeds
	exact := depth == exactDepth
	f := min(max(guess, lo), hi)
	move := -1
	for lo < hi {
		beta := f
		if beta <= lo {
			beta = lo + 1
		}
		if exact && (beta-seeds)&1 != 0 {
			beta++
		}
		s.rootMove = -1
		s.pass = Progress{Depth: depth, Lo: lo, Hi: hi, Testing: beta, Running: true}
		if exact {
			s.pass.Depth = 0
		}
		s.floorOn, s.floor, s.below, s.tied = exact && lo > -seeds && beta == lo+2, lo, 0, 0
		r := s.search(b, beta-1, beta, depth, 0)
		s.floorPass, s.floorOn, s.pass.Running = s.floorOn, false, false
		if s.aborted {
			return 0, move
		}
		if debug {
			fmt.Fprintf(os.Stderr, "thread %d: mtd depth %d beta %d: %d (nodes %d, %v)\n", s.id, depth, beta, r, s.nodes, time.Since(debugStart).Round(time.Millisecond))
		}
		if r >= beta {
			lo, move = r, s.rootMove
			if exact && (lo-seeds)&1 != 0 {
				lo++
			}
		} else {
			hi = r
			if exact && (hi-seeds)&1 != 0 {
				hi--
			}
		}
		if s.progress != nil {
			s.pass.Lo, s.pass.Hi = lo, hi // the pass just ended (not Running)
			s.flush()
			s.report()
		}
		f = r
	}
	return lo, move
}

// deepen runs iterative deepening MTD(f) from depth 1 up to maxDepth, then
// (if exact) without a limit. It stops early once an iteration used no
// estimate. report is called after each iteration.
func (s *searcher) deepen(b *board, maxDepth int, exact bool, report func(v, move, depth int, proven bool)) (v, move int, proven bool) {
	guess := 0
	for d := 1; d <= maxDepth; d++ {
		h := s.horizon
		val, m := s.mtd(b, guess, d)
		if s.aborted {
			return
		}
		v, move, guess = val, m, val
		proven = s.horizon == h
		if report != nil {
			report(v, move, d, proven)
		}
		if proven {
			return
		}
	}
	if !exact {
		return
	}
	val, m := s.mtd(b, guess, exactDepth)
	if s.aborted {
		return
	}
	if report != nil {
		report(val, m, exactDepth, true)
	}
	return val, m, true
}

// busyTable marks the nodes some thread is searching, by key, for the
// simplified ABDADA of the helpers: one word a slot, a marked key or zero.
type busyTable struct {
	w []atomic.Uint64
}

const busySlots = 1 << 15

func newBusyTable() *busyTable { return &busyTable{w: make([]atomic.Uint64, busySlots)} }

func (t *busyTable) slot(key uint64) *atomic.Uint64 { return &t.w[mix(key)&(busySlots-1)] }

func (t *busyTable) enter(key uint64) { t.slot(key).Store(key) }

func (t *busyTable) leave(key uint64) { t.slot(key).CompareAndSwap(key, 0) }

func (t *busyTable) busy(key uint64) bool { return t.slot(key).Load() == key }
