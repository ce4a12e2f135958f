// Package board is the compact sowing shared by the perfect-play engine
// (package engine) and the endgame databases (package egdb): a position from
// the view of the side to move, played in place without allocation. Both
// packages are verified against kalah.Position for every rule switch, so
// there is one sowing to trust, not two.
package board

import (
	"encoding/binary"

	"kalah"
)

// Board is a position from the view of the side to move: H[0:n] its houses
// from its left, H[n:2n] the opponent's houses from the opponent's left (so
// both in sowing order), and the two stores, mover's first. The stores only
// decide play under the early end; every value the engine and the databases
// compute is a difference of future gains.
type Board struct {
	H     [32]uint8
	Store [2]int16
}

// Game is what of the rules sowing needs. The zero value is not usable;
// make one with New.
type Game struct {
	N, M         int // houses a side, houses in all
	cycle        int // pits a sowing passes: the houses, the mover's store, maybe the opponent's
	emptyCapture bool
	sowOpp       bool
	earlyEnd     bool
	end          kalah.EndRule
	half         int  // early end: a store above half of all seeds ends the game
	six          bool // six houses a side, no sowing into the opponent's store: Play by words
}

// New returns the sowing of rules r (at most 16 houses a side).
func New(r kalah.Rules) Game {
	g := Game{N: r.Houses, M: 2 * r.Houses, emptyCapture: r.EmptyCapture, sowOpp: r.SowOpponentStore,
		earlyEnd: r.EarlyEnd, end: r.End, half: r.TotalSeeds() / 2}
	g.cycle = 2*g.N + 1
	if g.sowOpp {
		g.cycle++
	}
	g.six = g.N == 6 && !g.sowOpp
	return g
}

// EarlyEnd reports whether the stores can end the game (KGP's early end).
func (g *Game) EarlyEnd() bool { return g.earlyEnd }

// FromPosition converts a position (in play, not over) to a board from the
// mover's view.
func (g *Game) FromPosition(p *kalah.Position) Board {
	var b Board
	me := p.ToMove()
	for i := 0; i < g.N; i++ {
		b.H[i] = uint8(p.House(me, i+1))
		b.H[g.N+i] = uint8(p.House(me.Other(), i+1))
	}
	b.Store[0], b.Store[1] = int16(p.Store(me)), int16(p.Store(me.Other()))
	return b
}

// Seeds returns the seeds in the houses.
func (g *Game) Seeds(b *Board) int {
	if g.N == 6 {
		lo, hi := sides6(b)
		return byteSum(lo) + byteSum(hi)
	}
	t := 0
	for _, x := range b.H[:g.M] {
		t += int(x)
	}
	return t
}

// Six houses a side, the standard board, are read and written as words:
// the search sums both sides and mirrors the board at almost every node,
// and a byte at a time that was a fifth of its instructions.

// sides6 returns a six-house board's two rows of houses, the mover's and
// the opponent's, six bytes each in the low bytes of a word.
func sides6(b *Board) (mine, theirs uint64) {
	lo := binary.LittleEndian.Uint64(b.H[0:8])
	hi := uint64(binary.LittleEndian.Uint32(b.H[8:12]))
	return lo & (1<<48 - 1), lo>>48 | hi<<16
}

// setSides6 writes a six-house board's two rows of houses.
func setSides6(b *Board, mine, theirs uint64) {
	binary.LittleEndian.PutUint64(b.H[0:8], mine|theirs<<48)
	binary.LittleEndian.PutUint32(b.H[8:12], uint32(theirs>>16))
}

// byteSum returns the sum of the eight bytes of x: adjacent bytes added
// into 16-bit lanes, then the lanes gathered into the top lane by one
// multiplication (at most 8 × 255, so no lane overflows).
func byteSum(x uint64) int {
	x = x&0x00FF00FF00FF00FF + x>>8&0x00FF00FF00FF00FF
	return int(x * 0x0001000100010001 >> 48)
}

