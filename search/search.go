package search

import (
	"context"
	"fmt"
	"math/bits"
	"strings"
	"time"

	"kalah"
)

// Algorithm is one of the thesis's three searches.
type Algorithm uint8

// The algorithms (thesis 1.2.3 to 1.2.5).
const (
	// Minimax searches every move to the depth limit.
	Minimax Algorithm = iota
	// AlphaBeta is minimax with alpha-beta pruning: the same value, fewer
	// nodes.
	AlphaBeta
	// KBAB is the thesis's knowledge-based alpha-beta: alpha-beta that
	// stops deepening a move whose utility, from the mover's view, falls
	// more than max(60-depth, 20) below the utility of the position the
	// search started from (Figure 5), and hands over to plain alpha-beta
	// when an iteration ends without reaching its depth limit anywhere.
	KBAB
)

var algorithmNames = [...]string{"minimax", "alphabeta", "kbab"}

// String returns the algorithm's spec name.
func (a Algorithm) String() string {
	if int(a) < len(algorithmNames) {
		return algorithmNames[a]
	}
	return fmt.Sprintf("Algorithm(%d)", a)
}

// ParseAlgorithm reads an algorithm by its spec name.
func ParseAlgorithm(s string) (Algorithm, error) {
	for i, n := range algorithmNames {
		if strings.EqualFold(s, n) {
			return Algorithm(i), nil
		}
	}
	return 0, fmt.Errorf("unknown algorithm %q (want minimax, alphabeta or kbab)", s)
}

// KBAB's tolerance: a move is not searched deeper when its utility falls
// more than max(kbabSlack-depth, kbabFloor) below the start (thesis 1.2.5).
const (
	kbabSlack = 60
	kbabFloor = 20
)

// MaxDepth bounds iterative deepening; a game of Kalah never needs more
// plies than this from any position the searchers meet in practice, and a
// search stops earlier once its tree ends everywhere.
const MaxDepth = 128

// checkEvery is how many nodes pass between looks at the clock and the
// context: at a few million nodes a second that is well under a
// millisecond.
const checkEvery = 1024

const inf = 1 << 30

// Params configure one search.
type Params struct {
	Algorithm Algorithm
	Utility   Utility
	// Depth is the deepest iteration, in plies (single sowings; an extra
	// turn is a ply by the same side); zero means MaxDepth.
	Depth int
	// Deadline stops the search; the zero time means none.
	Deadline time.Time
	// Pace, if set, is called at every look at the clock. Tests set it to
	// sleep under a fake clock so that searching takes (fake) time.
	Pace func()
}

// Result is what a search found.
type Result struct {
	Move     kalah.Move // the best move of the last completed iteration
	Score    int        // its value for the mover, in utility units
	Depth    int        // the last completed iteration
	Nodes    uint64     // positions visited, over all iterations
	Resolved bool       // the last iteration reached the end of the game everywhere
	Stopped  bool       // the clock or the context stopped a deeper iteration

	pv    [MaxDepth + 1]int8 // the expected line of the last completed iteration
	pvLen int
}

// PV returns the line the search expects from Move on: each side's best
// sowing in turn (an extra turn is a sowing by the same side), as deep as
// the last completed iteration saw.
func (r *Result) PV() []kalah.Move {
	line := make([]kalah.Move, r.pvLen)
	for i := range line {
		line[i] = kalah.Move(r.pv[i])
	}
	return line
}

// engine holds one search's state.
type engine struct {
	r        *kalah.Rules
	algo     Algorithm
	util     Utility
	ctx      context.Context
	deadline time.Time
	pace     func()

	nodes     uint64
	nextCheck uint64
	stopped   bool
	cutoff    bool // some line stopped at the depth limit in this iteration
	limit     int  // this iteration's depth
	rootSide  kalah.Side
	rootValue int // the start position's utility for rootSide (KBAB)

	// pv[d] is the best line found from the node d plies deep, pvLen[d]
	// long (a triangular table: no allocation).
	pv    [MaxDepth + 2][MaxDepth + 2]int8
	pvLen [MaxDepth + 2]int
}

