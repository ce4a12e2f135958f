package dist

import (
	"fmt"
	"hash/fnv"
	"slices"

	"kalah"
)

// node is a position of the frontier tree, canonical: from South's view
// (mirrored when North is to move) and, unless the stores matter (the early
// end), with empty stores, since a value counts only future gains.
type node struct {
	pos    kalah.Position
	key    string // hash of pos, the job and result key
	seeds  int    // seeds in the houses: the value lies in [-seeds, seeds]
	kids   []edge // nil for a leaf, solved by workers
	lo, hi int    // proven bounds on the value
	est    int    // a shallow estimate, kept within [lo, hi]
	leafLo int    // a leaf's bounds from results (lo, hi are recomputed)
	leafHi int
	stamp  int
}

// edge is a move from a node: the change of the store difference for the
// mover, and whether the mover plays again or the game ends.
type edge struct {
	move  kalah.Move
	d     int
	extra bool
	over  bool
	child *node
}

// bounds returns the interval of the edge's value for the mover.
func (e *edge) bounds() (lo, hi int) {
	switch {
	case e.over:
		return e.d, e.d
	case e.extra:
		return e.d + e.child.lo, e.d + e.child.hi
	}
	return e.d - e.child.hi, e.d - e.child.lo
}

func (e *edge) estimate() int {
	switch {
	case e.over:
		return e.d
	case e.extra:
		return e.d + e.child.est
	}
	return e.d - e.child.est
}

// childGamma is the test of the child that decides whether the edge's value
// is at least gamma; want says whether the edge succeeds when the child's
// test succeeds (extra turn) or when it fails (the turn passes).
func (e *edge) childGamma(gamma int) (g int, want bool) {
	if e.extra {
		return gamma - e.d, true
	}
	// d - v >= gamma  <=>  v <= d - gamma  <=>  not v >= d - gamma + 1
	return e.d - gamma + 1, false
}

// tree is the top of the game tree, expanded a fixed number of moves, whose
// leaves are the jobs.
type tree struct {
	rules kalah.Rules
	root  *node
	nodes map[string]*node
	order []*node // in creation order
	stamp int
}

// canonical returns the position the value of p is stored under.
func canonical(r *kalah.Rules, p kalah.Position) kalah.Position {
	if p.ToMove() == kalah.North {
		p = p.Mirror()
	}
	if r.EarlyEnd {
		return p
	}
	n := p.Houses()
	south, north := make([]int, n), make([]int, n)
	for i := range n {
		south[i], north[i] = p.House(kalah.South, i+1), p.House(kalah.North, i+1)
	}
	q, err := kalah.NewPosition(south, north, 0, 0, kalah.South)
	if err != nil {
		return p
	}
	return q
}

func nodeKey(p kalah.Position) string {
	h := fnv.New64a()
	h.Write([]byte(p.String()))
	return fmt.Sprintf("%016x", h.Sum64())
}

func moverDiff(p *kalah.Position, s kalah.Side) int { return p.Store(s) - p.Store(s.Other()) }

// expand builds the tree of every line of plies moves from p (in play, not
// over), sharing transpositions.
func expand(r kalah.Rules, p kalah.Position, plies int) *tree {
	t := &tree{rules: r, nodes: map[string]*node{}}
	t.root = t.get(canonical(&r, p))
	level := []*node{t.root}
	for ply := 0; ply < plies && len(level) > 0; ply++ {
		var next []*node
		for _, n := range level {
			next = append(next, t.split(n)...)
		}
		level = next
	}
	return t
}

// split makes a leaf internal, its children (those new to the tree) leaves,
// and returns the new ones. Whatever is known of n stays: its own bounds
// are kept beside those backed up from the children.
func (t *tree) split(n *node) []*node {
	if n.kids != nil {
		return nil
	}
	r := t.rules
	var fresh []*node
	me := n.pos.ToMove()
	for _, m := range n.pos.Moves() {
		q := n.pos
		eff := q.Play(&r, int(m))
		e := edge{move: m, d: moverDiff(&q, me) - moverDiff(&n.pos, me)}
		if eff&kalah.End != 0 {
			e.over = true
		} else {
			e.extra = q.ToMove() == me
			c := canonical(&r, q)
			child, seen := t.nodes[nodeKey(c)]
			if !seen {
				// Until searched, a child is estimated to keep n's value.
				child = t.get(c)
				if e.extra {
					child.est = n.est - e.d
				} else {
					child.est = e.d - n.est
				}
				fresh = append(fresh, child)
			}
			e.child = child
		}
		n.kids = append(n.kids, e)
	}
	return fresh
}

