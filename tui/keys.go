package tui

import (
	"strconv"
	"strings"

	"kalah"
)

// KeyKind is what a key asks for.
type KeyKind int

// The kinds of key.
const (
	KeyHouse    KeyKind = iota // sow a house
	KeyComputer                // the computer moves for whoever is to move (space)
	KeyRestart                 // a new game (Enter)
	KeyUndo                    // take back to the person's last move
	KeyHint                    // suggest a move
	KeyAnalysis                // score every legal move
	KeySwap                    // the pie rule's swap
	KeyQuit                    // leave
	KeyHelp                    // show the keys
	KeyDetails                 // show or hide the search's details
	KeyList                    // the list of moves
	KeySave                    // save the game to a file
	KeyBad                     // not a key the game knows
)

// Key is one key (or, in line mode, one word) typed by a person.
type Key struct {
	Kind  KeyKind
	House kalah.Move // for KeyHouse
	Text  string     // what was typed, to cross out if it is rejected
}

// ParseLine reads one line of line mode into keys. An empty line is Enter
// (restart); a line of nothing but spaces is one computer move a space, as
// the space bar was on the 1961 typewriter. Any other line is words
// separated by blanks or commas, each a key: a house number, "m" or "space"
// (computer moves), "r" or "enter" (restart), "u" or "undo", "h" or
// "hint", "a" or "analyse", "s" or "swap", "d" or "details", "l" or
// "list", "w" or "save", "q" or "quit", "?" or "help".
func ParseLine(line string) []Key {
	line = strings.TrimRight(line, "\r\n")
	if line == "" {
		return []Key{{Kind: KeyRestart, Text: "⏎"}}
	}
	if strings.Trim(line, " ") == "" {
		keys := make([]Key, len(line))
		for i := range keys {
			keys[i] = Key{Kind: KeyComputer, Text: " "}
		}
		return keys
	}
	var keys []Key
	for _, w := range strings.FieldsFunc(line, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }) {
		keys = append(keys, ParseWord(w))
	}
	return keys
}

// ParseWord reads one word of line mode as a key.
func ParseWord(w string) Key {
	k := Key{Text: w}
	switch strings.ToLower(w) {
	case "m", "space", "move", "go":
		k.Kind = KeyComputer
	case "r", "enter", "restart", "new":
		k.Kind = KeyRestart
	case "u", "undo":
		k.Kind = KeyUndo
	case "h", "hint":
		k.Kind = KeyHint
	case "a", "analyse", "analyze", "analysis":
		k.Kind = KeyAnalysis
	case "s", "swap":
		k.Kind = KeySwap
	case "q", "quit", "exit":
		k.Kind = KeyQuit
	case "?", "help":
		k.Kind = KeyHelp
	case "d", "details":
		k.Kind = KeyDetails
	case "l", "list", "moves":
		k.Kind = KeyList
	case "w", "save", "write":
		k.Kind = KeySave
	default:
		v, err := strconv.Atoi(w)
		if err != nil || v < 1 || v > kalah.MaxHouses || w[0] == '+' || w[0] == '0' {
			k.Kind = KeyBad
			return k
		}
		k.Kind, k.House = KeyHouse, kalah.Move(v)
	}
	return k
}

// CrossOut returns s with every character struck through (a combining long
// stroke after each), as the 1961 program crossed out a rejected key.
func CrossOut(s string) string {
	if s == " " {
		s = "␣"
	}
	var b strings.Builder
	for _, r := range s {
		b.WriteRune(r)
		b.WriteRune('\u0336')
	}
	return b.String()
}

// KeysHelp describes the keys, for "kalah play -h" and the "?" key.
const KeysHelp = `Keys (the 1961 program's, and more):
  1..n       sow that house; each side's houses count 1..n from that
             player's own left, as the numbers (1) (2) ... show
  space, m   the computer moves for whoever is to move
  Enter, r   a new game (u right after brings the old one back)
  u          undo back to your last move
  h          hint: the hint player's move and what it leads to, in
             seeds: "you win by 8 with best play" only when proven,
             else "about +3 for you, estimate"
  a          analysis: every legal move and what it leads to, best first
  d          show or hide the search's details (depth, score in the
             player's own units, the line it expects)
  s          swap sides (pie rule only, North's first move)
  l          the list of moves so far (scrolls; Esc or l closes)
  w          save the game to a file (play/games/ in the data directory)
  o, Esc     the menu: opponent, who starts, your side (Esc returns)
  ?          this help (scrolls; Esc or ? closes)
  q          quit; a game in progress asks first (y quits, n or Esc
             stays) and is saved: kalah play --resume continues it
  Ctrl+C     quit at once, saving a game in progress the same way
  ↑ ↓ PgUp PgDn Home End   scroll the help and the move list
In the menu: ↑/↓ the opponent, ←/→ who starts, s your side, Enter
plays, Esc goes back to the game, q quits.
An illegal key is crossed out and changes nothing.`

// BoardHelp explains the board.
const BoardHelp = `The board: your houses along the bottom, your opponent's along the
top, each row numbered from its owner's left. A store (kalah) sits at the
right-hand end of its owner's row, so yours is on the right and your
opponent's on the left; the middle line names them: "◂ North  stores
South ▸". The + beside a store marks its owner's turn: below the right-hand
store when it is the bottom player's, above the left-hand one for the top
player.`

// LineModeHelp says how to drive line mode from a script.
const LineModeHelp = `Line mode (input or output not a terminal, or --plain) reads a line at a
time. A line is words separated by blanks or commas, each one key:
"3" or "3 5" sows, "m" (or "space") lets the computer move, "u", "h",
"a", "d", "s", "l", "w", "?" as above, "r" (or "enter") restarts. A line of
nothing but spaces is one computer move a space; an empty line restarts,
like Enter (during a game, only a second one in a row). "q" quits at once, saving a game in progress for --resume; the
end of input quits the same way. Computer opponents move by themselves.`
