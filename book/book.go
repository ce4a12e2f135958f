package book

import (
	"errors"
	"fmt"
	"slices"

	"kalah"
)

// Errors returned by this package, matched with errors.Is.
var (
	// ErrCorrupt: the data is not a book, is truncated or padded, fails a
	// checksum, or holds impossible keys or values.
	ErrCorrupt = errors.New("corrupt opening book")
	// ErrMismatch: the book was built for other rules.
	ErrMismatch = errors.New("opening book built for other rules")
	// ErrUnsupported: no book can be built for these rules.
	ErrUnsupported = errors.New("opening book not supported")
)

// Markers among an entry's values, below every value a book can hold.
const (
	// NoMove marks an empty house: no legal move.
	NoMove = -128
	// Unknown marks a legal move that is not optimal and whose exact value
	// was not computed: at the last ply of a book only the position's value
	// and its optimal moves are known (a solve, not an analysis of every
	// move).
	Unknown = -127
)

// MaxPlies bounds the depth of a book.
const MaxPlies = 64

// Variant is what of the rules a book's values depend on, and the start its
// positions are reached from.
type Variant struct {
	Houses           int
	Seeds            int // seeds a house at the start
	EmptyCapture     bool
	End              kalah.EndRule
	SowOpponentStore bool
}

// VariantOf returns the variant of rules r, or an error wrapping
// ErrUnsupported if no book can hold them: the early end (values depend on
// the stores), the pie rule (the first two moves are not board moves), or
// more than 127 seeds (a value must fit a byte).
func VariantOf(r kalah.Rules) (Variant, error) {
	if err := r.Validate(); err != nil {
		return Variant{}, err
	}
	switch {
	case r.EarlyEnd:
		return Variant{}, fmt.Errorf("%w: the early end makes values depend on the stores", ErrUnsupported)
	case r.Pie:
		return Variant{}, fmt.Errorf("%w: the pie rule", ErrUnsupported)
	case r.TotalSeeds() > 126 || !exactKeys(r.Houses, r.TotalSeeds()):
		return Variant{}, fmt.Errorf("%w: %d seeds in all (at most 126)", ErrUnsupported, r.TotalSeeds())
	}
	return Variant{Houses: r.Houses, Seeds: r.Seeds, EmptyCapture: r.EmptyCapture, End: r.End, SowOpponentStore: r.SowOpponentStore}, nil
}

// Rules returns rules of the variant: the standard game's, South first,
// with the variant's switches (named "kalah" when they are the standard
// preset's).
func (v Variant) Rules() kalah.Rules {
	r := kalah.Rules{Name: "kalah", Houses: v.Houses, Seeds: v.Seeds, EmptyCapture: v.EmptyCapture, End: v.End, SowOpponentStore: v.SowOpponentStore}
	return r.Canonical()
}

// sameValues reports whether positions of the two variants have the same
// values: everything but the seeds a house at the start.
func (v Variant) sameValues(w Variant) bool {
	v.Seeds, w.Seeds = 0, 0
	return v == w
}

// String describes the variant, as Kalah(6,4) or with its switches.
func (v Variant) String() string {
	r := v.Rules()
	r.Name = ""
	return r.String()
}

// Kind says which positions a book holds.
type Kind uint8

const (
	// Opening books hold every position within Plies moves of the start,
	// with every move's value (at the last ply, the optimal moves').
	Opening Kind = iota
	// Strategy books hold the positions a player meets that follows the
	// books (the optimal move nearest the store: Choice) from any position
	// within Plies moves of the start, whatever its opponent plays, until
	// the solver answers fast (BuildStrategy); each with the values of its
	// optimal moves.
	Strategy
)

// Book is an opening or strategy book of one variant. It is read-only and
// safe for concurrent use.
type Book struct {
	v     Variant
	kind  Kind
	plies int
	// A strategy book's frontier: the endgame database's seeds and the
	// node limit its positions' searches were measured with.
	dbSeeds   int
	nodeLimit uint32
	keys      []uint64 // sorted
	vals      []int8   // Houses a key
}

// Variant returns the rules the book was built for.
func (b *Book) Variant() Variant { return b.v }

// Kind returns which positions the book holds.
func (b *Book) Kind() Kind { return b.kind }

// Plies returns how many moves from the start the book covers: every
// position within them for an opening book, the positions the strategy
// starts from for a strategy book.
func (b *Book) Plies() int { return b.plies }

// Frontier returns what a strategy book's build counted as fast: a search
// of at most nodes nodes on one thread with a fresh table and the endgame
// database of dbSeeds seeds (zero for an opening book).
func (b *Book) Frontier() (dbSeeds int, nodes uint64) { return b.dbSeeds, uint64(b.nodeLimit) }

// Len returns the number of positions in the book.
func (b *Book) Len() int { return len(b.keys) }

// Describe sums the book up in a line.
func (b *Book) Describe() string {
	if b.kind == Strategy {
		db := "without an endgame database"
		if b.dbSeeds > 0 {
			db = fmt.Sprintf("with the %d-seed database", b.dbSeeds)
		}
		return fmt.Sprintf("%s, strategy from %s, %s (down to searches of %d nodes %s)", b.v, counted(b.plies, "ply", "plies"), counted(len(b.keys), "position", "positions"), b.nodeLimit, db)
	}
	return fmt.Sprintf("%s, %s, %s", b.v, counted(b.plies, "ply", "plies"), counted(len(b.keys), "position", "positions"))
}

// counted says n of a thing: "1 ply", "2 plies".
func counted(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

// Fits reports whether the book's values hold under rules r (its variant's
// switches; the seeds a house and the first side do not matter, since a
// value depends on the board alone).
func (b *Book) Fits(r kalah.Rules) bool {
	v, err := VariantOf(r)
	return err == nil && b.v.sameValues(v)
}

// Lookup returns the exact value of each of the mover's houses in p (NoMove
// for an empty house, Unknown for a move known only to be worse than the
// best) if p is in the book. The caller must make sure the
// book fits the rules (Fits) and that p is in play; the slice is the
// book's own and must not be changed.
func (b *Book) Lookup(p *kalah.Position) ([]int8, bool) {
	if p.Houses() != b.v.Houses || p.Phase() != kalah.PhasePlay {
		return nil, false
	}
	if p.Seeds(kalah.South)+p.Seeds(kalah.North) > 2*b.v.Houses*b.v.Seeds {
		return nil, false
	}
	return b.lookupKey(Key(p))
}

func (b *Book) lookupKey(k uint64) ([]int8, bool) {
	i, ok := slices.BinarySearch(b.keys, k)
	if !ok {
		return nil, false
	}
	n := b.v.Houses
	return b.vals[i*n : (i+1)*n : (i+1)*n], true
}

// Best returns the value of the position whose move values are vals: the
// largest (NoMove or Unknown if none is known).
func Best(vals []int8) int {
	best := NoMove
	for _, v := range vals {
		best = max(best, int(v))
	}
	return best
}

// Choice returns the house (1-based) a player following the books sows in
// a position whose move values are vals: the optimal house nearest the
// store, as the strategy books were built (0 if no move is known).
func Choice(vals []int8) int {
	best := Best(vals)
	for i := len(vals) - 1; i >= 0; i-- {
		if int(vals[i]) == best && best > Unknown {
			return i + 1
		}
	}
	return 0
}

// Complete reports whether vals holds the exact value of every legal move.
func Complete(vals []int8) bool {
	for _, v := range vals {
		if v == Unknown {
			return false
		}
	}
	return true
}
