package search

import (
	"fmt"
	"strings"

	"kalah"
)

// Utility is a way to value a position for the searchers, in the thesis's
// units: four points a seed in the store.
type Utility uint8

// The utilities of the thesis (section 1.2).
const (
	// Simple is four times the store difference (thesis 1.2.1).
	Simple Utility = iota
	// Knowledge adds to Simple what the thesis lists in 1.1.2.2: a house
	// holding exactly one lap of seeds (13 on six houses, which lands in the
	// emptied house itself and so always captures) 4, a house with the exact
	// count to end in the store 2, an empty house 1.
	//
	// The thesis gives the weights but not whose houses they count; we
	// count them for both sides and take the difference, so the utility
	// stays zero-sum (the value for one side is minus the value for the
	// other), which minimax and alpha-beta assume. On a finished board
	// every house is empty on both sides, so the house terms cancel and
	// Knowledge equals Simple: a game's real result is never distorted.
	Knowledge
)

var utilityNames = [...]string{"simple", "knowledge"}

// String returns "simple" or "knowledge".
func (u Utility) String() string {
	if int(u) < len(utilityNames) {
		return utilityNames[u]
	}
	return fmt.Sprintf("Utility(%d)", u)
}

// ParseUtility reads a utility by name; "k" and "s" abbreviate.
func ParseUtility(s string) (Utility, error) {
	switch strings.ToLower(s) {
	case "simple", "s":
		return Simple, nil
	case "knowledge", "k", "knowledge-based":
		return Knowledge, nil
	}
	return 0, fmt.Errorf("unknown utility %q (want simple or knowledge)", s)
}

// Weights of the utilities, from the thesis.
const (
	StoreWeight = 4 // a seed in the store
	LapWeight   = 4 // a house of one full lap (13 seeds on six houses)
	ExactWeight = 2 // a house whose last seed ends in the store
	EmptyWeight = 1 // an empty house
)

// Evaluate values p for side me under rules r.
func (u Utility) Evaluate(r *kalah.Rules, p *kalah.Position, me kalah.Side) int {
	v := StoreWeight * (p.Store(me) - p.Store(me.Other()))
	if u == Knowledge {
		v += houseTerms(r, p, me) - houseTerms(r, p, me.Other())
	}
	return v
}

// houseTerms sums the Knowledge utility's house terms for side s.
func houseTerms(r *kalah.Rules, p *kalah.Position, s kalah.Side) int {
	n := p.Houses()
	lap := 2*n + 1 // seeds that go round once and land in the emptied house
	if r.SowOpponentStore {
		lap++
	}
	base := int(s) * (n + 1)
	t := 0
	for h := 1; h <= n; h++ {
		switch c := p.Pit(base + h - 1); {
		case c == 0:
			t += EmptyWeight
		case c == n-h+1:
			t += ExactWeight
		case c == lap:
			t += LapWeight
		}
	}
	return t
}
