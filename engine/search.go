package engine

import (
	"fmt"
	"io"
	"math/bits"
	"sync/atomic"
	"time"

	"kalah/egdb"
)

// etcDepth is the least remaining depth at which the enhanced transposition
// cut-off probes the children before searching them: nearer the horizon a
// subtree costs less than the probes.
const etcDepth = 3

// searcher is one thread's search state over the shared table.
type searcher struct {
	g   *game
	tt  *table
	db  *egdb.DB
	dbK int // seeds the database covers, or -1
	// onlyMine says no sowing reaches the opponent's store: a child's
	// seeds are then its parent's less the mover's gain (kidSeeds).
	onlyMine bool
	rankKeys bool
	tune     Tuning
	ttMin    int // least seeds for a table probe (Tuning, raised by the database)
	etcMin   int // least seeds for the enhanced transposition cut-off
	// exposureMin is the least seeds at which the quiet moves are ordered
	// by exposure (orderQuiet); above any board without Tuning.Exposure.
	exposureMin int
	// fewest orders the moves of equal gain at a node expected to cut by
	// the seeds they sow into the opponent's houses (Tuning.FewestAway).
	fewest  bool
	busy    *busyTable // nil on one thread, or with split points
	busyMin int        // least seeds to mark a node busy, or to split it
	splits  *splits    // the run's split points (Tuning.Split), nil on one thread
	ctx     *splitPoint
	// halted says the run stopped this thread (aborted may also mean a
	// split point above was cut: split.go).
	halted bool
	// leafMax is the least seeds of an exact search's node that searchSeeds
	// searches; below, leaf does (zero where leafOK does not hold).
	leafMax int

	stop      *atomic.Bool // this thread's stop signal
	runStop   *atomic.Bool // the whole run's, set when the deadline passes
	deadline  time.Time    // zero for none
	nodeLimit uint64       // the run's nodes at which it stops (Options.NodeLimit), zero for none
	overLimit *atomic.Bool // set when it does
	aborted   bool
	id        int // 0 for the main thread

	nodes    uint64
	horizon  uint64 // depth-limited leaves and estimated table bounds used
	rootMove int
	stack    [][16]kid // children by ply, reused to avoid clearing

	// In an exact pass that can prove the value is floor (its window is
	// just above the proven lower bound floor), each root move is first
	// tested against floor: one below it needs no search at the pass's
	// window, and the moves are sorted for Solve as they go: below floor,
	// or (if the pass fails low) equal to it.
	floorOn     bool
	floorPass   bool // the last pass of mtd was such a pass
	floor       int
	below, tied uint32 // root moves, by house bit

	// Progress reports, by the main thread only.
	progress      func(Progress)
	progressEvery uint64         // main-thread nodes between reports within a pass
	pass          Progress       // the running pass of mtd
	nextReport    uint64         // the main thread's nodes at the next report within a pass
	live          *atomic.Uint64 // the run's nodes so far
	counted       uint64         // this thread's nodes added to live
	started       time.Time
	debug         io.Writer // nil: no trace of the passes
	debugStart    time.Time
}

// kid is one child of a node: the move, its sowing (or the prediction of
// it), its place in the order, and what is known of it before its search.
type kid struct {
	b      board
	d      int // the change of the store difference for the mover
	i      int // the house sown
	extra  bool
	over   bool
	played bool   // b, d, extra and over are the sowing's; else d and extra are predicted
	known  bool   // in the endgame database: its entry is prefetched
	at     uint64 // if known, where its entry lies in the database
	v      int    // if known, the move's value once read
}

// node is what the steps of one search call share: the window, the table's
// entry, the children and their order.
type node struct {
	b           *board
	alpha, beta int
	depth, ply  int
	next        int // the children's depth
	seeds       int // in the houses
	useTT       bool
	key         uint64
	prior       entry // the table's entry, if found
	found       bool
	// all says the node is expected to need every child (an ALL node):
	// the root's is MTD(f)'s guess of its pass's outcome (a pass that
	// fails low needs every root move); a child's is its parent's after an
	// extra turn (the same window), else the other.
	all      bool
	nodes0   uint64 // the node count at this node: the work below it decides its place in the table
	horizon0 uint64 // the horizon count before the children: did they use estimates?
	kids     *[16]kid
	order    [16]uint8 // kids by index into kids, best first
	cnt      int
	lazy     bool // children sown only when searched
	sown     int  // children sown ahead to be read from the database
}

