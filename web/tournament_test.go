package web

import (
	"testing"
	"time"

	"kalah"
)

func TestTournamentRoutes(t *testing.T) {
	srv, _ := newServer(t)
	small := kalah.Rules{Name: "", Houses: 4, Seeds: 3}
	var ts TournamentState
	if code := call(t, srv, "POST", Prefix+"tournaments", NewTournament{Name: "Small", Rules: small, Players: []string{"first", "greedy", "random"}, Rounds: 1}, &ts); code != 201 {
		t.Fatal(code)
	}
	if ts.Total != 6 || ts.Name != "Small" || len(ts.Standings) != 3 {
		t.Fatalf("created: %+v", ts)
	}
	deadline := time.Now().Add(20 * time.Second)
	for ts.Running {
		if time.Now().After(deadline) {
			t.Fatalf("tournament still running: %d/%d", ts.Played, ts.Total)
		}
		time.Sleep(20 * time.Millisecond)
		call(t, srv, "GET", Prefix+"tournaments/"+ts.ID, nil, &ts)
	}
	if ts.Error != "" || ts.Played != 6 {
		t.Fatalf("finished: %+v", ts)
	}
	points, games := 0.0, 0
	for i, s := range ts.Standings {
		points += s.Points
		games += s.Games
		if s.Wins+s.Draws+s.Losses != s.Games || s.Games != 4 {
			t.Errorf("standing %+v", s)
		}
		if i > 0 && s.Points > ts.Standings[i-1].Points {
			t.Errorf("standings out of order")
		}
		if s.Elo < -800 || s.Elo > 800 { // the field's mean is 0
			t.Errorf("elo %v", s.Elo)
		}
	}
	if points != 6 || games != 12 {
		t.Errorf("points %v games %d", points, games)
	}
	// The cross-table adds up: i against j plus j against i is two games.
	for i := range ts.Cross {
		for j := range ts.Cross {
			if i != j && ts.Cross[i][j]+ts.Cross[j][i] != 2 {
				t.Errorf("cross %d %d: %v + %v", i, j, ts.Cross[i][j], ts.Cross[j][i])
			}
		}
	}
	// Every game is a game of the hub, watchable and finished.
	for _, g := range ts.Games {
		var st State
		if code := call(t, srv, "GET", Prefix+"games/"+g.Game+"/board", nil, &st); code != 200 || !st.Over || st.Tournament != ts.ID || st.Score != g.Score {
			t.Errorf("game %s: %d %+v", g.Game, code, st.Score)
		}
	}
	var list []TournamentState
	call(t, srv, "GET", Prefix+"tournaments", nil, &list)
	if len(list) != 1 || list[0].ID != ts.ID {
		t.Errorf("list: %+v", list)
	}
	for _, tc := range []struct {
		name string
		body any
	}{
		{"one player", NewTournament{Rules: small, Players: []string{"first"}}},
		{"human", NewTournament{Rules: small, Players: []string{"first", "human"}}},
		{"unknown", NewTournament{Rules: small, Players: []string{"first", "nobody"}}},
		{"bad rules", NewTournament{Rules: kalah.Rules{}, Players: []string{"first", "greedy"}}},
		{"rounds", NewTournament{Rules: small, Players: []string{"first", "greedy"}, Rounds: 99}},
		{"json", "{"},
	} {
		if code := call(t, srv, "POST", Prefix+"tournaments", tc.body, nil); code != 400 {
			t.Errorf("%s: %d", tc.name, code)
		}
	}
	if code := call(t, srv, "GET", Prefix+"tournaments/nope", nil, nil); code != 404 {
		t.Errorf("unknown: %d", code)
	}
}
