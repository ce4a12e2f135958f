package engine

import (
	"kalah"
	kboard "kalah/internal/board"
)

// board is a position from the view of the side to move, sown by the
// sowing shared with the endgame databases (package internal/board).
type board = kboard.Board

// game is what of the rules the search needs: the shared sowing.
type game = kboard.Game

// exactKeys reports whether every board of up to total seeds in m houses
// has a distinct 64-bit key (rankKey).
func exactKeys(m, total int) bool {
	return total+m < kboard.ChooseRows && kboard.Choose(total+m, m) < 1<<63
}

// rankKey numbers the houses by the colex rank of their stars-and-bars bar
// positions: distinct houses get distinct keys, whatever their seed count.
func rankKey(b *board, m int) uint64 { return kboard.ColexRank(b.H[:m]) }

// hashKey mixes the houses (and the stores, which matter under the early
// end) into 64 bits, for boards too large for rankKey. Distinct boards may
// collide with probability about 2^-64 a pair.
func hashKey(b *board, earlyEnd bool) uint64 {
	var x uint64 = 0x9E3779B97F4A7C15
	for w := 0; w < 4; w++ {
		var v uint64
		for j := 0; j < 8; j++ {
			v |= uint64(b.H[w*8+j]) << (8 * j)
		}
		x = mix(x ^ v)
	}
	if earlyEnd {
		x = mix(x ^ uint64(uint16(b.Store[0])) ^ uint64(uint16(b.Store[1]))<<16)
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

func newGame(r kalah.Rules) game { return kboard.New(r) }