// key is b's table key: the exact rank of its houses where every board of
// the game has a distinct one, else a hash (with the stores under the
// early end, where they change play).
func (s *searcher) key(b *board) uint64 {
	if s.rankKeys {
		return rankKey(b, s.g.M)
	}
	return hashKey(b, s.g.EarlyEnd())
}

// search returns the value of b for the mover (the future store difference
// it can force) if it lies strictly between alpha and beta, else a bound on
// the same side (fail-soft). depth is the plies left, or exactDepth for no
// limit; all says whether b is expected to fail low (node.all). Its steps,
// in the order they run, are numbered as in Stockfish's search; each ends
// the search of this node where it can.
func (s *searcher) search(b *board, alpha, beta, depth, ply int, all bool) int {
	return s.searchSeeds(b, s.g.Seeds(b), alpha, beta, depth, ply, all)
}

// searchSeeds is search of b, which holds seeds in its houses.
func (s *searcher) searchSeeds(b *board, seeds, alpha, beta, depth, ply int, all bool) int {
	// Step 1. Count the node, and now and then report progress and check
	// for a stop or the deadline.
	s.nodes++
	if s.nodes&1023 == 0 {
		s.poll()
	}
	if s.aborted {
		return 0
	}

	// Step 2. Values without a search (not at the root, which needs a
	// move): every seed left goes to one store or the other, so the value
	// lies in [-seeds, seeds] (with their parity), and the endgame database
	// holds it.
	if ply > 0 {
		switch {
		case seeds <= alpha:
			return seeds
		case -seeds >= beta:
			return -seeds
		case seeds <= s.dbK:
			v, _ := s.db.Value(b.H[:s.g.M], seeds)
			return v
		}
	}

	// Step 3. The transposition table: a stored bound may settle the
	// window; else the stored move is tried first.
	n := node{b: b, alpha: alpha, beta: beta, depth: depth, ply: ply, seeds: seeds, all: all, nodes0: s.nodes}
	if v, ok := s.probe(&n); ok {
		return v
	}

	// Step 4. The horizon of a depth-limited search.
	if depth <= 0 {
		s.horizon++
		return s.eval(b)
	}
	n.horizon0 = s.horizon
	n.next = depth - 1
	if depth == exactDepth {
		n.next = exactDepth
	}

	// Step 5. The children, in order: the table's move, extra turns, then
	// by what the move takes.
	s.generate(&n)

	// Step 6. Enhanced transposition cut-off: a child the table already
	// shows refuting the window ends the search here.
	if ply > 0 && !n.lazy {
		if v, ok := s.etc(&n); ok {
			return v
		}
	}

	// Step 7. The children in the endgame database, their entries read
	// together, and the moves that end the game: one that refutes the
	// window ends the search here.
	if n.sown > 0 {
		if v, ok := s.knownChildren(&n); ok {
			return v
		}
	}

	// Step 8. Search the children: shared with the other threads through
	// a split point (split.go) or the busy marks.
	var best, bestMove int
	if s.splits != nil && ply > 0 && seeds >= s.busyMin && n.useTT {
		best, bestMove = s.searchSplit(&n)
	} else {
		best, bestMove = s.searchChildren(&n)
	}
	if s.aborted {
		return 0
	}

	// Step 9. Store the result in the table.
	s.save(&n, best, bestMove)
	return best
}

