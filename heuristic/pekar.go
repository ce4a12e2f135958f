package heuristic

import (
	"context"
	"fmt"
	"math/bits"
	"strconv"
	"time"

	"kalah"
	"kalah/player"
)

func init() {
	player.Register(player.Info{
		Name:    "pekar",
		Usage:   "pekar",
		Summary: "Pekař's deterministic rules: a move ending in the store, else a capture, else defend the most threatened house, else the first house from the right",
		Source:  "Pekař, Andrla and Dolinay 2018, 3.4 (PCplayer)",
		Work:    player.Instant,
		New: func(s player.Spec, o player.Options) (player.Player, error) {
			if err := s.Check(0); err != nil {
				return nil, err
			}
			return &Pekar{}, nil
		},
	})
	player.Register(player.Info{
		Name:    "pekar-tree",
		Usage:   "pekar-tree[:D]",
		Summary: "Pekař's modified tree search: an extra turn or safe capture first, else D plies (default 3) scored by F = 10(dS1-dS2) + repeats + 5 if the house by the store is empty",
		Source:  "Pekař, Andrla and Dolinay 2018, 3.4 (modified tree search, equation 1)",
		New: func(s player.Spec, o player.Options) (player.Player, error) {
			if err := s.Check(1); err != nil {
				return nil, err
			}
			d, err := strconv.Atoi(s.Arg(0, "3"))
			if err != nil || d < 1 || d > MaxTreeDepth {
				return nil, fmt.Errorf("depth %q: want 1 to %d (the paper used 1 to 4)", s.Arg(0, "3"), MaxTreeDepth)
			}
			return NewPekarTree(d), nil
		},
	})
	player.RegisterLevel(player.Level{Rank: 10, Name: "beginner", Spec: "random",
		Description: "plays at random"})
	player.RegisterLevel(player.Level{Rank: 20, Name: "easy", Spec: "pekar",
		Description: "Pekař's rules of thumb: extra turns, captures, defence"})
	player.RegisterLevel(player.Level{Rank: 30, Name: "medium", Spec: "pekar-tree:3",
		Description: "Pekař's tree search, three plies deep"})
}

// Rule names the rule of Pekař's deterministic hierarchy that chose a move.
type Rule uint8

// The rules, in the order PCplayer tries them.
const (
	RuleStore    Rule = iota // whichLastStoneMancala: the last seed ends in the store
	RuleCapture              // stoneToEmptyHouse: a capture
	RuleDefence              // defense: sow the most threatened house
	RuleFallback             // firstHouse: the first non-empty house from the right
	RuleTree                 // the modified tree search's D-ply search (PekarTree only)
)

var ruleNames = [...]string{"store", "capture", "defence", "fallback", "tree"}

// String names the rule.
func (r Rule) String() string {
	if int(r) < len(ruleNames) {
		return ruleNames[r]
	}
	return fmt.Sprintf("Rule(%d)", r)
}

// Pekar is Pekař's deterministic player (PCplayer in the paper), which
// tries four rules in order:
//
//  1. a move whose last seed ends in the store (whichLastStoneMancala);
//     of several, the one nearest the store, so that the others still
//     reach the store on the extra turns that follow (the paper's advice
//     to "start the sowing from the right");
//  2. a capture (stoneToEmptyHouse): the last seed falls in an own empty
//     house, including the emptied house itself or another after a lap
//     round the board, and the opposite house holds seeds; of several, the
//     one capturing most, ties to the house nearest the store;
//  3. defence: sow the own non-empty house that the opponent, were it to
//     move now, could capture the most seeds from;
//  4. the first non-empty house from the right (firstHouse).
//
// The paper does not say which move to take when a rule allows several;
// the tie-breaks above are our choice.
type Pekar struct{}

// Move chooses by the hierarchy.
func (*Pekar) Move(ctx context.Context, g *kalah.Game, _ player.Clock) (kalah.Move, error) {
	p := g.Position()
	m, _, err := PekarChoice(g.RulesPtr(), &p)
	return m, err
}

// PekarChoice returns the deterministic player's move in p and the rule
// that chose it.
func PekarChoice(r *kalah.Rules, p *kalah.Position) (kalah.Move, Rule, error) {
	if p.Mask() == 0 {
		return kalah.NoMove, 0, fmt.Errorf("%w: no legal move", kalah.ErrGameOver)
	}
	if sm := storeMoves(r, p); sm != 0 {
		return kalah.Move(bits.Len32(sm)), RuleStore, nil
	}
	if h, c := bestCapture(r, p); c > 0 {
		return kalah.Move(h), RuleCapture, nil
	}
	t := threats(r, p, p.ToMove())
	best, most := 0, 0
	for h := p.Houses(); h >= 1; h-- {
		if t[h-1] > most && p.House(p.ToMove(), h) > 0 {
			best, most = h, t[h-1]
		}
	}
	if best > 0 {
		return kalah.Move(best), RuleDefence, nil
	}
	m, err := FirstFromRight(p)
	return m, RuleFallback, err
}

// MaxTreeDepth is the deepest search PekarTree accepts; the paper used 1
// to 4 and found 4 slow.
const MaxTreeDepth = 8

// The weights of Pekař's cost function (1): a per seed of store difference
// gained, b per repeated move, c when the house next to the store is empty.
const (
	CostA = 10
	CostB = 1
	CostC = 5
)

