package kalah

import "math/bits"

// Perft counts the move paths exactly depth plies long from p under r: each
// sowing is a ply, and so is a pie-rule swap. A game that ends before depth
// plies contributes nothing; one that ends on the last ply counts. Perft(r,
// p, 0) is 1. It counts the last ply in bulk (the number of legal moves)
// rather than playing it, which gives the same number.
//
// Perft is the standard check of a move generator: two implementations of
// the same rules must agree at every depth.
func Perft(r *Rules, p Position, depth int) uint64 {
	if depth <= 0 {
		return 1
	}
	if p.Over(r) {
		return 0
	}
	return perft(r, p, depth)
}

// perft counts below a position that is not over; depth >= 1.
func perft(r *Rules, p Position, depth int) uint64 {
	mask := p.Mask()
	if depth == 1 {
		n := uint64(bits.OnesCount32(mask))
		if p.phase == PhaseSwap {
			n++
		}
		return n
	}
	var total uint64
	if p.phase == PhaseSwap {
		q := p
		q.Swap()
		total += perft(r, q, depth-1)
	}
	for ; mask != 0; mask &= mask - 1 {
		q := p
		if q.Play(r, bits.TrailingZeros32(mask)+1)&End == 0 {
			total += perft(r, q, depth-1)
		}
	}
	return total
}

// PerftPlayed is Perft without the bulk count: it plays every move of the
// last ply too. It exists to measure the speed of Play and to check the
// bulk count.
func PerftPlayed(r *Rules, p Position, depth int) uint64 {
	if depth <= 0 {
		return 1
	}
	if p.Over(r) {
		return 0
	}
	return perftPlayed(r, p, depth)
}

func perftPlayed(r *Rules, p Position, depth int) uint64 {
	var total uint64
	if p.phase == PhaseSwap {
		if depth == 1 {
			total++
		} else {
			q := p
			q.Swap()
			total += perftPlayed(r, q, depth-1)
		}
	}
	for mask := p.Mask(); mask != 0; mask &= mask - 1 {
		q := p
		eff := q.Play(r, bits.TrailingZeros32(mask)+1)
		switch {
		case depth == 1:
			total++
		case eff&End == 0:
			total += perftPlayed(r, q, depth-1)
		}
	}
	return total
}

// PerftTurns counts like Perft but takes a whole turn as one ply: a chain
// of sowings joined by extra turns is one ply, and so is a swap. Chains that
// reach the same position by different sowings count separately.
func PerftTurns(r *Rules, p Position, depth int) uint64 {
	if depth <= 0 {
		return 1
	}
	if p.Over(r) {
		return 0
	}
	return perftTurns(r, p, depth)
}

// perftTurns counts the turns of the side to move in p, which is not over,
// followed by depth-1 more turns.
func perftTurns(r *Rules, p Position, depth int) uint64 {
	var total uint64
	if p.phase == PhaseSwap {
		if depth == 1 {
			total++
		} else {
			q := p
			q.Swap()
			total += perftTurns(r, q, depth-1)
		}
	}
	for mask := p.Mask(); mask != 0; mask &= mask - 1 {
		q := p
		eff := q.Play(r, bits.TrailingZeros32(mask)+1)
		switch {
		case eff&End != 0:
			if depth == 1 {
				total++
			}
		case eff&Extra != 0:
			total += perftTurns(r, q, depth) // the same turn goes on
		case depth == 1:
			total++
		default:
			total += perftTurns(r, q, depth-1)
		}
	}
	return total
}
