package engine

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Two threads share a search by split points (Tuning.Split; the young
// brothers wait concept of Feldmann et al., with a helpful master): a
// thread at a node of busyMin seeds or more searches its first child
// alone (its first cutAlone children where the node is expected to cut:
// Tuning.NodeTypes); if that does not refute the window, the node most
// likely needs every child, so it publishes the rest and any idle thread
// takes one at a time. The owner searches the children left, then, until
// the last child taken by another thread is done, helps in the split
// points below its own. A child that refutes the window cancels the split
// point's other searches. No child is entered by both threads, where the
// busy marks (searchChildren) let both into the same child when nothing
// else was left.

// cutAlone is how many children a node expected to cut (node.all false)
// searches alone before it shares the rest: where its first child fails,
// a later one often refutes (a late cut), and what another thread
// searched meanwhile below the other children is wasted, a whole subtree
// that needs every child. With one, two threads solving Kalah(6,4) from
// the start visited 12% more nodes than one thread; with two, 0.3% (3%
// since the fewest-away order: 31.9 M against 30.9 M); with three, the
// other thread idles longer (docs/PERFORMANCE.md).
const cutAlone = 2

// splitPoint is a node whose children other threads may take.
type splitPoint struct {
	n      *node       // the owner's node: its window, children and order (read only while published)
	parent *splitPoint // the split point its owner was working within, if any
	cnt    int
	next   atomic.Int32 // the next child in order to take
	active atomic.Int32 // threads other than the owner working on a child
	cut    atomic.Bool  // a child refuted the window

	mu             sync.Mutex
	best, bestMove int           // the other threads' best child
	horizon        atomic.Uint64 // estimates used below by the other threads
	nodes          atomic.Uint64 // the other threads' nodes below
}

// cancelled reports whether sp or a split point above it was cut: a search
// within it is no longer needed.
func (sp *splitPoint) cancelled() bool {
	for c := sp; c != nil; c = c.parent {
		if c.cut.Load() {
			return true
		}
	}
	return false
}

// below reports whether sp lies within the subtree of split point w.
func (sp *splitPoint) below(w *splitPoint) bool {
	for c := sp.parent; c != nil; c = c.parent {
		if c == w {
			return true
		}
	}
	return false
}

// splits are the split points of a run open to other threads.
type splits struct {
	open atomic.Int32 // len(list), read without the lock
	mu   sync.Mutex
	list []*splitPoint
	// published and taken count the split points and the children other
	// threads took from them, for tests; so does onPublish, if set.
	published, taken atomic.Uint64
	onPublish        func(sp *splitPoint)
}

func (r *splits) publish(sp *splitPoint) {
	r.mu.Lock()
	r.list = append(r.list, sp)
	r.open.Store(int32(len(r.list)))
	r.published.Add(1)
	if r.onPublish != nil {
		r.onPublish(sp)
	}
	r.mu.Unlock()
}

func (r *splits) withdraw(sp *splitPoint) {
	r.mu.Lock()
	for i, x := range r.list {
		if x == sp {
			r.list[i] = r.list[len(r.list)-1]
			r.list[len(r.list)-1] = nil
			r.list = r.list[:len(r.list)-1]
			break
		}
	}
	r.open.Store(int32(len(r.list)))
	r.mu.Unlock()
}

// take returns the shallowest open split point with a child left (below
// split point within, if not nil), counted as active; nil if none.
func (r *splits) take(within *splitPoint) *splitPoint {
	if r.open.Load() == 0 {
		return nil
	}
	r.mu.Lock()
	var best *splitPoint
	for _, x := range r.list {
		if int(x.next.Load()) >= x.cnt || x.cut.Load() || (within != nil && !x.below(within)) {
			continue
		}
		if best == nil || x.n.ply < best.n.ply {
			best = x
		}
	}
	if best != nil {
		best.active.Add(1)
	}
	r.mu.Unlock()
	return best
}

// searchSplit is searchChildren at a node other threads may share.
func (s *searcher) searchSplit(n *node) (best, bestMove int) {
	// Young brothers wait: the first child alone, or the first cutAlone
	// at a node expected to cut.
	alone := 1
	if s.tune.NodeTypes && !n.all {
		alone = cutAlone
	}
	best, bestMove = -1<<20, -1
	a := n.alpha
	for j := 0; j < min(alone, n.cnt); j++ {
		if j == 1 {
			s.sowRest(n)
		}
		k := &n.kids[n.order[j]]
		if !k.played {
			s.sow(k, n.b)
		}
		v := s.child(n, k, a)
		if s.aborted {
			return 0, -1
		}
		if v > best {
			best, bestMove = v, k.i
			if v >= n.beta {
				return best, bestMove
			}
			a = max(a, v)
		}
	}
	if alone >= n.cnt {
		return best, bestMove
	}
	// The others are sown before they are published: the threads that
	// take them only read them.
	s.sowRest(n)
	sp := &splitPoint{n: n, parent: s.ctx, cnt: n.cnt, best: -1 << 20, bestMove: -1}
	sp.next.Store(int32(alone))
	s.splits.publish(sp)
	outer := s.ctx
	s.ctx = sp
	for !sp.cut.Load() {
		j := int(sp.next.Add(1) - 1)
		if j >= n.cnt {
			break
		}
		k := &n.kids[n.order[j]]
		v := s.child(n, k, a)
		if s.aborted {
			break
		}
		if v > best {
			best, bestMove = v, k.i
			if v >= n.beta {
				sp.cut.Store(true)
				break
			}
			a = max(a, v)
		}
	}
	// No child is taken from now on; those taken are waited for, this
	// thread helping below meanwhile.
	sp.next.Store(1 << 20)
	s.splits.withdraw(sp)
	for {
		// A cut here (by another thread) stops this thread's search below
		// it; a stop of the run, or a cut above, goes on up.
		if s.aborted && !s.halted && !outer.cancelled() {
			s.aborted = false
		}
		if sp.active.Load() == 0 {
			break
		}
		if x := s.splits.take(sp); x != nil && !s.aborted {
			s.help(x)
		} else {
			if x != nil {
				x.active.Add(-1)
			}
			runtime.Gosched()
		}
	}
	s.ctx = outer
	if s.aborted {
		return 0, -1
	}
	s.horizon += sp.horizon.Load()
	// The work below the node, which decides its place in the table,
	// counts the other threads' nodes too.
	n.nodes0 -= sp.nodes.Load()
	if sp.best > best {
		best, bestMove = sp.best, sp.bestMove
	}
	return best, bestMove
}

// help searches one child of split point x (taken, so counted active), if
// one is left, and gives x its value.
func (s *searcher) help(x *splitPoint) {
	defer x.active.Add(-1)
	j := int(x.next.Add(1) - 1)
	if j >= x.cnt || x.cut.Load() {
		return
	}
	s.splits.taken.Add(1)
	n := x.n
	k := &n.kids[n.order[j]]
	outer, h0 := s.ctx, s.horizon
	s.ctx = x
	n0 := s.nodes
	v := s.child(n, k, n.alpha)
	s.ctx = outer
	if s.aborted {
		if !s.halted && !outer.cancelled() {
			s.aborted = false // x was cut: the value is not needed
		}
		return
	}
	x.horizon.Add(s.horizon - h0)
	x.nodes.Add(s.nodes - n0)
	x.mu.Lock()
	if v > x.best {
		x.best, x.bestMove = v, k.i
	}
	x.mu.Unlock()
	if v >= n.beta {
		x.cut.Store(true)
	}
}

// work is a helper thread's loop under split points: it takes a child of
// any open split point until the run stops it.
func (s *searcher) work() {
	for spins := 0; ; spins++ {
		if spins&63 == 0 {
			s.poll()
			if s.aborted {
				return
			}
		}
		if x := s.splits.take(nil); x != nil {
			s.help(x)
			if s.halted {
				return
			}
		} else {
			runtime.Gosched()
		}
	}
}
