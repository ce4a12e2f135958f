package kalah

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Limits on the size of a board. The position type holds every pit in a
// fixed array, so these bound its size; counts are 16-bit, so any board within
// them fits.
const (
	MaxHouses = 16 // houses a side
	MaxSeeds  = 64 // seeds a house at the start
)

// Side is one of the two sides of the board. South is the first player in
// most sources; North sits opposite.
type Side uint8

// The two sides.
const (
	South Side = 0
	North Side = 1
)

// Other returns the opponent's side.
func (s Side) Other() Side { return s ^ 1 }

// String returns "South" or "North".
func (s Side) String() string {
	if s == North {
		return "North"
	}
	return "South"
}

// Letter returns "S" or "N", the form used in records.
func (s Side) Letter() string {
	if s == North {
		return "N"
	}
	return "S"
}

// ParseSide reads a side: "S", "N", "south", "north" in any case.
func ParseSide(s string) (Side, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "s", "south":
		return South, nil
	case "n", "north":
		return North, nil
	}
	return South, fmt.Errorf("%w: side %q (want S or N)", ErrSyntax, s)
}

// MarshalText encodes the side as "S" or "N".
func (s Side) MarshalText() ([]byte, error) { return []byte(s.Letter()), nil }

// UnmarshalText decodes "S", "N", "south" or "north".
func (s *Side) UnmarshalText(b []byte) error {
	v, err := ParseSide(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// EndRule says when a game is over. The sources disagree; see the constants.
type EndRule uint8

// The end rules.
const (
	// EitherEmpty ends the game as soon as either side's houses are empty
	// after a move (GameLink, Manchester, KGP, OpenSpiel, most solvers).
	EitherEmpty EndRule = iota
	// MoverStuck ends the game only when the player to move has no seed, so
	// a side emptied by its own move can be fed again (Ludii).
	MoverStuck
	// MoverEmpty is rule 3(a) of the 1961 DEC memo: the game ends when the
	// mover's own houses are empty after the move, or when the player to
	// move has none; an extra turn with the other side empty goes on.
	MoverEmpty
)

var endRuleNames = [...]string{"either-empty", "mover-stuck", "mover-empty"}

// String returns the rule's name as used on the command line and in records.
func (e EndRule) String() string {
	if int(e) < len(endRuleNames) {
		return endRuleNames[e]
	}
	return fmt.Sprintf("EndRule(%d)", e)
}

// ParseEndRule reads an end rule by name.
func ParseEndRule(s string) (EndRule, error) {
	for i, n := range endRuleNames {
		if strings.EqualFold(s, n) {
			return EndRule(i), nil
		}
	}
	return 0, fmt.Errorf("%w: unknown end rule %q (want %s)", ErrInvalidRules, s, strings.Join(endRuleNames[:], ", "))
}

// MarshalText encodes the rule by name.
func (e EndRule) MarshalText() ([]byte, error) {
	if int(e) >= len(endRuleNames) {
		return nil, fmt.Errorf("%w: end rule %d", ErrInvalidRules, e)
	}
	return []byte(e.String()), nil
}

// UnmarshalText decodes a rule name.
func (e *EndRule) UnmarshalText(b []byte) error {
	v, err := ParseEndRule(string(b))
	if err != nil {
		return err
	}
	*e = v
	return nil
}

// Rules is a rule variant as data. The zero value is not valid; start from a
// preset (Preset or Standard) and change what differs.
type Rules struct {
	// Name is the preset these rules came from, or empty for a custom set.
	// It is informative only: the switches below decide play.
	Name string `json:"name,omitempty"`
	// Houses is the number of houses on each side.
	Houses int `json:"houses"`
	// Seeds is the number of seeds in each house at the start.
	Seeds int `json:"seeds"`
	// First is the side that moves first.
	First Side `json:"first"`
	// EmptyCapture also captures when the last seed lands in an own empty
	// house opposite an empty house (the seed goes to the store alone).
	EmptyCapture bool `json:"empty_capture"`
	// End says when the game is over.
	End EndRule `json:"end"`
	// EarlyEnd ends the game once either store holds more than half of all
	// seeds (KGP).
	EarlyEnd bool `json:"early_end"`
	// Pie lets the second player answer the first move by swapping sides,
	// and the first move of the game earns no extra turn (Manchester).
	Pie bool `json:"pie"`
	// SowOpponentStore sows into the opponent's store too (GameLink's
	// engine). It matters whenever a sowing gets past the opponent's
	// houses: from house h (1..n from the mover's left) that takes
	// 2n+2-h seeds or more, so 8 from the rightmost of six houses and 13
	// from the leftmost.
	SowOpponentStore bool `json:"sow_opponent_store"`
}

// A Preset is a named rule set with the source it comes from.
type Preset struct {
	Rules  Rules
	Source string // where these rules are written down
}

// presets lists every named rule set; the first is the default.
var presets = []Preset{
	{Rules{Name: "kalah", Houses: 6, Seeds: 4}, "standard Kalah(6,4) as commonly played and as solved by Irving, Donkers and Uiterwijk (2000); also OpenSpiel's mancala"},
	{Rules{Name: "dec1961", Houses: 6, Seeds: 3, End: MoverEmpty}, "the DEC memo M-1098 (1961), the first Kalah program: three stones a pit, rule 3(a) ends the game when the mover's pits are empty"},
	{Rules{Name: "gamelink", Houses: 6, Seeds: 3, SowOpponentStore: true}, "the GameLink students' guide: Kalah(6,3); its engine also sows into the opponent's store; forfeits give the board to the winner"},
	{Rules{Name: "pekar", Houses: 6, Seeds: 4}, "Pekař, Andrla and Dolinay (2018): Kalah(6,4) without empty capture; either side may start (--first)"},
	{Rules{Name: "thesis", Houses: 6, Seeds: 6}, "the Kalaha search-algorithms thesis: six counters a hole, 30 s a move (its capture rule does not say what an empty opposite hole does; the standard rule is assumed)"},
	{Rules{Name: "egyptian", Houses: 6, Seeds: 4, EmptyCapture: true}, "Princeton COS 217 \"Egyptian rules\" (Dondero 2002): four stones, a last stone in an own empty bowl is captured even opposite an empty bowl"},
	{Rules{Name: "manchester", Houses: 7, Seeds: 7, Pie: true}, "the Manchester COMP34120 engine: Kalah(7,7), South starts, North may swap after the first move, which earns no extra turn"},
	{Rules{Name: "kgp", Houses: 8, Seeds: 8, EarlyEnd: true}, "KGP, the Kalah Game Protocol (KWARC go-kgp server, rules since its December 2021 change): any size, Kalah(8,8) by its default; no capture opposite an empty house; the game ends once a store holds more than half of all seeds"},
	{Rules{Name: "ludii", Houses: 6, Seeds: 4, End: MoverStuck}, "Ludii's Kalah: the game ends only when the player to move has no seed"},
}

// Presets returns every named rule set, the default first.
func Presets() []Preset { return slices.Clone(presets) }

// Standard returns the default rules, Kalah(6,4).
func Standard() Rules { return presets[0].Rules }

// PresetRules returns the named rule set.
func PresetRules(name string) (Rules, error) {
	for _, p := range presets {
		if strings.EqualFold(p.Rules.Name, name) {
			return p.Rules, nil
		}
	}
	names := make([]string, len(presets))
	for i, p := range presets {
		names[i] = p.Rules.Name
	}
	return Rules{}, fmt.Errorf("%w: unknown preset %q (known: %s)", ErrInvalidRules, name, strings.Join(names, ", "))
}

// Validate reports whether the rules make sense.
func (r Rules) Validate() error {
	switch {
	case r.Houses < 1 || r.Houses > MaxHouses:
		return fmt.Errorf("%w: %d houses (want 1 to %d)", ErrInvalidRules, r.Houses, MaxHouses)
	case r.Seeds < 1 || r.Seeds > MaxSeeds:
		return fmt.Errorf("%w: %d seeds a house (want 1 to %d)", ErrInvalidRules, r.Seeds, MaxSeeds)
	case r.First > North:
		return fmt.Errorf("%w: first side %d", ErrInvalidRules, r.First)
	case r.End > MoverEmpty:
		return fmt.Errorf("%w: end rule %d", ErrInvalidRules, r.End)
	}
	return nil
}

// TotalSeeds is the number of seeds in play.
func (r Rules) TotalSeeds() int { return 2 * r.Houses * r.Seeds }

// Canonical returns the rules with Name set to the preset they came from if
// they still equal it, or cleared if a switch was changed.
func (r Rules) Canonical() Rules {
	if r.Name != "" {
		if p, err := PresetRules(r.Name); err == nil {
			p.First = r.First // who starts is a choice within every preset
			if p == r {
				return r
			}
		}
	}
	r.Name = ""
	return r
}

// String describes the rules briefly: the preset name, or Kalah(h,s) with
// every switch that differs from the standard game.
func (r Rules) String() string {
	if r.Name != "" && r.Canonical().Name != "" {
		if r.First == North {
			return r.Name + " (North first)"
		}
		return r.Name
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Kalah(%d,%d)", r.Houses, r.Seeds)
	if r.First == North {
		b.WriteString(" north-first")
	}
	if r.EmptyCapture {
		b.WriteString(" empty-capture")
	}
	if r.End != EitherEmpty {
		b.WriteString(" " + r.End.String())
	}
	if r.EarlyEnd {
		b.WriteString(" early-end")
	}
	if r.Pie {
		b.WriteString(" pie")
	}
	if r.SowOpponentStore {
		b.WriteString(" sow-opponent-store")
	}
	return b.String()
}

// Errors returned by this package, matched with errors.Is.
var (
	ErrInvalidRules = errors.New("invalid rules")
	ErrIllegalMove  = errors.New("illegal move")
	ErrGameOver     = errors.New("game is over")
	ErrNoUndo       = errors.New("nothing to undo")
	ErrSyntax       = errors.New("syntax error")
	ErrBadPosition  = errors.New("invalid position")
)