// PekarTree is Pekař's modified tree search. It first plays a strictly
// positive move, one that cannot lose anything:
//
//  1. a move ending in the store and earning another move (of several, the
//     one nearest the store, as Pekar);
//  2. else a safe capture: one that captures more seeds than the opponent
//     could capture back with one sowing in reply (the paper only says a
//     capture is "tested"; this test is our choice); of several, the one
//     with the biggest net gain.
//
// Otherwise it searches Depth plies (single sowings; an extra turn is a ply
// by the same side) with plain minimax, scoring the leaves, where the depth
// runs out or the game ends, by the paper's cost function (1) from its own
// view:
//
//	F = a((S1,end - S1,start) - (S2,end - S2,start)) + b*r + c*e
//
// with a=10, b=1 for each extra turn it earned along the line (r), and c=5
// if its house next to the store is empty at the leaf (e). Ties go to the
// house nearest the store.
//
// The paper's algorithm chains strictly positive moves within one turn;
// here each call chooses one sowing and the referee asks again after an
// extra turn, which comes to the same.
type PekarTree struct {
	Depth int
	last  player.Report
}

// NewPekarTree returns the modified tree search to depth plies.
func NewPekarTree(depth int) *PekarTree { return &PekarTree{Depth: depth} }

// Move chooses by the modified tree search.
func (t *PekarTree) Move(ctx context.Context, g *kalah.Game, _ player.Clock) (kalah.Move, error) {
	if err := ctx.Err(); err != nil {
		return kalah.NoMove, err
	}
	start := time.Now()
	p := g.Position()
	m, rule, score, nodes, err := t.Choose(g.RulesPtr(), &p)
	if err != nil {
		return kalah.NoMove, err
	}
	depth := 0
	if rule == RuleTree {
		depth = t.Depth
	}
	t.last = player.Report{Nodes: nodes, Depth: depth, Score: score, PV: []kalah.Move{m}, Time: time.Since(start)}
	return m, nil
}

// LastReport says how the last move was chosen.
func (t *PekarTree) LastReport() player.Report { return t.last }

// Choose returns the move in p, the rule that chose it (RuleStore,
// RuleCapture or RuleTree), its score (F for the tree search, else the
// seeds gained) and the positions searched.
func (t *PekarTree) Choose(r *kalah.Rules, p *kalah.Position) (kalah.Move, Rule, int, uint64, error) {
	if p.Mask() == 0 {
		return kalah.NoMove, 0, 0, 0, fmt.Errorf("%w: no legal move", kalah.ErrGameOver)
	}
	if sm := storeMoves(r, p); sm != 0 {
		return kalah.Move(bits.Len32(sm)), RuleStore, 1, 0, nil
	}
	me := p.ToMove()
	best, net := 0, 0
	for h := p.Houses(); h >= 1; h-- {
		c := captureOf(r, p, me, h)
		if c == 0 {
			continue
		}
		q := *p
		back := 0
		if q.Play(r, h)&kalah.End == 0 && q.ToMove() != me {
			back = maxThreat(r, &q, me)
		}
		if gain := c + 1 - back; gain > 0 && gain > net {
			best, net = h, gain
		}
	}
	if best > 0 {
		return kalah.Move(best), RuleCapture, net, 0, nil
	}
	s := treeSearch{r: r, me: me, s1: p.Store(me), s2: p.Store(me.Other()), depth: max(t.Depth, 1)}
	m, v := kalah.NoMove, 0
	for mask := p.Mask(); mask != 0; mask &^= 1 << (bits.Len32(mask) - 1) {
		h := bits.Len32(mask)
		q := *p
		val := s.child(&q, q.Play(r, h), me, 1, 0)
		if m == kalah.NoMove || val > v {
			m, v = kalah.Move(h), val
		}
	}
	return m, RuleTree, v, s.nodes, nil
}

// treeSearch is the "standard tree search" of the paper.
type treeSearch struct {
	r      *kalah.Rules
	me     kalah.Side
	s1, s2 int // the stores at the start
	depth  int
	nodes  uint64
}

// cost is the paper's F at a leaf q reached with extra extra turns.
func (s *treeSearch) cost(q *kalah.Position, extra int) int {
	f := CostA*((q.Store(s.me)-s.s1)-(q.Store(s.me.Other())-s.s2)) + CostB*extra
	if q.House(s.me, q.Houses()) == 0 {
		f += CostC
	}
	return f
}

// child values q, reached by a move of mover with effect eff, d plies from
// the root, with extra of the searcher's extra turns on the way.
func (s *treeSearch) child(q *kalah.Position, eff kalah.Effect, mover kalah.Side, d, extra int) int {
	s.nodes++
	if eff&kalah.Extra != 0 && mover == s.me {
		extra++
	}
	if eff&kalah.End != 0 || d >= s.depth {
		return s.cost(q, extra)
	}
	side := q.ToMove()
	best := 0
	first := true
	for mask := q.Mask(); mask != 0; mask &= mask - 1 {
		c := *q
		v := s.child(&c, c.Play(s.r, bits.TrailingZeros32(mask)+1), side, d+1, extra)
		if first || (side == s.me && v > best) || (side != s.me && v < best) {
			best, first = v, false
		}
	}
	return best
}
