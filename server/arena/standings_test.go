package arena

import (
	"slices"
	"testing"

	"kalah/internal/identity"
	"kalah/internal/store"
)

// TestArenaPoints: an arena scores 2 a win, 1 a draw, 0 a loss, and a
// player who has won twice in a row is on fire: each game scores double
// until one is not won; games not counted (aborted, ended after the end)
// change nothing.
func TestArenaPoints(t *testing.T) {
	a, b := identity.Of(identity.Person, "alice"), identity.Of(identity.Person, "bob")
	// Results from alice's side: W win, D draw, L loss, x a game that does
	// not count.
	for _, c := range []struct {
		games  string
		points int
		scores []int
		fire   bool
	}{
		{"", 0, []int{}, false},
		{"W", 2, []int{2}, false},
		{"WW", 4, []int{2, 2}, true},
		{"WWD", 6, []int{2, 2, 2}, false}, // lichess's example: 2 + 2 + 2×1
		{"WWW", 8, []int{2, 2, 4}, true},
		{"WWWL", 8, []int{2, 2, 4, 0}, false},
		{"WWWLW", 10, []int{2, 2, 4, 0, 2}, false},
		{"WxWxW", 8, []int{2, 2, 4}, true},
		{"DWWWW", 13, []int{1, 2, 2, 4, 4}, true},
		{"LWLW", 4, []int{0, 2, 0, 2}, false},
	} {
		var prs []store.PeoplePairing
		for i, r := range c.games {
			pr := store.PeoplePairing{ID: int64(i + 1), South: a, North: b, Game: int64(i + 1), Counted: true}
			switch r {
			case 'W':
				pr.Result = store.PairSouth
			case 'L':
				pr.Result = store.PairNorth
			case 'D':
				pr.Result = store.PairDraw
			case 'x':
				pr.Result, pr.Counted = store.PairSouth, false
			}
			if i%2 == 1 { // sides alternate: alice North
				pr.South, pr.North = b, a
				pr.Result = map[string]string{store.PairSouth: store.PairNorth, store.PairNorth: store.PairSouth, store.PairDraw: store.PairDraw}[pr.Result]
			}
			prs = append(prs, pr)
		}
		tb := standings(store.PeopleTournament{Format: FormatArena}, []store.PeopleEntrant{{ID: a, Active: true}, {ID: b, Seq: 1, Active: true}}, prs, nil)
		var got Standing
		for _, s := range tb.standings {
			if s.ID.Is(a) {
				got = s
			}
		}
		if got.Points != c.points || !slices.Equal(got.Scores, c.scores) || got.Fire != c.fire {
			t.Errorf("%q: points %d %v fire %v, want %d %v %v", c.games, got.Points, got.Scores, got.Fire, c.points, c.scores, c.fire)
		}
	}
	// A game in play shows as the players' game, and scores nothing yet.
	tb := standings(store.PeopleTournament{Format: FormatArena}, []store.PeopleEntrant{{ID: a, Active: true}, {ID: b, Seq: 1}},
		[]store.PeoplePairing{{ID: 1, South: a, North: b, Game: 7}}, nil)
	if tb.standings[0].Playing != "7" || tb.standings[1].Playing != "7" || tb.played != 0 || tb.standings[1].Active {
		t.Errorf("a game in play: %+v", tb.standings)
	}
}

// TestSwissStandings: a Swiss scores no streaks, a bye as a win, and
// breaks ties by the opponents' points (Buchholz).
func TestSwissStandings(t *testing.T) {
	a, b, c := identity.Of(identity.Person, "a"), identity.Of(identity.Person, "b"), identity.Of(identity.Bot, "c")
	es := []store.PeopleEntrant{{ID: a, Active: true}, {ID: b, Seq: 1, Active: true}, {ID: c, Seq: 2, Active: true}}
	prs := []store.PeoplePairing{
		{ID: 1, Round: 1, South: a, North: b, Game: 1, Result: store.PairSouth, Counted: true},
		{ID: 2, Round: 2, South: c, North: a, Game: 2, Result: store.PairSouth, Counted: true},
		{ID: 3, Round: 3, South: b, North: c, Game: 3, Result: store.PairSouth, Counted: true},
	}
	byes := map[int]identity.ID{1: c, 2: b, 3: a}
	tb := standings(store.PeopleTournament{Format: FormatSwiss}, es, prs, byes)
	for _, s := range tb.standings {
		if s.Points != 4 || s.Byes != 1 || s.Games != 2 || s.Buchholz != 8 || s.Fire {
			t.Errorf("%+v", s)
		}
	}
	if tb.played != 3 {
		t.Errorf("played %d", tb.played)
	}
}
