package book

import (
	"math"

	"kalah"
	kboard "kalah/internal/board"
)

// maxBinom bounds seeds plus pits (below kboard.ChooseRows).
const maxBinom = 160

// exactKeys reports whether every board of 2n houses holding up to total
// seeds has a distinct key: the boards number C(total+2n, 2n).
func exactKeys(n, total int) bool {
	return total+2*n <= maxBinom && kboard.Choose(total+2*n, 2*n) < math.MaxUint64
}

// boardKey numbers the houses h (the mover's from its left, then the
// opponent's) by the colex rank of the stars-and-bars bar positions, with a
// bar after the last house too, so boards of every total are numbered
// together: distinct boards, distinct keys.
func boardKey(h []uint8) uint64 { return kboard.ColexRank(h) }

// Key returns the key of position p: its houses from the view of the side
// to move. It is exact while the board's seeds fit the book's rules.
func Key(p *kalah.Position) uint64 {
	var h [2 * kalah.MaxHouses]uint8
	n := p.Houses()
	me := p.ToMove()
	for i := 0; i < n; i++ {
		h[i] = uint8(min(p.House(me, i+1), 255))
		h[n+i] = uint8(min(p.House(me.Other(), i+1), 255))
	}
	return boardKey(h[:2*n])
}
