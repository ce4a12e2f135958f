package web

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"kalah"
	"kalah/internal/store"
	"kalah/player"
	"kalah/remote"
	"kalah/server"
	"kalah/tournament"
)

// botWorld is a match server with a TCP bot listener, the page with
// tournaments that play bot:NAME games on it, and bots connected with
// the remote client.
type botWorld struct {
	srv   *server.Server
	st    *store.Store
	tours *StoredTournaments
	tst   *tournament.Store
	web   *httptest.Server
	addr  string
	ctx   context.Context
	bots  sync.WaitGroup
	errs  chan error
}

func newBotWorld(t *testing.T, wait time.Duration) *botWorld {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kalah.db")
	st, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(server.Config{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(l) }()
	// The tournaments live in the server's own database.
	tst, err := tournament.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	w := &botWorld{srv: srv, st: st, tst: tst, addr: l.Addr().String(), ctx: ctx, errs: make(chan error, 8)}
	w.tours = NewStoredTournaments(ctx, tst, srv).PlayBotsOn(srv, wait)
	h, err := New(ctx, Options{Server: srv, Tournaments: w.tours, Trusted: trustAll})
	if err != nil {
		t.Fatal(err)
	}
	w.web = newTestServerFor(t, h)
	t.Cleanup(func() {
		cancel()
		w.bots.Wait()
		sctx, scancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer scancel()
		if err := srv.Shutdown(sctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		<-served
		tst.Close()
		st.Close()
	})
	return w
}

// connect puts a built-in player online as a bot that waits for
// tournament games, and waits until the server counts it.
func (w *botWorld) connect(t *testing.T, name, spec string) {
	t.Helper()
	p, err := player.New(spec, player.Options{Rules: kalah.Standard(), Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	c := &remote.Client{Addr: w.addr, Name: name, Token: "secret-" + name, Player: p, Wait: true}
	w.bots.Add(1)
	go func() {
		defer w.bots.Done()
		if err := c.Run(w.ctx); err != nil && !errors.Is(err, context.Canceled) {
			w.errs <- fmt.Errorf("bot %s: %w", name, err)
		}
	}()
	deadline := time.Now().Add(10 * time.Second)
	for !slices.Contains(w.srv.WaitingBots(), name) {
		if time.Now().After(deadline) {
			t.Fatalf("bot %s is not waiting: %v", name, w.srv.WaitingBots())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// run creates a tournament through the API and waits for its end.
func (w *botWorld) run(t *testing.T, req NewTournament) TournamentState {
	t.Helper()
	var ts TournamentState
	if code := call(t, w.web, "POST", Prefix+"tournaments", req, &ts); code != 201 {
		t.Fatalf("create: %d", code)
	}
	deadline := time.Now().Add(60 * time.Second)
	for ts.Running || ts.Played < ts.Total {
		select {
		case err := <-w.errs:
			t.Fatal(err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("still running: %d/%d %s", ts.Played, ts.Total, ts.Error)
		}
		time.Sleep(20 * time.Millisecond)
		call(t, w.web, "GET", Prefix+"tournaments/"+ts.ID, nil, &ts)
	}
	if ts.Error != "" {
		t.Fatal(ts.Error)
	}
	return ts
}

// checkStandings recomputes the standings from the stored games.
func (w *botWorld) checkStandings(t *testing.T, ts TournamentState) []tournament.Played {
	t.Helper()
	played, err := w.tst.Games(context.Background(), mustInt(t, ts.ID))
	if err != nil || len(played) != ts.Total {
		t.Fatalf("%d games stored of %d: %v", len(played), ts.Total, err)
	}
	want := map[string]*Standing{}
	for _, p := range ts.Players {
		want[p] = &Standing{Player: p}
	}
	for _, g := range played {
		s, n := want[ts.Players[g.South]], want[ts.Players[g.North]]
		s.Games++
		n.Games++
		switch {
		case g.SouthSeeds > g.NorthSeeds:
			s.Wins, n.Losses, s.Points = s.Wins+1, n.Losses+1, s.Points+1
		case g.SouthSeeds < g.NorthSeeds:
			n.Wins, s.Losses, n.Points = n.Wins+1, s.Losses+1, n.Points+1
		default:
			s.Draws, n.Draws, s.Points, n.Points = s.Draws+1, n.Draws+1, s.Points+0.5, n.Points+0.5
		}
	}
	if len(ts.Standings) != len(ts.Players) {
		t.Fatalf("standings %+v", ts.Standings)
	}
	for _, got := range ts.Standings {
		x := want[got.Player]
		if x == nil || got.Games != x.Games || got.Wins != x.Wins || got.Draws != x.Draws || got.Losses != x.Losses || got.Points != x.Points {
			t.Errorf("standing %+v, recomputed %+v", got, x)
		}
	}
	return played
}

func TestTournamentOfConnectedBots(t *testing.T) {
	w := newBotWorld(t, 5*time.Second)
	w.connect(t, "alice", "greedy")
	w.connect(t, "bob", "first")
	// The page offers the waiting bots by name, not the bare kind.
	var meta Meta
	call(t, w.web, "GET", Prefix+"meta", nil, &meta)
	if !slices.Equal(meta.Bots, []string{"bot:alice", "bot:bob"}) || slices.ContainsFunc(meta.Players, func(p PlayerInfo) bool { return p.Name == "bot" }) {
		t.Fatalf("meta bots %v, players %+v", meta.Bots, meta.Players)
	}
	small := kalah.Rules{Houses: 4, Seeds: 3}
	players := []string{"bot:alice", "bot:bob", "greedy", "random"}
	ts := w.run(t, NewTournament{Name: "Class", Rules: small, Players: players, Rounds: 2, PerMoveMillis: 5000, Seed: 5})
	// Round robin, two rounds: each ordered pairing twice.
	if ts.Total != 24 || len(ts.Games) != 24 {
		t.Fatalf("%d games of %d", len(ts.Games), ts.Total)
	}
	count := map[[2]string]int{}
	for _, g := range ts.Games {
		if !g.Done {
			t.Fatalf("game not done: %+v", g)
		}
		count[[2]string{g.South, g.North}]++
	}
	for _, a := range players {
		for _, b := range players {
			if want := map[bool]int{true: 0, false: 2}[a == b]; count[[2]string{a, b}] != want {
				t.Errorf("%s-%s played %d times, want %d", a, b, count[[2]string{a, b}], want)
			}
		}
	}
	played := w.checkStandings(t, ts)
	// Every game is the server's, stored with the same score: the bots'
	// games and the built-in players' alike.
	ctx := context.Background()
	serverGames := 0
	for i, g := range ts.Games {
		bot := strings.HasPrefix(g.South, "bot:") || strings.HasPrefix(g.North, "bot:")
		if _, err := strconv.ParseInt(g.Game, 10, 64); err != nil {
			t.Errorf("game %d (%s-%s) not on the server: %q", i, g.South, g.North, g.Game)
		}
		if !bot {
			continue
		}
		serverGames++
		id := mustInt(t, g.Game)
		v, err := w.srv.Game(ctx, id)
		if err != nil || v.Status != store.Finished {
			t.Fatalf("server game %s: %+v %v", g.Game, v.GameInfo, err)
		}
		if v.Score != (kalah.Score{South: g.Score[0], North: g.Score[1]}) || v.Record.Tags["Tournament"] != ts.ID {
			t.Errorf("game %d: server %+v, tournament %v", i, v.Score, g.Score)
		}
		if v.Termination != kalah.Normal || played[i].Reason != "" {
			t.Errorf("game %d ended %s: %s", i, v.Termination, played[i].Reason)
		}
		if want := strings.TrimPrefix(g.South, "bot:"); v.South != want {
			t.Errorf("game %d: server South %s, want %s", i, v.South, want)
		}
	}
	if serverGames != 20 {
		t.Errorf("%d server games, want 20", serverGames)
	}
}

func TestTournamentWithAbsentBot(t *testing.T) {
	wait := 300 * time.Millisecond
	w := newBotWorld(t, wait)
	w.connect(t, "alice", "greedy")
	small := kalah.Rules{Houses: 4, Seeds: 3}
	start := time.Now()
	// ghost never connects: each of its games waits, then it loses them.
	ts := w.run(t, NewTournament{Rules: small, Players: []string{"bot:alice", "bot:ghost", "first"}, PerMoveMillis: 5000, Seed: 2})
	if el := time.Since(start); el < 4*wait {
		t.Errorf("finished in %v, though ghost's 4 games each wait %v", el, wait)
	}
	played := w.checkStandings(t, ts)
	for _, s := range ts.Standings {
		if s.Player == "bot:ghost" && (s.Losses != 4 || s.Points != 0) {
			t.Errorf("ghost: %+v", s)
		}
	}
	for i, g := range ts.Games {
		if g.South != "bot:ghost" && g.North != "bot:ghost" {
			continue
		}
		if played[i].Termination != kalah.Disconnect.String() || !strings.Contains(played[i].Reason, "ghost") {
			t.Errorf("ghost's game %d: %s %q", i, played[i].Termination, played[i].Reason)
		}
		v, err := w.srv.Game(context.Background(), mustInt(t, g.Game))
		if err != nil || v.Status != store.Finished || v.Termination != kalah.Disconnect {
			t.Errorf("ghost's game %d on the server: %+v %v", i, v.GameInfo, err)
		}
	}
}

func TestTournamentBotsWithoutServer(t *testing.T) {
	st, err := tournament.Open(filepath.Join(t.TempDir(), "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	tours := NewStoredTournaments(ctx, st, newMatchServer(t, server.Config{}))
	id, err := tours.Create(ctx, NewTournament{Rules: kalah.Rules{Houses: 4, Seeds: 3}, Players: []string{"bot:alice", "first"}})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		s, err := tours.State(id)
		if err != nil {
			t.Fatal(err)
		}
		if !s.Running {
			if !strings.Contains(s.Error, "kalah serve") || s.Played != 0 {
				t.Fatalf("state %+v", s)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("still running")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