// poll runs every 1024 nodes: it adds the nodes to the run's count,
// reports progress within a long pass, and stops the search when told to,
// when the deadline has passed or at the node limit.
func (s *searcher) poll() {
	s.flush()
	if s.progress != nil && s.pass.Running && s.nodes >= s.nextReport {
		s.nextReport = s.nodes + s.progressEvery
		s.report()
	}
	switch {
	case s.stop.Load() || s.runStop.Load():
		s.aborted, s.halted = true, true
	case !s.deadline.IsZero() && time.Now().After(s.deadline):
		s.runStop.Store(true)
		s.aborted, s.halted = true, true
	case s.nodeLimit != 0 && s.live.Load() >= s.nodeLimit:
		s.overLimit.Store(true)
		s.runStop.Store(true)
		s.aborted, s.halted = true, true
	case s.ctx != nil && s.ctx.cancelled():
		s.aborted = true
	}
}

// probe reads the table's entry for n (from TTMinSeeds: smaller subtrees
// are cheaper searched again than missed in the cache). A bound deep
// enough that settles the window is returned, except at the root, which
// must find a move; an estimate used counts towards the horizon.
func (s *searcher) probe(n *node) (int, bool) {
	n.useTT = n.seeds >= s.ttMin
	if !n.useTT {
		return 0, false
	}
	n.key = s.key(n.b)
	n.prior, n.found = s.tt.probe(n.key)
	if !n.found || n.prior.depth < n.depth || n.ply == 0 {
		return 0, false
	}
	var v int
	switch p := n.prior; {
	case p.lo >= n.beta:
		v = p.lo
	case p.hi <= n.alpha:
		v = p.hi
	case p.lo == p.hi:
		v = p.lo
	default:
		return 0, false
	}
	if n.prior.depth != exactDepth {
		s.horizon++
	}
	return v, true
}

// eval estimates the future store difference at a depth-limited leaf:
// zero, that is, the store difference so far. Weighting the seeds on each
// side (a quarter of the difference) played worse at 100 ms a move as
// North against the searching seed players (docs/EXPERIMENTS.md).
func (s *searcher) eval(*board) int { return 0 }

// generate fills n's children and their order. Below the enhanced
// transposition cut-off (Tuning.Lazy) a child is sown only when its turn
// comes, ordered by board.Predict's arithmetic; except that a child whose
// seeds fall into the endgame database is sown now and its entry
// prefetched (Tuning.DBChildren), for step 7. Above it every child is
// sown, for the cut-off's probes, and its table bucket prefetched.
func (s *searcher) generate(n *node) {
	g, b := s.g, n.b
	if n.ply >= len(s.stack) {
		s.stack = append(s.stack, make([][16]kid, n.ply+1-len(s.stack))...)
	}
	kids := &s.stack[n.ply]
	n.kids = kids
	lazy := s.tune.Lazy && !(n.ply > 0 && n.depth >= etcDepth && n.seeds >= s.etcMin)
	n.lazy = lazy
	// A lazy child whose predicted gain takes the seeds into the database
	// is sown now (Predict's gain is what the sowing takes from the houses,
	// at least, when seeds go to the opponent's store too).
	dbGain := 1 << 30
	if lazy && s.tune.DBChildren && n.ply > 0 && s.db != nil {
		dbGain = n.seeds - s.dbK
	}
	ttMove := -1
	if n.found {
		ttMove = n.prior.move
	}
	// The children in order as they come (insertion: six at most on a
	// standard board), by score, larger first.
	var scores [16]int
	cnt, sown := 0, 0
	six := g.Six()
	for i := g.N - 1; i >= 0; i-- {
		if b.H[i&31] == 0 {
			continue
		}
		k := &kids[i&15]
		k.i = i
		k.known = false
		if lazy {
			if dbGain == 1 && int(b.H[i&31]) >= g.N-i {
				// One seed into the store takes it into the database.
				k.d = 1
			} else {
				// Predict6 inlines here (Predict, which chooses between
				// it and the general arithmetic, does not).
				if six && b.H[i&31] < 13 {
					k.d, k.extra = g.Predict6(b, i)
				} else {
					k.d, k.extra = g.Predict(b, i)
				}
				k.over, k.played = false, false
			}
			if k.d >= dbGain {
				s.sow(k, b)
				if cs := s.kidSeeds(n, k); !k.over && cs <= s.dbK {
					k.known, k.at = true, s.db.Index(k.b.H[:g.M], cs)
					s.db.PrefetchIndex(k.at)
				}
				sown++
			}
		} else {
			s.sow(k, b)
			if s.tune.Prefetch {
				s.prefetchKid(n, k)
			}
		}
		var score int
		switch {
		case i == ttMove:
			score = 1 << 30
		case k.extra:
			score = 1<<29 + i // nearest the store first: it leaves the others' seeds in place
		case s.fewest && !n.all && n.depth == exactDepth:
			score = k.d*64 + awayKey(int(b.H[i&31]), i, g.N) // captures first, then what it gives away
		default:
			score = k.d*64 + i // captures and passing the store first
		}
		j := cnt
		for ; j > 0 && scores[(j-1)&15] < score; j-- {
			scores[j&15], n.order[j&15] = scores[(j-1)&15], n.order[(j-1)&15]
		}
		scores[j&15], n.order[j&15] = score, uint8(i)
		cnt++
	}
	n.cnt, n.sown = cnt, sown
	if n.seeds >= s.exposureMin && n.depth == exactDepth && s.onlyMine {
		// The quiet children, score below 64, are last.
		first := cnt
		for first > 0 && scores[(first-1)&15] < 64 {
			first--
		}
		if cnt-first > 1 {
			s.orderQuiet(b, n.order[first:cnt])
		}
	}
}

