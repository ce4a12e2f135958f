package engine

import (
	"math"

	"kalah"
)

// board is a position from the view of the side to move: h[0:n] its houses
// from its left, h[n:2n] the opponent's houses from the opponent's left (so
// both in sowing order), and the two stores, mover's first. The stores only
// matter under the early end; every value is a difference of future gains.
type board struct {
	h     [32]uint8
	store [2]int16
}

// game is what of the rules the search needs.
type game struct {
	n, m         int
	cycle        int // pits a sowing passes: the houses, the mover's store, maybe the opponent's
	emptyCapture bool
	sowOpp       bool
	earlyEnd     bool
	end          kalah.EndRule
	half         int // early end: a store above half of all seeds ends the game
}

func newGame(r kalah.Rules) game {
	g := game{n: r.Houses, m: 2 * r.Houses, emptyCapture: r.EmptyCapture, sowOpp: r.SowOpponentStore,
		earlyEnd: r.EarlyEnd, end: r.End, half: r.TotalSeeds() / 2}
	g.cycle = 2*g.n + 1
	if g.sowOpp {
		g.cycle++
	}
	return g
}

// fromPosition converts a position (in play, not over) to a board from the
// mover's view.
func (g *game) fromPosition(p *kalah.Position) board {
	var b board
	me := p.ToMove()
	for i := 0; i < g.n; i++ {
		b.h[i] = uint8(p.House(me, i+1))
		b.h[g.n+i] = uint8(p.House(me.Other(), i+1))
	}
	b.store[0], b.store[1] = int16(p.Store(me)), int16(p.Store(me.Other()))
	return b
}

// seeds returns the seeds in the houses.
func (g *game) seeds(b *board) int {
	t := 0
	for _, x := range b.h[:g.m] {
		t += int(x)
	}
	return t
}

// play sows the mover's house i (0-based). It returns the change of the
// store difference for the mover, whether the mover moves again, and whether
// the game ended (the houses are then swept and empty). When the turn passes
// the board is mirrored to the new mover's view.
func (g *game) play(b *board, i int) (delta int, extra, over bool) {
	n := g.n
	s0, s1 := b.store[0], b.store[1]
	s := int(b.h[i])
	b.h[i] = 0
	if s >= g.cycle {
		laps := s / g.cycle
		s -= laps * g.cycle
		for j := 0; j < g.m; j++ {
			b.h[j] += uint8(laps)
		}
		b.store[0] += int16(laps)
		if g.sowOpp {
			b.store[1] += int16(laps)
		}
	}
	p := i
	// The seeds left fall in i+1.. of the cycle: houses 0..n-1, the store
	// at n, the opponent's houses at n+1..2n, its store at 2n+1.
	if i+s < n {
		for j := i + 1; j <= i+s; j++ {
			b.h[j]++
		}
		p = i + s
	} else {
		for ; s > 0; s-- {
			p++
			if p == g.cycle {
				p = 0
			}
			switch {
			case p < n:
				b.h[p]++
			case p == n:
				b.store[0]++
			case p <= 2*n:
				b.h[p-1]++
			default:
				b.store[1]++
			}
		}
	}
	if p == n {
		extra = true
	} else if p < n && b.h[p] == 1 {
		o := 2*n - 1 - p
		if b.h[o] != 0 || g.emptyCapture {
			b.store[0] += int16(b.h[o]) + 1
			b.h[o], b.h[p] = 0, 0
		}
	}
	mine, theirs := 0, 0
	for j := 0; j < n; j++ {
		mine += int(b.h[j])
		theirs += int(b.h[n+j])
	}
	next := theirs
	if extra {
		next = mine
	}
	switch g.end {
	case kalah.EitherEmpty:
		over = mine == 0 || theirs == 0
	case kalah.MoverEmpty:
		over = mine == 0 || next == 0
	default:
		over = next == 0
	}
	if g.earlyEnd && (int(b.store[0]) > g.half || int(b.store[1]) > g.half) {
		over = true
	}
	if over {
		b.store[0] += int16(mine)
		b.store[1] += int16(theirs)
		for j := 0; j < g.m; j++ {
			b.h[j] = 0
		}
	}
	delta = int(b.store[0]-s0) - int(b.store[1]-s1)
	if !over && !extra {
		for j := 0; j < n; j++ {
			b.h[j], b.h[n+j] = b.h[n+j], b.h[j]
		}
		b.store[0], b.store[1] = b.store[1], b.store[0]
	}
	return delta, extra, over
}

// binom[a][b] is C(a, b), saturated at math.MaxUint64.
var binom [300][33]uint64

func init() {
	for a := range binom {
		binom[a][0] = 1
		for c := 1; c <= min(a, 32); c++ {
			x, y := binom[a-1][c-1], binom[a-1][c]
			if x > math.MaxUint64-y {
				binom[a][c] = math.MaxUint64
			} else {
				binom[a][c] = x + y
			}
		}
	}
}

// exactKeys reports whether every board of up to total seeds in m houses
// has a distinct 64-bit key (rankKey).
func exactKeys(m, total int) bool {
	return total+m < len(binom) && binom[total+m][m] < 1<<63
}

// rankKey numbers the houses by the colex rank of their stars-and-bars bar
// positions: distinct houses get distinct keys, whatever their seed count.
func (g *game) rankKey(b *board) uint64 {
	var r uint64
	p := 0
	for j := 0; j < g.m; j++ {
		p += int(b.h[j])
		r += binom[p+j][j+1]
	}
	return r
}

// hashKey mixes the houses (and the stores, which matter under the early
// end) into 64 bits, for boards too large for rankKey. Distinct boards may
// collide with probability about 2^-64 a pair.
func (g *game) hashKey(b *board) uint64 {
	var x uint64 = 0x9E3779B97F4A7C15
	for w := 0; w < 4; w++ {
		var v uint64
		for j := 0; j < 8; j++ {
			v |= uint64(b.h[w*8+j]) << (8 * j)
		}
		x = mix(x ^ v)
	}
	if g.earlyEnd {
		x = mix(x ^ uint64(uint16(b.store[0])) ^ uint64(uint16(b.store[1]))<<16)
	}
	return x
}

func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xBF58476D1CE4E5B9
	x ^= x >> 27
	x *= 0x94D049BB133111EB
	x ^= x >> 31
	return x
}
