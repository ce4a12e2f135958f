package tui

import (
	"fmt"
	"math"
	"strings"

	"kalah"
	"kalah/engine"
	"kalah/player"
	"kalah/search"
)

// Outlook is what a computer player's search says about the end of the
// game, in seeds: the final store difference for Side with best play,
// proven (Exact) or estimated.
type Outlook struct {
	Side  kalah.Side
	Final int
	Exact bool
}

// outlookOf reads a report that player p gave for a search of pos as an
// Outlook for the side to move in pos. Players report in their own units;
// ok is false for those whose units are not seeds (rules of thumb, Pekař's
// tree), and for a report of no search at all.
func outlookOf(p player.Player, pos kalah.Position, r player.Report) (o Outlook, ok bool) {
	if r.Depth == 0 && !r.Exact {
		return Outlook{}, false
	}
	me := pos.ToMove()
	o = Outlook{Side: me, Exact: r.Exact}
	switch p.(type) {
	case *engine.Player:
		// The engine's value is what the side to move can still gain:
		// the final difference minus the difference now.
		o.Final = r.Score + pos.Store(me) - pos.Store(me.Other())
	case *search.Player:
		// Exact scores are final store differences; estimates are in the
		// utility's units, StoreWeight a seed.
		o.Final = r.Score
		if !r.Exact {
			o.Final = int(math.Round(float64(r.Score) / search.StoreWeight))
		}
	default:
		return Outlook{}, false
	}
	return o, true
}

// who names a side in outlook sentences: "you" for the one person playing
// against the computer, else the side's name.
func (s *Session) who(sd kalah.Side) string {
	if !s.TwoHumans() && s.IsHumanSide(sd) {
		return "you"
	}
	return sd.String()
}

// OutlookText says an outlook in words: "you win by 8 with best play" when
// it is proven, "about +3 for North, estimate" when it is not.
func (s *Session) OutlookText(o Outlook) string {
	if !o.Exact {
		if o.Final == 0 {
			return "about even, estimate"
		}
		return fmt.Sprintf("about %+d for %s, estimate", o.Final, s.who(o.Side))
	}
	if o.Final == 0 {
		return "a draw with best play"
	}
	w, by := o.Side, o.Final
	if by < 0 && s.who(o.Side) == "you" {
		return fmt.Sprintf("you lose by %d with best play", -by)
	}
	if by < 0 {
		w, by = w.Other(), -by
	}
	name := s.who(w)
	verb := "wins"
	if name == "you" {
		verb = "win"
	}
	return fmt.Sprintf("%s %s by %d with best play", name, verb, by)
}

// detailsText gives what a search reported in the player's own terms:
// depth, score in its units, nodes and the line it expects. The game shows
// it only when asked (the d key).
func detailsText(who string, r player.Report) string {
	var parts []string
	if r.Depth > 0 {
		parts = append(parts, fmt.Sprintf("depth %d", r.Depth))
	}
	switch {
	case r.Book:
		parts = append(parts, fmt.Sprintf("%+d in its own units from the opening book", r.Score))
	case r.Exact:
		parts = append(parts, fmt.Sprintf("proven %+d in its own units", r.Score))
	case r.Depth > 0:
		parts = append(parts, fmt.Sprintf("score %+d in its own units", r.Score))
	}
	if r.Nodes > 0 {
		parts = append(parts, fmt.Sprintf("%d positions", r.Nodes))
	}
	if len(r.PV) > 0 {
		ms := make([]string, len(r.PV))
		for i, m := range r.PV {
			ms[i] = m.String()
		}
		parts = append(parts, "line "+strings.Join(ms, " "))
	}
	if len(parts) == 0 {
		return ""
	}
	return who + ": " + strings.Join(parts, ", ")
}
