package board

import "math"

// MaxRankSeeds is the most seeds ColexRank takes.
const MaxRankSeeds = 255

// ChooseRows bounds Choose's first argument.
const ChooseRows = 300

// binom[a][b] is C(a, b), saturated at math.MaxUint64.
var binom [ChooseRows][34]uint64

// colex[j][p] is C(p+j, j+1): the term of house j when houses 0..j hold p
// seeds.
var colex [32][MaxRankSeeds + 1]uint64

func init() {
	for a := range binom {
		binom[a][0] = 1
		for c := 1; c <= min(a, 33); c++ {
			x, y := binom[a-1][c-1], binom[a-1][c]
			if x > math.MaxUint64-y {
				binom[a][c] = math.MaxUint64
			} else {
				binom[a][c] = x + y
			}
		}
	}
	for j := range colex {
		for p := range colex[j] {
			colex[j][p] = binom[p+j][j+1]
		}
	}
}

// Choose returns C(a, b), saturated at math.MaxUint64, for a < ChooseRows
// and b <= 33: the one binomial table of the engine, the endgame databases
// and the opening books.
func Choose(a, b int) uint64 { return binom[a][b] }

// ColexRank returns the sum over houses j of C(P_j+j, j+1), where P_j is
// the seeds in houses 0..j: with every house but the last of a
// configuration of k seeds, its colex rank among the configurations of k
// seeds (the stars-and-bars bar positions, package egdb's index); with every
// house, a number distinct for every configuration of any seeds (the
// engine's table key). h holds at most MaxRankSeeds seeds and 32 houses.
// Eleven and twelve houses (boards of six a side) take an unrolled path:
// it is the inner loop of the database build and of every probe.
func ColexRank(h []uint8) uint64 {
	switch len(h) {
	case 11:
		r, _ := rank11((*[11]uint8)(h))
		return r
	case 12:
		r, p := rank11((*[11]uint8)(h))
		p = (p + uint(h[11])) & MaxRankSeeds
		return r + colex[11][p]
	}
	var r uint64
	p := 0
	for j, c := range h {
		p += int(c)
		r += colex[j][p]
	}
	return r
}

// rank11 is ColexRank of eleven houses, unrolled; it also returns their
// seeds. The masks keep the indices in range without bounds checks (the
// seeds are at most MaxRankSeeds).
func rank11(h *[11]uint8) (uint64, uint) {
	const m = MaxRankSeeds
	p := uint(h[0])
	r := colex[0][p&m]
	p += uint(h[1])
	r += colex[1][p&m]
	p += uint(h[2])
	r += colex[2][p&m]
	p += uint(h[3])
	r += colex[3][p&m]
	p += uint(h[4])
	r += colex[4][p&m]
	p += uint(h[5])
	r += colex[5][p&m]
	p += uint(h[6])
	r += colex[6][p&m]
	p += uint(h[7])
	r += colex[7][p&m]
	p += uint(h[8])
	r += colex[8][p&m]
	p += uint(h[9])
	r += colex[9][p&m]
	p += uint(h[10])
	r += colex[10][p&m]
	return r, p
}
