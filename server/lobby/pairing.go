package lobby

import "math"

// Quick pairing, as on lichess: a seek that meets an equal offer (the
// same rules, clock and rated or casual) from someone else is paired with
// it at once, no Accept needed; a rating range narrows whom a seek meets.
// Among the offers that fit, the nearest in rating is taken, then the
// oldest.

// MaxRange bounds a seek's rating range.
const MaxRange = 1000

// entry is a seek as the lobby keeps it (its fields guarded by the
// lobby's lock).
type entry struct {
	Seek
	addr string // the seeker's address, for the bound a client address
	// rating is the seeker's rating on the seek's ladder (a new player's
	// for a guest), for ranges and for pairing the nearest.
	rating float64
	// present counts the seeker's open streams of the seek; until one
	// opens, the seek lives Grace (pruneLocked).
	present int
	// seat is the seeker's seat in the game, once paired.
	seat int
	// done is closed once the seek has a game or is gone.
	done chan struct{}
	gone bool
}

// open reports whether the seek waits for an opponent.
func (e *entry) open() bool { return !e.gone && e.Game == 0 }

// finish closes done once.
func (e *entry) finish() {
	select {
	case <-e.done:
	default:
		close(e.done)
	}
}

// sameOffer reports whether two seeks offer the same game: the rules (as
// played: names aside), the clock, whether it is rated and whether
// takebacks are refused.
func sameOffer(a, b *Seek) bool {
	return a.Rules.Canonical() == b.Rules.Canonical() && a.ClockMS == b.ClockMS && a.IncrementMS == b.IncrementMS && a.Rated == b.Rated && a.NoTakebacks == b.NoTakebacks
}

// inRange reports whether rating r is within seek e's range.
func inRange(e *entry, r float64) bool {
	return e.Range == 0 || math.Abs(r-e.rating) <= float64(e.Range)
}

// fits reports whether seeks a and b may be paired: different people, the
// same offer, each within the other's range.
func fits(a, b *entry) bool {
	return !a.ByID.Is(b.ByID) && sameOffer(&a.Seek, &b.Seek) && inRange(a, b.rating) && inRange(b, a.rating)
}

// partner returns the open seek e is paired with (nil: none fits): the
// nearest in rating, then the oldest.
func partner(e *entry, all map[int64]*entry) *entry {
	var best *entry
	for _, o := range all {
		if o == e || !o.open() || !fits(e, o) {
			continue
		}
		if best == nil {
			best = o
			continue
		}
		d, bd := math.Abs(o.rating-e.rating), math.Abs(best.rating-e.rating)
		if d < bd || d == bd && o.ID < best.ID {
			best = o
		}
	}
	return best
}
