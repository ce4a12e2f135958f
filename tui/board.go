package tui

import (
	"fmt"
	"strconv"
	"strings"

	"kalah"
)

// Part names a piece of the drawn board, so a renderer can style it.
type Part int

// The parts of a board.
const (
	PartCount  Part = iota // seeds in a house
	PartLast               // seeds in the house last sown from
	PartLabel              // a house number
	PartStore              // seeds in a store
	PartMarker             // the "+" that shows whose turn it is
	PartName               // a side's name
)

// Board draws a position as the 1961 DEC program did (its Figure 2): the
// upper player's houses on top, the two stores (kalahs) at the ends of the
// middle line, the lower player's houses below, and a "+" beside the store
// of the player to move: above the left-hand store (the upper player's)
// when the upper player is to move, below the right-hand one (the lower
// player's) when the lower player is, and none once the game is over. Each row of houses has its
// numbers beside it, counted from that player's left, as moves are typed.
// Between the stores their owners are named, arrows pointing at each:
// "◂ North  stores  South ▸" (shorter on narrow boards).
type Board struct {
	Pos    kalah.Position
	Bottom kalah.Side // the side drawn at the bottom, sowing left to right
	Over   bool       // no marker: the game has ended
	Names  [2]string  // by side, such as "North (greedy)"; may be empty
	// Last is the house last sown from (0: none), of side LastSide.
	Last     kalah.Move
	LastSide kalah.Side
	// Style, if set, dresses each part (colours, bold); it must keep the
	// text's width. Nil draws plain text.
	Style func(p Part, s string) string
}

// String draws the board as lines of plain or styled text.
func (b Board) String() string {
	st := b.Style
	if st == nil {
		st = func(_ Part, s string) string { return s }
	}
	p := b.Pos
	n := p.Houses()
	top, bot := b.Bottom.Other(), b.Bottom
	storeW := len(strconv.Itoa(p.Total()))
	cellW := max(len(strconv.Itoa(p.Total()))+2, len(strconv.Itoa(n))+3)
	margin := "  "
	pad := strings.Repeat(" ", len(margin)+storeW+1)

	// cell right-aligns s in a cell, leaving one column after counts so they
	// sit under the digits of "(h)" labels.
	cell := func(part Part, s string, label bool) string {
		w := cellW
		if !label {
			w--
		}
		out := strings.Repeat(" ", max(0, w-len(s))) + st(part, s)
		if !label {
			out += " "
		}
		return out
	}
	count := func(sd kalah.Side, h int) string {
		part := PartCount
		if b.Last == kalah.Move(h) && b.LastSide == sd {
			part = PartLast
		}
		return cell(part, strconv.Itoa(p.House(sd, h)), false)
	}
	name := func(sd kalah.Side) string {
		if b.Names[sd] == "" {
			return ""
		}
		return "   " + st(PartName, b.Names[sd])
	}

	var lines []string
	var l strings.Builder
	// The upper player faces the lower: its house 1 is on the right.
	l.WriteString(pad)
	for h := n; h >= 1; h-- {
		l.WriteString(cell(PartLabel, "("+strconv.Itoa(h)+")", true))
	}
	l.WriteString(name(top))
	lines = append(lines, l.String())
	l.Reset()
	l.WriteString(pad)
	for h := n; h >= 1; h-- {
		l.WriteString(count(top, h))
	}
	lines = append(lines, strings.TrimRight(l.String(), " "))

	// The upper player's marker under the last digit of its store's
	// column, the lower player's under the first of its store.
	marker := margin + strings.Repeat(" ", storeW-1) + st(PartMarker, "+")
	botMarker := margin + strings.Repeat(" ", storeW+1+n*cellW+1) + st(PartMarker, "+")
	if !b.Over && p.ToMove() == top {
		lines = append(lines, marker)
	} else {
		lines = append(lines, "")
	}
	// The upper player's store is on its right: the left end as drawn.
	l.Reset()
	fmt.Fprintf(&l, "%s%s%s", margin, strings.Repeat(" ", storeW-len(strconv.Itoa(p.Store(top)))), st(PartStore, strconv.Itoa(p.Store(top))))
	l.WriteString(storeLabels(top, bot, 1+n*cellW+1, st))
	l.WriteString(st(PartStore, strconv.Itoa(p.Store(bot))))
	lines = append(lines, l.String())
	if !b.Over && p.ToMove() == bot {
		lines = append(lines, botMarker)
	} else {
		lines = append(lines, "")
	}

	l.Reset()
	l.WriteString(pad)
	for h := 1; h <= n; h++ {
		l.WriteString(count(bot, h))
	}
	lines = append(lines, strings.TrimRight(l.String(), " "))
	l.Reset()
	l.WriteString(pad)
	for h := 1; h <= n; h++ {
		l.WriteString(cell(PartLabel, "("+strconv.Itoa(h)+")", true))
	}
	l.WriteString(name(bot))
	lines = append(lines, l.String())
	return strings.Join(lines, "\n") + "\n"
}

// storeLabels fills the gap of w columns between the two stores with their
// owners' names, each with an arrow at its own store, and the word
// "stores" between them; narrow gaps get initials, then bare arrows.
func storeLabels(left, right kalah.Side, w int, st func(Part, string) string) string {
	ln, rn := left.String(), right.String()
	cands := [][3]string{
		{"◂ " + ln, "stores", rn + " ▸"},
		{"◂ " + ln[:1], "stores", rn[:1] + " ▸"},
		{"◂" + ln[:1], "", rn[:1] + "▸"},
		{"◂", "", "▸"},
	}
	for _, c := range cands {
		lw, mw, rw := len([]rune(c[0])), len(c[1]), len([]rune(c[2]))
		need := 2 + lw + rw + 1 // an edge space each side, one between
		if mw > 0 {
			need += mw + 3 // two spaces around the middle word at least
		}
		if need > w {
			continue
		}
		inner := w - 2 - lw - rw // columns between the names
		var b strings.Builder
		b.WriteString(" " + st(PartLabel, c[0]))
		if mw > 0 {
			before := (inner - mw) / 2
			b.WriteString(strings.Repeat(" ", before) + st(PartLabel, c[1]) + strings.Repeat(" ", inner-mw-before))
		} else {
			b.WriteString(strings.Repeat(" ", inner))
		}
		b.WriteString(st(PartLabel, c[2]) + " ")
		return b.String()
	}
	return strings.Repeat(" ", w)
}