// awayKey orders moves of equal gain at a node expected to cut
// (Tuning.FewestAway): the fewer seeds the move from house i, holding h,
// sows into the opponent's houses (of n a side), the larger; a move that
// sows none ranks by its house, nearest the store first, as before.
func awayKey(h, i, n int) int {
	away := min(max(h-(n-i), 0), 31)
	if away == 0 {
		return 32 + i
	}
	return 32 - away
}

// orderQuiet reorders the quiet children of b (those that stay in the
// mover's houses and take nothing, the table's move aside: quiet, house
// indices nearest the store first, where no sowing reaches the opponent's
// store) by the opponent's replies that would then capture the mover's
// seeds, most first: where such a move refutes, its proof is smaller, the
// seeds falling sooner into the endgame database (Tuning.Exposure).
func (s *searcher) orderQuiet(b *board, quiet []uint8) {
	nh := s.g.N
	// The mover's houses with seeds, and those a reply would capture
	// from if they held seeds: opposite the opponent's empty houses where
	// one of its sowings ends.
	var mine, targets uint32
	for j := 0; j < nh; j++ {
		if b.H[j&31] != 0 {
			mine |= 1 << (j & 31)
		}
		if p := j + int(b.H[(nh+j)&31]); p > j && p < nh && b.H[(nh+p)&31] == 0 {
			targets |= 1 << ((nh - 1 - p) & 31)
		}
	}
	if targets == 0 {
		return
	}
	// A quiet move from house i empties it and fills the empty houses
	// after it: its key is what that changes of the captures.
	open := targets &^ mine
	var keys [16]int
	for j := range quiet {
		i := uint(quiet[j]) & 31
		filled := (uint32(1)<<(b.H[i]&31) - 1) << ((i + 1) & 31)
		key := bits.OnesCount32(open&filled)*16 + int(i)
		if targets&(1<<i) != 0 {
			key -= 16
		}
		keys[j&15] = key
		for l := j; l > 0 && keys[(l-1)&15] < key; l-- {
			keys[l&15], keys[(l-1)&15] = keys[(l-1)&15], key
			quiet[l], quiet[l-1] = quiet[l-1], quiet[l]
		}
	}
}

// etc is the enhanced transposition cut-off: a child that ends the game,
// or whose table entry bounds it, with a value at least beta refutes the
// window without a search (from ETCMinSeeds and etcDepth plies left,
// where the probes cost less than the subtree they may save).
func (s *searcher) etc(n *node) (int, bool) {
	for j := 0; j < n.cnt; j++ {
		k := &n.kids[n.order[j]]
		lb, ok, est := 0, false, false
		switch {
		case k.over:
			lb, ok = k.d, true
		case n.depth >= etcDepth && n.seeds >= s.etcMin:
			e, hit := s.tt.probe(s.key(&k.b))
			if hit && e.depth >= n.next {
				ok, est = true, e.depth != exactDepth
				if k.extra {
					lb = k.d + e.lo
				} else {
					lb = k.d - e.hi
				}
			}
		}
		if ok && lb >= n.beta {
			if est {
				s.horizon++
			}
			s.save(n, lb, k.i)
			return lb, true
		}
	}
	return 0, false
}

