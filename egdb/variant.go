package egdb

import (
	"kalah"
	kboard "kalah/internal/board"
)

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

// game returns the sowing of the variant, shared with the engine
// (package internal/board). The seeds a house do not matter: the early end,
// the only rule that needs the total, is refused.
func (v *variant) game() kboard.Game {
	return kboard.New(kalah.Rules{Houses: v.n, EmptyCapture: v.emptyCapture, End: v.end, SowOpponentStore: v.sowOpp})
}
