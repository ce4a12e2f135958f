package kalah

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseManchesterState reads the board of a Manchester COMP34120
// CHANGE message: North's houses 1..n, North's store, South's houses 1..n,
// South's store, comma-separated, each side numbered from its own left.
// The state does not say who moves; toMove does.
func ParseManchesterState(state string, toMove Side) (Position, error) {
	v, err := parseInts(state, ",")
	if err != nil || len(v) < 4 || len(v)%2 != 0 {
		return Position{}, fmt.Errorf("%w: Manchester state %q: want 2(n+1) comma-separated counts", ErrSyntax, state)
	}
	n := len(v)/2 - 1
	return NewPosition(v[n+1:2*n+1], v[:n], v[2*n+1], v[n], toMove)
}

// ManchesterState writes the board as a Manchester state string.
func ManchesterState(p Position) string {
	n := p.Houses()
	parts := make([]string, 0, 2*n+2)
	for h := 1; h <= n; h++ {
		parts = append(parts, strconv.Itoa(p.House(North, h)))
	}
	parts = append(parts, strconv.Itoa(p.Store(North)))
	for h := 1; h <= n; h++ {
		parts = append(parts, strconv.Itoa(p.House(South, h)))
	}
	parts = append(parts, strconv.Itoa(p.Store(South)))
	return strings.Join(parts, ",")
}

// ParseKGPBoard reads a KGP board literal <n,S,N,s1..sn,n1..nn>: houses a
// side, South's store, North's store, South's houses, North's houses, each
// side in sowing order. KGP always sends the board to the player to move as
// South, so the position has South to move.
func ParseKGPBoard(lit string) (Position, error) {
	s := strings.TrimSpace(lit)
	if !strings.HasPrefix(s, "<") || !strings.HasSuffix(s, ">") {
		return Position{}, fmt.Errorf("%w: KGP board %q must be wrapped in < >", ErrSyntax, lit)
	}
	v, err := parseInts(s[1:len(s)-1], ",")
	if err != nil || len(v) < 1 {
		return Position{}, fmt.Errorf("%w: KGP board %q: %v", ErrSyntax, lit, err)
	}
	n := v[0]
	if n < 1 || n > MaxHouses || len(v) != 2*n+3 {
		return Position{}, fmt.Errorf("%w: KGP board %q: size %d needs %d numbers, has %d", ErrSyntax, lit, n, 2*n+3, len(v))
	}
	return NewPosition(v[3:3+n], v[3+n:], v[1], v[2], South)
}

// KGPBoard writes the board as a KGP literal from South's view. To send it
// to North, mirror the position first.
func KGPBoard(p Position) string {
	n := p.Houses()
	var b strings.Builder
	fmt.Fprintf(&b, "<%d,%d,%d", n, p.Store(South), p.Store(North))
	for _, s := range []Side{South, North} {
		for h := 1; h <= n; h++ {
			fmt.Fprintf(&b, ",%d", p.House(s, h))
		}
	}
	b.WriteByte('>')
	return b.String()
}

// OpenSpielMove converts an OpenSpiel mancala action (a board index: 1..n
// for the first player's houses, n+2..2n+1 for the second's) to a side and
// house.
func OpenSpielMove(houses, action int) (Side, Move, error) {
	switch {
	case action >= 1 && action <= houses:
		return South, Move(action), nil
	case action >= houses+2 && action <= 2*houses+1:
		return North, Move(action - houses - 1), nil
	}
	return South, NoMove, fmt.Errorf("%w: OpenSpiel action %d is not a house", ErrIllegalMove, action)
}

// ReplayOpenSpiel plays an OpenSpiel action list under r (OpenSpiel's
// mancala is the kalah preset), checking that each action is by the side to
// move and legal.
func ReplayOpenSpiel(r Rules, actions []int) (*Game, error) {
	g, err := NewGame(r)
	if err != nil {
		return nil, err
	}
	for i, a := range actions {
		side, m, err := OpenSpielMove(r.Houses, a)
		if err != nil {
			return nil, fmt.Errorf("action %d: %w", i+1, err)
		}
		if side != g.ToMove() {
			return nil, fmt.Errorf("action %d (%d): %w: %s is to move", i+1, a, ErrIllegalMove, g.ToMove())
		}
		if _, err := g.Play(m); err != nil {
			return nil, fmt.Errorf("action %d (%d): %w", i+1, a, err)
		}
	}
	return g, nil
}

// ParseOpenSpielActions reads an action list such as "6, 11, 4" or "6 11 4".
func ParseOpenSpielActions(s string) ([]int, error) {
	f := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' || r == '[' || r == ']' })
	out := make([]int, len(f))
	for i, x := range f {
		v, err := strconv.Atoi(x)
		if err != nil {
			return nil, fmt.Errorf("%w: OpenSpiel action %q", ErrSyntax, x)
		}
		out[i] = v
	}
	return out, nil
}