// Play sows the mover's house i (0-based, not empty). It returns the change
// of the store difference for the mover, whether the mover moves again, and
// whether the game ended (the houses are then swept into the stores and left
// empty). When the turn passes the board is mirrored to the new mover's view.
//
// On the standard board (six houses, no sowing into the opponent's store)
// the seeds are added a row at a time from sow6 (and whole laps to every
// house), the capture and the end read from the two rows as words; else it
// is play's, a seed at a time.
func (g *Game) Play(b *Board, i int) (delta int, extra, over bool) {
	if g.six {
		return g.play6(b, b, i)
	}
	return g.play(b, i)
}

// PlayFrom is Play of house i of src written to dst (a board of the same
// rules, which may be src itself), src left as it was: dst's bytes past
// the houses are not written (zero in every board of the rules). On the standard
// board it reads src's rows and writes dst's, where copying src first and
// sowing the copy would read words just written in other widths (a copy
// stores 16 bytes, a sowing reads 8 and 4): such a load waits for the
// stores to leave instead of taking their bytes (no store forwarding).
func (g *Game) PlayFrom(dst, src *Board, i int) (delta int, extra, over bool) {
	if g.six {
		return g.play6(dst, src, i)
	}
	if dst != src {
		*dst = *src
	}
	return g.play(dst, i)
}

// play6 is PlayFrom on the standard board.
func (g *Game) play6(b, src *Board, i int) (delta int, extra, over bool) {
	// House i emptied in the row read, not in memory first: a byte stored
	// and read back within a word would stall the load likewise.
	s := int(src.H[i&31])
	lo := binary.LittleEndian.Uint64(src.H[0:8]) &^ (0xFF << (uint(8*i) & 63))
	hi := uint64(binary.LittleEndian.Uint32(src.H[8:12]))
	s0, s1 := src.Store[0], src.Store[1]
	var st int
	if s >= 13 {
		laps := s / 13
		s -= laps * 13
		lo += 0x0101010101010101 * uint64(laps)
		hi += 0x01010101 * uint64(laps)
		st = laps
	}
	m := &sow6[(13*i+s)&127]
	lo += m.lo
	hi += m.hi
	st += int(m.store)
	row, other := lo&(1<<48-1), lo>>48|hi<<16
	switch p := uint(m.last); {
	case p == 6:
		extra = true
	case p < 6 && row>>(8*p)&0xFF == 1:
		// House p was empty: the seeds opposite (the opponent's house 5-p
		// from its left) and the last seed go to the store.
		q := 8 * (5 - p)
		if o := int(other >> q & 0xFF); o != 0 || g.emptyCapture {
			st += o + 1
			row &^= 0xFF << (8 * p)
			other &^= 0xFF << q
		}
	}
	// A side is empty when its row is: the seeds are counted only when
	// the game ends.
	switch g.end {
	case kalah.EitherEmpty:
		over = row == 0 || other == 0
	case kalah.MoverEmpty:
		over = row == 0 || !extra && other == 0
	default:
		over = extra && row == 0 || !extra && other == 0
	}
	st0 := int(s0) + st
	if g.earlyEnd && (st0 > g.half || int(s1) > g.half) {
		over = true
	}
	delta = st
	switch {
	case over:
		mine, theirs := byteSum(row), byteSum(other)
		b.Store[0] = int16(st0 + mine)
		b.Store[1] = s1 + int16(theirs)
		setSides6(b, 0, 0)
		delta += mine - theirs
	case extra:
		b.Store[0], b.Store[1] = int16(st0), s1
		setSides6(b, row, other)
	default:
		b.Store[0], b.Store[1] = s1, int16(st0)
		setSides6(b, other, row)
	}
	return delta, extra, over
}

