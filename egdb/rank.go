package egdb

import (
	"math"

	kboard "kalah/internal/board"
)

// maxBinom bounds seeds plus houses (below kboard.ChooseRows).
const maxBinom = 128

// Count returns the number of configurations of exactly k seeds in m houses:
// C(k+m-1, m-1).
func Count(k, m int) uint64 {
	if m < 1 || m > 34 || k < 0 || k+m-1 > maxBinom {
		return math.MaxUint64
	}
	return kboard.Choose(k+m-1, m-1)
}

// Rank returns the index of a configuration of k seeds (the sum of h) among
// all configurations of k seeds in len(h) houses: the colex rank of the
// stars-and-bars bar positions, in [0, Count(k, len(h))). The last house
// follows from the others and k (package board's ColexRank).
func Rank(h []uint8) uint64 {
	if len(h) == 0 {
		return 0
	}
	return kboard.ColexRank(h[:len(h)-1])
}

// unrank fills h (of m houses) with the configuration of k seeds of rank r.
func unrank(h []uint8, k int, r uint64) {
	m := len(h)
	// Bars j = m-2 .. 0 sit at positions b_j with r = sum C(b_j, j+1).
	next := k + m - 1 // position after the last bar's possible range
	prefix := make([]int, m)
	for j := m - 2; j >= 0; j-- {
		b := next - 1
		for kboard.Choose(b, j+1) > r {
			b--
		}
		r -= kboard.Choose(b, j+1)
		prefix[j] = b - j
		next = b
	}
	prev := 0
	for j := 0; j < m-1; j++ {
		h[j] = uint8(prefix[j] - prev)
		prev = prefix[j]
	}
	h[m-1] = uint8(k - prev)
}