// Search chooses a move for the side to move in p by iterative deepening:
// depth 1, 2, ... up to Params.Depth, keeping the best move of the last
// iteration that completed. It stops at the deadline or when ctx is done,
// always returning a legal move if there is one (if not even depth 1
// completes, the first non-empty house from the right). The pie rule's
// swap is never chosen. Search does not allocate.
func Search(ctx context.Context, r *kalah.Rules, p kalah.Position, prm Params) (Result, error) {
	mask := p.Mask()
	if mask == 0 || p.Over(r) {
		return Result{}, fmt.Errorf("%w: no move to search", kalah.ErrGameOver)
	}
	e := engine{r: r, algo: prm.Algorithm, util: prm.Utility, ctx: ctx, deadline: prm.Deadline, pace: prm.Pace,
		nextCheck: checkEvery, rootSide: p.ToMove()}
	e.rootValue = e.util.Evaluate(r, &p, e.rootSide)
	maxDepth := prm.Depth
	if maxDepth <= 0 || maxDepth > MaxDepth {
		maxDepth = MaxDepth
	}
	res := Result{Move: kalah.Move(bits.Len32(mask))}
	best := res.Move
	for d := 1; d <= maxDepth; d++ {
		if ctx.Err() != nil {
			res.Stopped = true
			break
		}
		e.limit = d
		e.cutoff = false
		m, v := e.root(&p, best)
		if e.stopped {
			res.Stopped = true
			break
		}
		best = m
		res.Move, res.Score, res.Depth = m, v, d
		res.pvLen = copy(res.pv[:], e.pv[0][:e.pvLen[0]])
		if !e.cutoff {
			if e.algo == KBAB {
				// Every line ended or was discarded before the depth limit,
				// so deeper KBAB iterations would repeat this one: plain
				// alpha-beta takes over the rest of the time (thesis 1.2.5).
				e.algo = AlphaBeta
				if prm.Deadline.IsZero() {
					// Without a clock there is no time to hand over.
					break
				}
				continue
			}
			res.Resolved = true
			break
		}
	}
	res.Nodes = e.nodes
	return res, nil
}

// root searches every move at the root to e.limit plies, first the best
// move of the previous iteration, then the others from the right.
func (e *engine) root(p *kalah.Position, first kalah.Move) (kalah.Move, int) {
	me := p.ToMove()
	alpha := -inf
	best := kalah.NoMove
	try := func(h int) {
		q := *p
		eff := q.Play(e.r, h)
		v := e.child(&q, eff, me, 0, alpha, inf)
		if e.stopped {
			return
		}
		if best == kalah.NoMove || v > alpha {
			alpha, best = v, kalah.Move(h)
			e.line(0, h)
		}
	}
	mask := p.Mask()
	if first >= 1 && mask&(1<<(first-1)) != 0 {
		try(int(first))
		mask &^= 1 << (first - 1)
	}
	for ; mask != 0 && !e.stopped; mask &^= 1 << (bits.Len32(mask) - 1) {
		try(bits.Len32(mask))
	}
	return best, alpha
}

// child returns the value for side me of q, which me's move made with
// effect eff from a position d plies from the root, searching the window
// (alpha, beta) of me's view.
func (e *engine) child(q *kalah.Position, eff kalah.Effect, me kalah.Side, d int, alpha, beta int) int {
	if eff&kalah.End != 0 {
		e.nodes++
		e.pvLen[d+1] = 0
		return e.util.Evaluate(e.r, q, me)
	}
	if e.algo == KBAB && d+1 < e.limit {
		// Figure 5: compare the move's utility with the start's, from the
		// mover's view, and do not deepen a move that falls too far behind.
		cur := e.util.Evaluate(e.r, q, me)
		start := e.rootValue
		if me != e.rootSide {
			start = -start
		}
		if start-cur > max(kbabSlack-d, kbabFloor) {
			e.nodes++
			e.pvLen[d+1] = 0
			return cur
		}
	}
	if q.ToMove() == me {
		return e.node(*q, d+1, alpha, beta)
	}
	return -e.node(*q, d+1, -beta, -alpha)
}

// node returns the value of p, a position where the game goes on, for its
// side to move, d plies from the root. It takes the position by value: a
// pointer would make the compiler, which analyses recursive functions
// conservatively, move every child position to the heap.
func (e *engine) node(p kalah.Position, d int, alpha, beta int) int {
	e.nodes++
	e.pvLen[d] = 0
	if e.nodes >= e.nextCheck {
		e.check()
	}
	if e.stopped {
		return 0
	}
	me := p.ToMove()
	if d >= e.limit {
		e.cutoff = true
		return e.util.Evaluate(e.r, &p, me)
	}
	best := -inf
	for mask := p.Mask(); mask != 0; mask &^= 1 << (bits.Len32(mask) - 1) {
		q := p
		h := bits.Len32(mask)
		eff := q.Play(e.r, h)
		v := e.child(&q, eff, me, d, alpha, beta)
		if v > best {
			if e.algo == Minimax || v > alpha {
				e.line(d, h)
			}
			best = v
		}
		if e.algo != Minimax {
			alpha = max(alpha, best)
			if alpha >= beta {
				break
			}
		}
	}
	return best
}

// line records house h followed by the best line from the child at d+1 as
// the best line from the node at d.
func (e *engine) line(d, h int) {
	e.pv[d][0] = int8(h)
	e.pvLen[d] = 1 + copy(e.pv[d][1:], e.pv[d+1][:e.pvLen[d+1]])
}

// check looks at the clock and the context.
func (e *engine) check() {
	e.nextCheck = e.nodes + checkEvery
	if e.pace != nil {
		e.pace()
	}
	if e.ctx.Err() != nil || (!e.deadline.IsZero() && !time.Now().Before(e.deadline)) {
		e.stopped = true
	}
}
