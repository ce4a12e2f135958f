package book

import (
	"math"

	"kalah"
)

// maxBinom bounds the binomial table: seeds plus pits.
const maxBinom = 160

// binom[a][b] is C(a, b), saturated at math.MaxUint64.
var binom [maxBinom + 1][2*kalah.MaxHouses + 1]uint64

func init() {
	for a := 0; a <= maxBinom; a++ {
		binom[a][0] = 1
		for b := 1; b <= min(a, 2*kalah.MaxHouses); b++ {
			x, y := binom[a-1][b-1], binom[a-1][b]
			if x > math.MaxUint64-y {
				binom[a][b] = math.MaxUint64
			} else {
				binom[a][b] = x + y
			}
		}
	}
}

// exactKeys reports whether every board of 2n houses holding up to total
// seeds has a distinct key: the boards number C(total+2n, 2n).
func exactKeys(n, total int) bool {
	return total+2*n <= maxBinom && binom[total+2*n][2*n] < math.MaxUint64
}

// boardKey numbers the houses h (the mover's from its left, then the
// opponent's) by the colex rank of the stars-and-bars bar positions, with a
// bar after the last house too, so boards of every total are numbered
// together: distinct boards, distinct keys.
func boardKey(h []uint8) uint64 {
	var r uint64
	p := 0
	for j, x := range h {
		p += int(x)
		r += binom[p+j][j+1]
	}
	return r
}

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