// leaves returns the leaves of the tree.
func (t *tree) leaves() []*node {
	var out []*node
	for _, n := range t.order {
		if n.kids == nil {
			out = append(out, n)
		}
	}
	return out
}

func (t *tree) get(p kalah.Position) *node {
	k := nodeKey(p)
	if n, ok := t.nodes[k]; ok {
		return n
	}
	s := 0
	for i := 1; i <= p.Houses(); i++ {
		s += p.House(kalah.South, i) + p.House(kalah.North, i)
	}
	n := &node{pos: p, key: k, seeds: s, lo: -s, hi: s, leafLo: -s, leafHi: s}
	t.nodes[k] = n
	t.order = append(t.order, n)
	return n
}

// learn merges a test's bound into a node (a leaf, or one split after its
// job was published).
func (n *node) learn(value int, lower, exact bool) {
	switch {
	case exact:
		n.leafLo, n.leafHi = max(n.leafLo, value), min(n.leafHi, value)
	case lower:
		n.leafLo = max(n.leafLo, value)
	default:
		n.leafHi = min(n.leafHi, value)
	}
}

// update recomputes every node's bounds and estimate from the leaves'.
func (t *tree) update() {
	t.stamp++
	t.eval(t.root)
}

func (t *tree) eval(n *node) {
	if n.stamp == t.stamp {
		return
	}
	n.stamp = t.stamp
	if n.kids == nil {
		n.lo, n.hi = n.leafLo, n.leafHi
		n.est = min(max(n.est, n.lo), n.hi)
		return
	}
	lo, hi, est := -1<<20, -1<<20, -1<<20
	for i := range n.kids {
		e := &n.kids[i]
		if e.child != nil {
			t.eval(e.child)
		}
		l, h := e.bounds()
		lo, hi, est = max(lo, l), max(hi, h), max(est, e.estimate())
	}
	lo, hi = max(lo, n.leafLo), min(hi, n.leafHi)
	n.lo, n.hi, n.est = lo, hi, min(max(est, lo), hi)
}

// task is one test to run: is the value of leaf n at least gamma?
type task struct {
	n     *node
	gamma int
}

// need adds to out the leaf tests that may decide whether n's value is at
// least gamma and are not decided yet. Where the estimate says the test
// succeeds, only the width most promising moves are followed (one proof
// suffices); where it says it fails, every move (all must fail).
func (t *tree) need(n *node, gamma, width int, out map[string]task, seen map[task]bool) {
	if n.lo >= gamma || n.hi < gamma || seen[task{n, gamma}] {
		return
	}
	seen[task{n, gamma}] = true
	if n.kids == nil {
		out[n.key+"."+gammaKey(gamma)] = task{n, gamma}
		return
	}
	open := make([]*edge, 0, len(n.kids))
	for i := range n.kids {
		e := &n.kids[i]
		if _, h := e.bounds(); h >= gamma && !e.over {
			open = append(open, e)
		}
	}
	if n.est >= gamma {
		slices.SortStableFunc(open, func(a, b *edge) int { return b.estimate() - a.estimate() })
		open = open[:min(width, len(open))]
	}
	for _, e := range open {
		g, _ := e.childGamma(gamma)
		t.need(e.child, g, width, out, seen)
	}
}

func gammaKey(g int) string {
	if g < 0 {
		return fmt.Sprintf("m%d", -g)
	}
	return fmt.Sprintf("p%d", g)
}

// nextGamma returns the next test of the root, MTD(f) fashion: inside
// (lo, hi], moved to the bound just found, with the parity of the seeds.
// After streak tests that moved the bound the same way it steps further
// (2, 6, 14 seeds...), since a wrong first guess otherwise costs a round of
// jobs for every two seeds it is off.
func (t *tree) nextGamma(gamma, streak int) int {
	r := t.root
	step := 0
	if streak > 1 {
		step = 2<<min(streak-1, 10) - 2
	}
	if gamma <= r.lo {
		gamma = r.lo + 1 + step
	}
	if gamma > r.hi {
		gamma = r.hi - step
	}
	gamma = min(max(gamma, r.lo+1), r.hi)
	if (gamma-r.seeds)&1 != 0 {
		gamma++
	}
	return gamma
}

// best returns a root move proven to reach the root's value.
func (t *tree) best() kalah.Move {
	for i := range t.root.kids {
		e := &t.root.kids[i]
		if lo, _ := e.bounds(); lo >= t.root.lo {
			return e.move
		}
	}
	return 0
}
