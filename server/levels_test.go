package server

import (
	"context"
	"testing"

	"kalah"
	"kalah/player"
)

// TestComputerSeatNamedByLevel: a computer seat is named by its level
// whether it was asked for by the level's name (any case) or by the
// level's engine settings ("pekar-tree:3"), and keeps the engine as its
// Spec; a bare kind of player ("random", "pekar") is named so even where
// a level plays it; any other spec is its own name.
func TestComputerSeatNamedByLevel(t *testing.T) {
	ts := newTestServer(t, "", Config{})
	levels := player.Levels()
	if len(levels) < 4 {
		t.Fatalf("levels %+v", levels)
	}
	type tc struct{ ask, name, spec string }
	cases := []tc{{"greedy", "greedy", "greedy"}, {"first", "first", "first"}}
	kinds := map[string]bool{}
	for _, k := range player.List() {
		kinds[k.Name] = true
	}
	for _, l := range levels {
		cases = append(cases, tc{l.Name, l.Name, l.Spec})
		if kinds[l.Spec] {
			cases = append(cases, tc{l.Spec, l.Spec, l.Spec})
		} else {
			cases = append(cases, tc{l.Spec, l.Name, l.Spec})
		}
	}
	cases = append(cases, tc{"MEDIUM", "medium", "pekar-tree:3"}, tc{"pekar-tree:3", "medium", "pekar-tree:3"}, tc{"random", "random", "random"}, tc{"pekar-tree:4", "pekar-tree:4", "pekar-tree:4"})
	for _, c := range cases {
		st, err := ts.srv.StartGame(context.Background(), GameRequest{Rules: kalah.Rules{Houses: 3, Seeds: 1}, South: "human", North: c.ask, Casual: true})
		if err != nil {
			t.Fatalf("%s: %v", c.ask, err)
		}
		b, err := ts.srv.BoardOf(context.Background(), st.ID)
		if err != nil {
			t.Fatal(err)
		}
		if s := b.Seats[1]; s.Name != c.name || s.Spec != c.spec || s.ID.Name != c.name {
			t.Errorf("north asked as %q: seat %+v, want the name %q, the spec %q", c.ask, s, c.name, c.spec)
		}
		ts.srv.Abort(context.Background(), st.ID, Actor{Token: st.Tokens[0]})
	}
}
