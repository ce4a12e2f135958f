package egdb

import "kalah"

// variant is what of the rules decides the value of a configuration.
type variant struct {
	n            int
	emptyCapture bool
	end          kalah.EndRule
	sowOpp       bool
}

func newVariant(r kalah.Rules) variant {
	return variant{n: r.Houses, emptyCapture: r.EmptyCapture, end: r.End, sowOpp: r.SowOpponentStore}
}

// sow plays house i (0-based) of the mover in h, laid out from the mover's
// view: h[0:n] the mover's houses from its left, h[n:2n] the opponent's from
// its left. It returns the change in (mover's store - opponent's store),
// whether the mover moves again, and whether the game ended (the houses are
// then swept into the stores and left empty). When the turn passes, h is
// mirrored so that it is again from the view of the side to move.
func (v *variant) sow(h *[32]uint8, i int) (delta int, extra, over bool) {
	n := v.n
	cycle := 2*n + 1 // houses and the mover's store
	if v.sowOpp {
		cycle++
	}
	s := int(h[i])
	h[i] = 0
	if s >= cycle {
		laps := s / cycle
		s -= laps * cycle
		for j := 0; j < 2*n; j++ {
			h[j] += uint8(laps)
		}
		delta += laps
		if v.sowOpp {
			delta -= laps
		}
	}
	// Cycle positions: 0..n-1 mover's houses, n the mover's store, n+1..2n
	// the opponent's houses (h[n..2n-1]), 2n+1 the opponent's store.
	p := i
	for ; s > 0; s-- {
		p++
		if p == cycle {
			p = 0
		}
		switch {
		case p < n:
			h[p]++
		case p == n:
			delta++
		case p <= 2*n:
			h[p-1]++
		default:
			delta--
		}
	}
	if p == n {
		extra = true
	} else if p < n && h[p] == 1 {
		o := 2*n - 1 - p
		if h[o] != 0 || v.emptyCapture {
			delta += int(h[o]) + 1
			h[o] = 0
			h[p] = 0
		}
	}
	mine, theirs := 0, 0
	for j := 0; j < n; j++ {
		mine += int(h[j])
		theirs += int(h[n+j])
	}
	next := theirs
	if extra {
		next = mine
	}
	switch v.end {
	case kalah.EitherEmpty:
		over = mine == 0 || theirs == 0
	case kalah.MoverEmpty:
		over = mine == 0 || next == 0
	default:
		over = next == 0
	}
	if over {
		delta += mine - theirs
		for j := 0; j < 2*n; j++ {
			h[j] = 0
		}
		return delta, extra, true
	}
	if !extra {
		mirror(h, n)
	}
	return delta, extra, false
}

// mirror exchanges the two sides of h.
func mirror(h *[32]uint8, n int) {
	for j := 0; j < n; j++ {
		h[j], h[n+j] = h[n+j], h[j]
	}
}

// terminal reports whether a configuration to move is already over, and its
// value if so: the rules' end conditions that do not depend on the last
// mover (kalah.Position.Over).
func (v *variant) terminal(h *[32]uint8) (int, bool) {
	mine, theirs := 0, 0
	for j := 0; j < v.n; j++ {
		mine += int(h[j])
		theirs += int(h[v.n+j])
	}
	if mine == 0 || (v.end == kalah.EitherEmpty && theirs == 0) {
		return mine - theirs, true
	}
	return 0, false
}
