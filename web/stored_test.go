package web

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"kalah"
	"kalah/server"
	"kalah/tournament"
)

func TestStoredTournaments(t *testing.T) {
	st, err := tournament.Open(filepath.Join(t.TempDir(), "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	msrv := newMatchServer(t, server.Config{})
	h, err := New(ctx, Options{Server: msrv, Tournaments: NewStoredTournaments(ctx, st, msrv), Trusted: trustAll})
	if err != nil {
		t.Fatal(err)
	}
	srv := newTestServerFor(t, h)
	small := kalah.Rules{Houses: 4, Seeds: 3}
	var ts TournamentState
	if code := call(t, srv, "POST", Prefix+"tournaments", NewTournament{Name: "Stored", Rules: small, Players: []string{"first", "greedy", "random"}, Seed: 3}, &ts); code != 201 {
		t.Fatal(code)
	}
	if ts.Total != 6 || ts.Name != "Stored" || len(ts.Games) != 6 {
		t.Fatalf("created: %+v", ts)
	}
	deadline := time.Now().Add(20 * time.Second)
	for ts.Running || ts.Played < ts.Total {
		if time.Now().After(deadline) {
			t.Fatalf("still running: %d/%d %s", ts.Played, ts.Total, ts.Error)
		}
		time.Sleep(20 * time.Millisecond)
		call(t, srv, "GET", Prefix+"tournaments/"+ts.ID, nil, &ts)
	}
	if ts.Error != "" {
		t.Fatal(ts.Error)
	}
	points := 0.0
	for _, s := range ts.Standings {
		points += s.Points
		if s.Games != 4 {
			t.Errorf("standing %+v", s)
		}
	}
	if points != 6 {
		t.Errorf("points %v", points)
	}
	// Each game was played on the hub, and the store kept the same result.
	stored, err := st.Games(ctx, mustInt(t, ts.ID))
	if err != nil || len(stored) != 6 {
		t.Fatalf("stored games: %d %v", len(stored), err)
	}
	for i, g := range ts.Games {
		var gs State
		if code := call(t, srv, "GET", Prefix+"games/"+g.Game+"/board", nil, &gs); code != 200 || !gs.Over {
			t.Fatalf("hub game %q: %d", g.Game, code)
		}
		if gs.Score != g.Score || g.Score != [2]int{stored[i].SouthSeeds, stored[i].NorthSeeds} {
			t.Errorf("game %d: hub %v, page %v, store %d-%d", i, gs.Score, g.Score, stored[i].SouthSeeds, stored[i].NorthSeeds)
		}
	}
	var list []TournamentState
	call(t, srv, "GET", Prefix+"tournaments", nil, &list)
	if len(list) != 1 || list[0].ID != ts.ID || list[0].Format != "roundrobin" {
		t.Errorf("list %+v", list)
	}
	// A gauntlet: the first player meets each of the others from both sides.
	var g TournamentState
	if code := call(t, srv, "POST", Prefix+"tournaments", NewTournament{Format: "gauntlet", Rules: small, Players: []string{"greedy", "first", "random"}, Seed: 1}, &g); code != 201 {
		t.Fatal(code)
	}
	if g.Format != "gauntlet" || g.Total != 4 {
		t.Errorf("gauntlet: %s with %d games", g.Format, g.Total)
	}
	for _, bad := range []any{
		NewTournament{Format: "sprt", Rules: small, Players: []string{"first", "greedy"}},
		NewTournament{Format: "knockout", Rules: small, Players: []string{"first", "greedy"}},
		NewTournament{Rules: small, Players: []string{"first"}},
		NewTournament{Rules: small, Players: []string{"first", "nobody"}},
		NewTournament{Rules: small, Players: []string{"first", "human"}},
		NewTournament{Rules: kalah.Rules{}, Players: []string{"first", "greedy"}},
	} {
		if code := call(t, srv, "POST", Prefix+"tournaments", bad, nil); code != 400 {
			t.Errorf("%+v: %d", bad, code)
		}
	}
	for _, bad := range []string{"x", "999"} {
		if code := call(t, srv, "GET", Prefix+"tournaments/"+bad, nil, nil); code != 404 {
			t.Errorf("%s: %d", bad, code)
		}
	}
}

func mustInt(t *testing.T, s string) int64 {
	n, err := tournamentID(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestStoredTournamentsResume(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.db")
	st, err := tournament.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	small := kalah.Rules{Houses: 4, Seeds: 3}
	// A tournament stopped after its first game, as by a server shutdown.
	ctx1, stop := context.WithCancel(context.Background())
	msrv := newMatchServer(t, server.Config{})
	ts1 := NewStoredTournaments(ctx1, st, msrv)
	id, err := ts1.Create(ctx1, NewTournament{Rules: small, Players: []string{"first", "greedy"}, Rounds: 2, DelayMillis: 2})
	if err != nil {
		t.Fatal(err)
	}
	for {
		s, _ := ts1.State(id)
		if s.Played >= 1 {
			break
		}
		time.Sleep(2 * time.Millisecond)
	}
	stop()
	for {
		s, _ := ts1.State(id)
		if !s.Running {
			break
		}
		time.Sleep(2 * time.Millisecond)
	}
	// One stopped on the command line is not the page's to resume.
	other, err := st.Create(context.Background(), tournament.Config{Players: []string{"first", "random"}, Rules: small, Rounds: 3})
	if err != nil {
		t.Fatal(err)
	}
	octx, ocancel := context.WithCancel(context.Background())
	st.Run(octx, other, tournament.RunOptions{Executor: tournament.Local{Workers: 1, Name: "cli"},
		Progress: func(tournament.Progress) { ocancel() }})
	ocancel()
	if in, _ := st.Tournament(context.Background(), other); in.Status == tournament.StatusFinished || in.Played == 0 {
		t.Fatalf("the command line's tournament: %s, %d played", in.Status, in.Played)
	}
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	ts2 := NewStoredTournaments(ctx2, st, msrv)
	ids, err := ts2.Resume(ctx2)
	if err != nil || len(ids) != 1 || ids[0] != id {
		t.Fatalf("resumed %v (%v), want [%s]", ids, err, id)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		s, err := ts2.State(id)
		if err != nil {
			t.Fatal(err)
		}
		if !s.Running {
			if s.Played != s.Total || s.Total != 4 || s.Error != "" {
				t.Fatalf("after resuming: %d/%d %q", s.Played, s.Total, s.Error)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("resumed tournament does not end")
		}
		time.Sleep(5 * time.Millisecond)
	}
}