// knownChildren values the children generate sowed into the endgame
// database (each counted as a node, as if searched) and those that end the
// game; the first that refutes the window ends the search.
func (s *searcher) knownChildren(n *node) (int, bool) {
	for j := 0; j < n.cnt; j++ {
		k := &n.kids[n.order[j]]
		v := k.d // a move that ends the game
		switch {
		case k.known:
			s.nodes++
			dv := s.db.ValueIndex(k.at)
			if k.extra {
				v = k.d + dv
			} else {
				v = k.d - dv
			}
			k.v = v
		case !k.played || !k.over:
			continue
		}
		if v >= n.beta {
			s.save(n, v, k.i)
			return v, true
		}
	}
	return 0, false
}

// searchChildren searches n's children in order until one refutes the
// window, and returns the best value and move (fail-soft). With helper
// threads, a child another thread is searching is deferred to a second
// round (simplified ABDADA), so the threads spread over the moves. At the
// root of a floor pass (searcher.floor) each move is first tested against
// the floor.
func (s *searcher) searchChildren(n *node) (best, bestMove int) {
	best, bestMove = -1<<20, -1
	a := n.alpha
	share := s.busy != nil && n.seeds >= s.busyMin && n.useTT
	if share {
		s.busy.enter(n.key)
	}
	var deferred uint32
rounds:
	for round := 0; round < 2; round++ {
		for j := 0; j < n.cnt; j++ {
			k := &n.kids[n.order[j]]
			if round == 1 && deferred&(1<<j) == 0 {
				continue
			}
			if j == 1 && round == 0 && n.lazy && s.tune.AllAhead {
				s.sowRest(n)
			}
			if !k.played {
				s.sow(k, n.b)
			}
			if round == 0 && share && j > 0 && !k.over && !k.known && s.busy.busy(s.key(&k.b)) {
				deferred |= 1 << j
				continue
			}
			v := s.child(n, k, a)
			if s.aborted {
				return 0, -1
			}
			if n.ply == 0 {
				s.rootResult(n, k, v)
			}
			if v > best {
				best, bestMove = v, k.i
				if n.ply == 0 {
					s.rootMove = k.i
				}
				if v >= n.beta {
					break rounds
				}
				a = max(a, v)
			}
		}
		if deferred == 0 {
			break
		}
	}
	if share {
		s.busy.leave(n.key)
	}
	return best, bestMove
}

// sowRest runs when a node's first child did not refute the window
// (Tuning.AllAhead): most likely every child will be searched, so the rest
// are sown now and their table misses started together.
func (s *searcher) sowRest(n *node) {
	for l := 1; l < n.cnt; l++ {
		if k := &n.kids[n.order[l]]; !k.played {
			s.sow(k, n.b)
			s.prefetchKid(n, k)
		}
	}
}

// child returns the value of child k of n for n's mover, searched with the
// window (a, beta): an extra turn adds the child's value, a turn that
// passes negates it.
func (s *searcher) child(n *node, k *kid, a int) int {
	switch {
	case k.over:
		return k.d
	case k.known:
		return k.v // read from the database in step 7
	case n.ply == 0 && s.floorOn && !s.reaches(&k.b, k.d, k.extra, s.floor):
		return s.floor - 1 // below the floor, so below the window
	}
	cs := s.kidSeeds(n, k)
	if cs < s.leafMax && n.next == exactDepth {
		if k.extra {
			return k.d + s.leaf(&k.b, cs, a-k.d, n.beta-k.d, n.all)
		}
		return k.d - s.leaf(&k.b, cs, k.d-n.beta, k.d-a, !n.all)
	}
	if k.extra {
		return k.d + s.searchSeeds(&k.b, cs, a-k.d, n.beta-k.d, n.next, n.ply+1, n.all)
	}
	return k.d - s.searchSeeds(&k.b, cs, k.d-n.beta, k.d-a, n.next, n.ply+1, !n.all)
}

