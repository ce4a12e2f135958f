package heuristic

import (
	"math/bits"

	"kalah"
)

// board is every pit of a position in sowing order (see kalah.Position).
type board [2*kalah.MaxHouses + 2]int

// sow simulates side s sowing its house h (1..n from s's left) in p under
// r, whoever is to move in p, without the capture and end rules. It returns
// the pits afterwards and the index of the pit the last seed fell in, or
// -1 if the house is empty.
func sow(r *kalah.Rules, p *kalah.Position, s kalah.Side, h int) (b board, last int) {
	n := p.Houses()
	pits := 2*n + 2
	for i := 0; i < pits; i++ {
		b[i] = p.Pit(i)
	}
	base := int(s) * (n + 1)
	skip := (base + 2*n + 1) % pits // the opponent's store
	if r.SowOpponentStore {
		skip = -1
	}
	i := base + h - 1
	seeds := b[i]
	if seeds == 0 {
		return b, -1
	}
	b[i] = 0
	last = i
	for seeds > 0 {
		last = (last + 1) % pits
		if last == skip {
			continue
		}
		b[last]++
		seeds--
	}
	return b, last
}

// captureOf returns how many of the opponent's seeds side s captures by
// sowing house h in p, as Pekař's stoneToEmptyHouse sees it: the last seed
// falls in an own house that was empty (the emptied house itself after a
// lap round the board counts) and the opposite house holds seeds. It is 0
// when the move captures nothing, and the empty-capture rule is ignored: an
// empty opposite house gains nothing.
func captureOf(r *kalah.Rules, p *kalah.Position, s kalah.Side, h int) int {
	b, last := sow(r, p, s, h)
	n := p.Houses()
	base := int(s) * (n + 1)
	if last < base || last >= base+n || b[last] != 1 {
		return 0
	}
	return b[2*n-last]
}

// storeMoves returns the mover's houses whose sowing ends in its store and
// earns another move, as a bit set (bit h-1 for house h).
func storeMoves(r *kalah.Rules, p *kalah.Position) uint32 {
	var m uint32
	for mask := p.Mask(); mask != 0; mask &= mask - 1 {
		h := bits.TrailingZeros32(mask) + 1
		q := *p
		if q.Play(r, h)&kalah.Extra != 0 {
			m |= 1 << (h - 1)
		}
	}
	return m
}

// bestCapture returns the mover's house capturing the most seeds (ties to
// the house nearest the store) and how many, or 0, 0 if none captures.
func bestCapture(r *kalah.Rules, p *kalah.Position) (int, int) {
	me := p.ToMove()
	best, most := 0, 0
	for h := p.Houses(); h >= 1; h-- {
		if c := captureOf(r, p, me, h); c > most {
			best, most = h, c
		}
	}
	return best, most
}

// threats returns, for each of side s's houses (index h-1), the most seeds
// the opponent could capture from it with one sowing if it were to move
// now.
func threats(r *kalah.Rules, p *kalah.Position, s kalah.Side) [kalah.MaxHouses]int {
	var t [kalah.MaxHouses]int
	n := p.Houses()
	opp := s.Other()
	obase := int(opp) * (n + 1)
	for h := 1; h <= n; h++ {
		b, last := sow(r, p, opp, h)
		if last < obase || last >= obase+n || b[last] != 1 {
			continue
		}
		victim := 2*n - last // a pit of s's, 0-based within the board
		c := b[victim]
		if c == 0 {
			continue
		}
		vh := victim - int(s)*(n+1) + 1
		t[vh-1] = max(t[vh-1], c)
	}
	return t
}

// maxThreat returns the most seeds the opponent of the mover in p could
// capture with one sowing if it were to move now.
func maxThreat(r *kalah.Rules, p *kalah.Position, s kalah.Side) int {
	m := 0
	for _, c := range threats(r, p, s) {
		m = max(m, c)
	}
	return m
}