// play is Play of any board, a seed at a time.
func (g *Game) play(b *Board, i int) (delta int, extra, over bool) {
	n := g.N
	s0, s1 := b.Store[0], b.Store[1]
	s := int(b.H[i])
	b.H[i] = 0
	if s >= g.cycle {
		laps := s / g.cycle
		s -= laps * g.cycle
		for j := 0; j < g.M; j++ {
			b.H[j] += uint8(laps)
		}
		b.Store[0] += int16(laps)
		if g.sowOpp {
			b.Store[1] += int16(laps)
		}
	}
	p := i
	// The seeds left fall in i+1.. of the cycle: houses 0..n-1, the store
	// at n, the opponent's houses at n+1..2n, its store at 2n+1.
	if i+s < n {
		for j := i + 1; j <= i+s; j++ {
			b.H[j]++
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
				b.H[p]++
			case p == n:
				b.Store[0]++
			case p <= 2*n:
				b.H[p-1]++
			default:
				b.Store[1]++
			}
		}
	}
	if p == n {
		extra = true
	} else if p < n && b.H[p] == 1 {
		o := 2*n - 1 - p
		if b.H[o] != 0 || g.emptyCapture {
			b.Store[0] += int16(b.H[o]) + 1
			b.H[o], b.H[p] = 0, 0
		}
	}
	var mine, theirs int
	var row, other uint64 // the rows, if six houses a side
	if n == 6 {
		row, other = sides6(b)
		mine, theirs = byteSum(row), byteSum(other)
	} else {
		for j := 0; j < n; j++ {
			mine += int(b.H[j])
			theirs += int(b.H[n+j])
		}
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
	if g.earlyEnd && (int(b.Store[0]) > g.half || int(b.Store[1]) > g.half) {
		over = true
	}
	if over {
		b.Store[0] += int16(mine)
		b.Store[1] += int16(theirs)
		for j := 0; j < g.M; j++ {
			b.H[j] = 0
		}
	}
	delta = int(b.Store[0]-s0) - int(b.Store[1]-s1)
	if !over && !extra {
		if n == 6 {
			setSides6(b, other, row)
		} else {
			for j := 0; j < n; j++ {
				b.H[j], b.H[n+j] = b.H[n+j], b.H[j]
			}
		}
		b.Store[0], b.Store[1] = b.Store[1], b.Store[0]
	}
	return delta, extra, over
}

// Predict returns what Play(b, i) would return as its delta and extra turn,
// without sowing, if the game does not end by the move; a move that ends the
// game sweeps the houses into the stores, which Predict does not count. It
// is arithmetic on the seeds of house i, of the last house sown and of the
// house opposite: the search orders its moves by it and sows only the ones
// it searches.
func (g *Game) Predict(b *Board, i int) (delta int, extra bool) {
	if g.six && b.H[i&31] < 13 {
		return g.Predict6(b, i)
	}
	return g.predict(b, i)
}

// Predict6 is Predict on the standard board (Game.Six) of a house of fewer
// than 13 seeds, which sow no lap: small enough for the compiler to inline
// in the search's loop over the moves, where a call would spill its state.
func (g *Game) Predict6(b *Board, i int) (delta int, extra bool) {
	t := &predict6[(i+int(b.H[i&31]))&31]
	if t.capture != 0 && b.H[t.last&31] == 0 { // the last seed's house was empty: a capture
		if o := int(b.H[t.opp&31]) + int(t.passed); o != 0 || g.emptyCapture {
			return o + int(t.capture), false
		}
	}
	return int(t.delta), t.extra
}

// Six reports whether the board is the standard one, six houses a side
// without sowing into the opponent's store, which Play and Predict6 serve
// by words and tables.
func (g *Game) Six() bool { return g.six }

// prediction6 is what Predict needs of the last seed of a sowing without a
// lap on the standard board, by the cycle position e it falls in, counted
// from house 0 of the mover (e < 18): the mover's house e (e < 6), the
// store (6), the opponent's houses (7-12), the mover's house e-13 (13-17).
type prediction6 struct {
	last    uint8 // the mover's house it falls in, if any: a capture if it was empty
	opp     uint8 // the house opposite it
	passed  uint8 // 1 if the sowing put a seed in the house opposite
	capture int8  // a capture takes the seeds opposite and this many more; 0 if no house of the mover
	delta   int8  // else the gain
	extra   bool
}

