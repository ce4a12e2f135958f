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
// "hint", "a" or "analyse", "s" or "swap", "q" or "quit", "?" or "help".
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
const KeysHelp = `Keys (the 1961 program's, and a few more):
  1..n     sow that house; each side's houses count 1..n from that
           player's own left, as the numbers (1) (2) ... show on the board
  space    the computer moves for whoever is to move (or m)
  Enter    restart (or r; an empty line in line mode; u right after brings
           the old game back)
  u        undo back to your last move
  h        hint: what the strongest player on hand would play, and why
  a        analysis: that player's score for every legal move
  s        swap sides (pie rule only, North's first move)
  q        quit
  ?        this help
An illegal key is crossed out and changes nothing.`

// LineModeHelp says how to drive line mode from a script.
const LineModeHelp = `Line mode (input or output not a terminal, or --plain) reads a line at a
time. A line is words separated by blanks or commas, each one key:
"3" or "3 5" sows, "m" (or "space") lets the computer move, "u", "h",
"a", "s", "q", "?" as above, "r" (or "enter") restarts. A line of nothing but
spaces is one computer move a space; an empty line restarts, like Enter.
The end of input quits. Computer opponents move by themselves.`
