package kalah

import (
	"fmt"
	"strconv"
	"strings"
)

// Move is a house number counted 1..n from the mover's left, or Swap.
type Move int

// Special moves.
const (
	NoMove Move = 0  // not a move; the zero value
	Swap   Move = -1 // the pie rule's swap
)

// String returns the house number, or "swap".
func (m Move) String() string {
	if m == Swap {
		return "swap"
	}
	return strconv.Itoa(int(m))
}

// MovesText writes moves as their house numbers (or "swap") separated by
// spaces: "3 6".
func MovesText(ms []Move) string {
	parts := make([]string, len(ms))
	for i, m := range ms {
		parts[i] = m.String()
	}
	return strings.Join(parts, " ")
}

// ParseMove reads a house number or "swap". It does not check the range.
func ParseMove(s string) (Move, error) {
	s = strings.TrimSpace(s)
	if strings.EqualFold(s, "swap") {
		return Swap, nil
	}
	v, err := strconv.Atoi(s)
	if err != nil || v < 1 || v > MaxHouses {
		return NoMove, fmt.Errorf("%w: move %q (want a house number 1 to %d or swap)", ErrSyntax, s, MaxHouses)
	}
	return Move(v), nil
}

// Result is how a game ended, by side.
type Result uint8

// The results.
const (
	Ongoing Result = iota
	SouthWins
	NorthWins
	Draw
	// NoResult is an aborted game's: called off, it counts for no one.
	NoResult
)

var resultNames = [...]string{"ongoing", "south", "north", "draw", "aborted"}
var resultTokens = [...]string{"*", "1-0", "0-1", "1/2-1/2", "*"}

// String returns "ongoing", "south", "north", "draw" or "aborted".
func (r Result) String() string {
	if int(r) < len(resultNames) {
		return resultNames[r]
	}
	return fmt.Sprintf("Result(%d)", r)
}

// Token returns the result as written at the end of a game text: "1-0"
// (South won), "0-1", "1/2-1/2" or "*".
func (r Result) Token() string {
	if int(r) < len(resultTokens) {
		return resultTokens[r]
	}
	return "*"
}

// Winner returns the winning side, if there is one.
func (r Result) Winner() (Side, bool) {
	switch r {
	case SouthWins:
		return South, true
	case NorthWins:
		return North, true
	}
	return South, false
}

// WinFor returns the result in which s wins.
func WinFor(s Side) Result {
	if s == North {
		return NorthWins
	}
	return SouthWins
}

// ParseResult reads a result name or token.
func ParseResult(s string) (Result, error) {
	for i := range resultNames {
		if s == resultNames[i] || s == resultTokens[i] {
			return Result(i), nil
		}
	}
	return Ongoing, fmt.Errorf("%w: result %q", ErrSyntax, s)
}

// MarshalText encodes the result by name.
func (r Result) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

// UnmarshalText decodes a result name or token.
func (r *Result) UnmarshalText(b []byte) error {
	v, err := ParseResult(string(b))
	if err != nil {
		return err
	}
	*r = v
	return nil
}

// Termination says why a game ended.
type Termination uint8

// The terminations. Every one but Normal, Adjudicated, Aborted and
// Agreement is a forfeit by the loser: every seed left on the board goes
// to the winner.
const (
	NotOver       Termination = iota // the game goes on
	Normal                           // the rules ended it
	IllegalMove                      // the loser made an illegal or unreadable move
	Timeout                          // the loser ran out of time
	Crash                            // the loser's program failed
	Disconnect                       // the loser went away
	Resign                           // the loser resigned
	ProtocolError                    // the loser broke its protocol
	Adjudicated                      // decided by the referee without play, e.g. after a server restart
	Aborted                          // called off before it was properly begun: no result, no rating
	Agreement                        // a draw both players agreed: the board stays as it is
)

var terminationNames = [...]string{"", "normal", "illegal-move", "timeout", "crash", "disconnect", "resign", "protocol-error", "adjudicated", "aborted", "agreement"}

// String returns the name used in records, such as "timeout".
func (t Termination) String() string {
	if int(t) < len(terminationNames) {
		return terminationNames[t]
	}
	return fmt.Sprintf("Termination(%d)", t)
}

// IsForfeit reports whether the termination is a forfeit.
func (t Termination) IsForfeit() bool { return t >= IllegalMove && t <= ProtocolError }

// ParseTermination reads a termination name.
func ParseTermination(s string) (Termination, error) {
	for i, n := range terminationNames {
		if s == n {
			return Termination(i), nil
		}
	}
	return NotOver, fmt.Errorf("%w: termination %q", ErrSyntax, s)
}

// MarshalText encodes the termination by name.
func (t Termination) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// UnmarshalText decodes a termination name.
func (t *Termination) UnmarshalText(b []byte) error {
	v, err := ParseTermination(string(b))
	if err != nil {
		return err
	}
	*t = v
	return nil
}