var predict6 = func() (t [32]prediction6) {
	for e := range t {
		p := &t[e]
		switch {
		case e < 6:
			p.last, p.opp, p.capture = uint8(e), uint8(11-e), 1
		case e == 6:
			p.delta, p.extra = 1, true
		case e < 13:
			p.delta = 1
		case e < 18:
			// Past the store: its seed, and the opposite house was sown.
			p.last, p.opp, p.passed, p.capture, p.delta = uint8(e-13), uint8(24-e), 1, 2, 1
		}
	}
	return t
}()

// predict is Predict on any board.
func (g *Game) predict(b *Board, i int) (delta int, extra bool) {
	n, c := g.N, g.cycle
	r, laps := int(b.H[i]), 0
	if r >= c {
		laps, r = r/c, r%c
	}
	end := i + r // the cycle position of the last seed, maybe one lap on
	delta = laps
	if end >= n {
		delta++
	}
	if g.sowOpp {
		delta -= laps
		if end >= 2*n+1 {
			delta--
		}
	}
	p := end
	if p >= c {
		p -= c
	}
	if p == n {
		return delta, true
	}
	if p > n {
		return delta, false
	}
	// The last seed fell in the mover's house p: a capture if it was empty
	// (house i is, sown from), counting the laps.
	own := laps
	if p != i {
		own += int(b.H[p])
	}
	if r > 0 {
		own++ // the last seed
	}
	if own != 1 {
		return delta, false
	}
	o := 2*n - 1 - p // the opposite house, at cycle position o+1
	opp := int(b.H[o]) + laps
	// It got a seed of the remainder if its position is 1..r on from i.
	if d := o + 1 - i; d <= r && d >= 1 || d <= 0 && d+c <= r {
		opp++
	}
	if opp != 0 || g.emptyCapture {
		delta += opp + 1
	}
	return delta, false
}

// Terminal reports whether a board to move is already over, and its value
// if so: the end conditions that do not depend on the last mover
// (kalah.Position.Over), the mover's houses empty or, under the either-empty
// rule, the opponent's. It ignores the early end, which needs the stores.
func (g *Game) Terminal(b *Board) (int, bool) {
	mine, theirs := 0, 0
	if g.six {
		// The two rows as words, as play6 reads them.
		lo := binary.LittleEndian.Uint64(b.H[0:8])
		hi := uint64(binary.LittleEndian.Uint32(b.H[8:12]))
		mine, theirs = byteSum(lo&(1<<48-1)), byteSum(lo>>48|hi<<16)
	} else {
		for j := 0; j < g.N; j++ {
			mine += int(b.H[j])
			theirs += int(b.H[g.N+j])
		}
	}
	if mine == 0 || (g.end == kalah.EitherEmpty && theirs == 0) {
		return mine - theirs, true
	}
	return 0, false
}

// sowing6 is where the seeds of one sowing on the standard board fall,
// after its whole laps: sow6[13*i+r] for r seeds from house i (r < 13, the
// cycle of twelve houses and the mover's store). The two words add one to
// each house sown (bytes 0-7 and 8-11 of Board.H), store is 1 if the store
// gets a seed, and last is the cycle position of the last seed: a house of
// the mover (0-5), its store (6), an opponent's house (7-12).
type sowing6 struct {
	lo, hi uint64
	store  int16
	last   int8
}

var sow6 = func() (t [128]sowing6) { // 78 used: a power of two for a mask instead of a bounds check
	for i := range 6 {
		for r := range 13 {
			m := &t[13*i+r]
			m.last = int8(i)
			for k := 1; k <= r; k++ {
				p := (i + k) % 13
				m.last = int8(p)
				switch {
				case p < 6:
					m.lo += 1 << (8 * p)
				case p == 6:
					m.store++
				case p < 9: // houses 6 and 7 of H
					m.lo += 1 << (8 * (p - 1))
				default:
					m.hi += 1 << (8 * (p - 9))
				}
			}
		}
	}
	return t
}()
