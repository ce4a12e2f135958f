package engine

// Tuning holds the search's thresholds and switches. Every engine has its
// own (Options.Tuning), so two engines in one process, or a benchmark and a
// test, never share one; DefaultTuning is what the measurements in
// docs/PERFORMANCE.md chose. A change of any field changes the nodes a
// search visits (except the Prefetch and AllAhead switches, which only move
// memory reads earlier, and ProbeLate, which moves a probe later), so
// compare with the node counts of kalah bench and BenchmarkSolve64DB.
type Tuning struct {
	// TTMinSeeds is the least seeds in the houses for a table probe, and
	// ETCMinSeeds for the enhanced transposition cut-off: below them a
	// subtree is cheaper to search again than a cache miss.
	TTMinSeeds, ETCMinSeeds int
	// With an endgame database of K seeds the two rise to K+DBTTMargin and
	// K+DBETCMargin: just above the database a subtree ends in database
	// reads after a ply or two, cheaper than the table's miss.
	DBTTMargin, DBETCMargin int
	// BusyMinSeeds is the least seeds (and at least TTMinSeeds) of a node
	// whose children the threads share: split (Split) or marked busy so
	// that the others defer it (simplified ABDADA); DBBusyMargin raises it
	// to K+DBBusyMargin with a database: below, sharing costs more than
	// the work it spreads.
	BusyMinSeeds, DBBusyMargin int
	// Prefetch starts the memory read of each child's table bucket or
	// database entry when the child is sown, so that the misses overlap.
	Prefetch bool
	// Lazy sows a child only when its turn to be searched comes (the order
	// comes from board.Predict), below the enhanced transposition cut-off:
	// a cut-off by an early child spares the sowing of the rest.
	Lazy bool
	// DBChildren values the children that fall into the endgame database
	// before any sibling is searched: their entries are read together, and
	// one that refutes the window spares the search of the rest.
	DBChildren bool
	// AllAhead sows the other children at once, and prefetches their table
	// buckets together, at a node whose first child did not refute the
	// window (most likely one where every child is searched).
	AllAhead bool
	// Exposure orders a node's quiet moves (those that stay in the mover's
	// houses and take nothing) by the opponent's replies that would then
	// capture the mover's seeds, most first: where the move refutes, its
	// proof is smaller, the seeds falling sooner towards the endgame
	// database. In exact searches (a depth-limited search keeps its
	// order, and kalah bench its signature), from ExposureMinSeeds, with a
	// database of K seeds from K+DBExposureMargin: below, the ordering
	// costs more instructions than the nodes it saves.
	Exposure                           bool
	ExposureMinSeeds, DBExposureMargin int
	// Leaf searches the nodes of an exact search below every threshold
	// above (the table's, the cut-off's, the exposure's, the busy marks')
	// by a search of its own without the general one's records: the same
	// nodes for fewer instructions (searcher.leaf).
	Leaf bool
	// Split shares a search between threads by split points (split.go)
	// instead of the busy marks (searchChildren): a node's children after
	// the first, once it has not refuted the window, go to whichever thread
	// is idle.
	Split bool
	// FewestAway orders the moves of equal gain at a node expected to cut
	// (node.all false) in an exact search by the seeds they sow into the
	// opponent's houses, fewest first, where the others keep the house
	// nearest the store first: the side that refutes keeps its seeds.
	FewestAway bool
	// ProbeLate has leaf start the read of a node's table bucket, predict
	// and order the children, and only then probe the table, whose miss
	// overlaps that work (a bound that settles the window then wastes it).
	ProbeLate bool
	// NodeTypes has a split point expected to cut (node.all) search its
	// first cutAlone children alone, not one, before it shares the rest.
	NodeTypes bool
}

// DefaultTuning returns the tuning every engine uses unless told otherwise.
// The figures behind each value are in docs/ENGINE.md ("Tuning").
func DefaultTuning() Tuning {
	return Tuning{
		TTMinSeeds:       4,
		ETCMinSeeds:      20,
		DBTTMargin:       3,
		DBETCMargin:      16,
		BusyMinSeeds:     12,
		DBBusyMargin:     14,
		Prefetch:         true,
		Lazy:             true,
		DBChildren:       true,
		AllAhead:         true,
		Exposure:         true,
		ExposureMinSeeds: 12,
		DBExposureMargin: 5,
		Leaf:             true,
		Split:            true,
		NodeTypes:        true,
		ProbeLate:        true,
		FewestAway:       true,
	}
}

// PlayerTuning returns the search of the engine and perfect players and
// of the strategy books' fast checks (kalah book strategy): DefaultTuning
// without Exposure and FewestAway, the search the embedded strategy books
// were built with. A book leaves a position to the player's search because that
// search answered it within PerfectNodes; a search that visits other nodes
// answers some of those positions in more (one of standard Kalah(6,4)'s
// took 269,372 nodes with Exposure), so the players keep the books' search
// until the books are built again with another (book/data/README.md).
func PlayerTuning() Tuning {
	t := DefaultTuning()
	t.Exposure, t.FewestAway = false, false
	return t
}