// kidSeeds returns the seeds in the houses of n's sown child k (not over):
// where no sowing reaches the opponent's store, what the move took from
// the houses is the mover's gain, k.d.
func (s *searcher) kidSeeds(n *node, k *kid) int {
	if s.onlyMine {
		return n.seeds - k.d
	}
	return s.g.Seeds(&k.b)
}

// rootResult sorts a root move of a floor pass (below the floor, or equal
// to it) for Solve, and traces it.
func (s *searcher) rootResult(n *node, k *kid, v int) {
	if s.floorOn {
		if v < s.floor {
			s.below |= 1 << k.i
		} else if v < n.beta {
			s.tied |= 1 << k.i
		}
	}
	if s.debug != nil && n.depth == exactDepth {
		fmt.Fprintf(s.debug, "thread %d:   root move %d (window %d..%d): %d (%v)\n", s.id, k.i+1, n.alpha, n.beta, v, time.Since(s.debugStart).Round(time.Millisecond))
	}
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
		return s.search(c, v-d-1, v-d, exactDepth, 1, false) >= v-d
	}
	return s.search(c, d-v, d-v+1, exactDepth, 1, true) <= d-v
}

// sow plays child k of b.
func (s *searcher) sow(k *kid, b *board) {
	k.d, k.extra, k.over = s.g.PlayFrom(&k.b, b, k.i)
	k.played = true
}

// prefetchKid starts the memory read of n's sown child k's database entry
// or table bucket, so that it overlaps other work.
func (s *searcher) prefetchKid(n *node, k *kid) {
	if k.over {
		return
	}
	if cs := s.kidSeeds(n, k); cs <= s.dbK {
		s.db.Prefetch(k.b.H[:s.g.M], cs)
	} else if cs >= s.ttMin {
		s.tt.prefetch(s.key(&k.b))
	}
}

// save stores the result best of the search of n, with the move that gave
// it, in the table, merged with what was known: the bounds of the same
// depth narrowed, a deeper entry kept. The bound is proven (exactDepth) if
// no estimate was used below. The work below the node (log2 of its nodes)
// decides which entry of a full bucket gives way.
func (s *searcher) save(n *node, best, move int) {
	if !n.useTT {
		return
	}
	depth := n.depth
	if s.horizon == n.horizon0 {
		depth = exactDepth
	}
	if n.found && n.prior.depth > depth {
		return
	}
	e := merge(n.prior, n.found && n.prior.depth == depth, n.seeds, depth, n.alpha, n.beta, best)
	e.move = move
	s.tt.store(n.key, e, bits.Len64(s.nodes-n.nodes0))
}

// merge returns the table's entry of depth for a node of seeds searched
// with the window (alpha, beta) to the fail-soft value best, narrowing the
// bounds of prior if same (an entry of that depth). Proven bounds take the
// parity of the seeds.
func merge(prior entry, same bool, seeds, depth, alpha, beta, best int) entry {
	lo, hi := -seeds, seeds
	if same {
		lo, hi = prior.lo, prior.hi
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
	return entry{lo: lo, hi: hi, depth: depth}
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
	// Each pass is guessed to fail low, unless the last one did: then the
	// value is likely its bound, and the next pass fails high. Where
	// passes creep up, the guess is wrong but for the last, the costliest.
	all := true
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
		r := s.search(b, beta-1, beta, depth, 0, all)
		all = r >= beta
		s.floorPass, s.floorOn, s.pass.Running = s.floorOn, false, false
		if s.aborted {
			return 0, move
		}
		if s.debug != nil {
			fmt.Fprintf(s.debug, "thread %d: mtd depth %d beta %d: %d (nodes %d, %v)\n", s.id, depth, beta, r, s.nodes, time.Since(s.debugStart).Round(time.Millisecond))
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
