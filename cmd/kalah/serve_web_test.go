package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kalah"
	"kalah/internal/store"
	"kalah/server"
	"kalah/web"
)

// TestServeMountsWeb checks what kalah serve puts at "/": the page and its
// API, whose games are the server's, kept in the data directory's one
// database, still there after a restart; games an older release's page
// kept in web-games/ are moved in, found by their old ids, and a person's
// old token still moves their seat.
func TestServeMountsWeb(t *testing.T) {
	t.Chdir(t.TempDir())
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	data := t.TempDir()
	// An older release's page game: a person (South) against greedy, one
	// move played, and a finished one.
	g, _ := kalah.NewGame(kalah.Standard())
	g.Play(1)
	g.Play(1)
	old := map[string]any{"id": "0a1b2c3d4e", "created": time.Now().Add(-time.Hour), "tokens": []string{"old-token", ""},
		"request": map[string]any{"rules": kalah.Standard(), "south": "human", "north": "greedy", "casual": true},
		"seats":   []map[string]any{{"name": "Ann", "human": true, "joined": true}, {"name": "greedy", "spec": "greedy"}},
		"record":  g.Record()}
	done, _ := kalah.NewGame(kalah.Standard())
	done.Forfeit(kalah.South, kalah.Resign)
	finished := map[string]any{"id": "ffff000011", "created": time.Now().Add(-2 * time.Hour), "tokens": []string{"t2", ""},
		"request": map[string]any{"rules": kalah.Standard(), "south": "human", "north": "first"},
		"seats":   []map[string]any{{"name": "Bo", "human": true, "joined": true}, {"name": "first", "spec": "first"}},
		"record":  done.Record(), "reason": "Bo resigned"}
	if err := os.MkdirAll(filepath.Join(data, "web-games"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, sg := range []map[string]any{old, finished} {
		b, _ := json.Marshal(sg)
		if err := os.WriteFile(filepath.Join(data, "web-games", sg["id"].(string)+".json"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	start := func() (*server.Server, *store.Store) {
		st, err := store.Open(filepath.Join(data, "kalah.db"))
		if err != nil {
			t.Fatal(err)
		}
		srv, err := server.New(server.Config{Store: st, NoClock: true})
		if err != nil {
			t.Fatal(err)
		}
		return srv, st
	}
	stop := func(srv *server.Server, st *store.Store) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
		st.Close()
	}
	srv, st := start()
	ctx1, stop1 := context.WithCancel(context.Background())
	h, wait1, err := mountWeb(ctx1, srv, data, pageLimits{})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	defer ts.Close()
	resp, err := http.Get(ts.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("GET /: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if _, err := os.Stat(filepath.Join(data, "web-games.imported")); err != nil {
		t.Errorf("web-games not set aside: %v", err)
	}
	get := func(base, id string) server.Board {
		t.Helper()
		resp, err := http.Get(base + "/api/games/" + id + "/board")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var s server.Board
		json.NewDecoder(resp.Body).Decode(&s)
		if resp.StatusCode != 200 {
			t.Fatalf("game %s: %d", id, resp.StatusCode)
		}
		return s
	}
	if s := get(ts.URL, "0a1b2c3d4e"); len(s.Moves) != 2 || !s.Live || s.Seats[0].Name != "Anonymous" || !s.Casual {
		t.Fatalf("the imported game: %+v", s)
	}
	if s := get(ts.URL, "ffff000011"); !s.Over || s.Termination != "resign" || s.Reason != "Bo resigned" {
		t.Fatalf("the imported finished game: %+v", s)
	}
	post := func(base, path, body string) *http.Response {
		t.Helper()
		resp, err := http.Post(base+web.Prefix+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	resp = post(ts.URL, "games/0a1b2c3d4e/move", `{"token":"old-token","move":"2"}`)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("the old token's move: %d", resp.StatusCode)
	}
	resp = post(ts.URL, "games", `{"rules":{"houses":6,"seeds":4},"south":"human","north":"human","invite":true}`)
	var c server.Started
	json.NewDecoder(resp.Body).Decode(&c)
	resp.Body.Close()
	if resp.StatusCode != 201 || c.ID == 0 {
		t.Fatalf("create: %d", resp.StatusCode)
	}
	// The page's games are the server's.
	if len(srv.LiveGames()) != 2 {
		t.Errorf("the server's live games: %+v", srv.LiveGames())
	}
	// A restart: the page ends with its context, as kalah serve's does,
	// and a new server on the same data finds the games.
	stop1()
	wait1()
	stop(srv, st)
	srv2, st2 := start()
	defer stop(srv2, st2)
	ctx2, stop2 := context.WithCancel(context.Background())
	h2, wait2, err := mountWeb(ctx2, srv2, data, pageLimits{})
	defer wait2()
	defer stop2()
	if err != nil {
		t.Fatal(err)
	}
	ts2 := httptest.NewServer(h2)
	defer ts2.Close()
	if s := get(ts2.URL, fmt.Sprint(c.ID)); !s.Live || s.Seats[1].Joined {
		t.Errorf("the new game after the restart: %+v", s)
	}
	if s := get(ts2.URL, "0a1b2c3d4e"); len(s.Moves) < 3 {
		t.Errorf("the imported game after the restart: %d moves", len(s.Moves))
	}
	n, err := srv2.ImportSavedGames(context.Background(), filepath.Join(data, "web-games"), nil)
	if err != nil || n != 0 {
		t.Errorf("imported again: %d, %v", n, err)
	}
}

// TestPageAnalysisFromBook: as kalah serve mounts it, the page's analysis
// (POST /api/analyze) and the hints of casual games answer a position of
// the built-in opening book from the book, every move exact, in a budget
// far too short for a search of Kalah(6,4).
func TestPageAnalysisFromBook(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	t.Setenv("KALAH_EGDB_DIR", t.TempDir()) // no database: the book alone
	data := t.TempDir()
	st, err := store.Open(filepath.Join(data, "kalah.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	srv, err := server.New(server.Config{Store: st, NoClock: true})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	}()
	ctx, stop := context.WithCancel(context.Background())
	h, wait, err := mountWeb(ctx, srv, data, pageLimits{})
	if err != nil {
		t.Fatal(err)
	}
	defer wait()
	defer stop()
	ts := httptest.NewServer(h)
	defer ts.Close()

	r := kalah.Standard()
	g, _ := kalah.NewGame(r)
	g.Play(1) // North to move, one ply in
	body, _ := json.Marshal(web.AnalyzeRequest{Rules: r, Position: g.Position().String(), Millis: 1})
	resp, err := http.Post(ts.URL+web.Prefix+"analyze", "application/json", strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	var an web.AnalyzeResponse
	json.NewDecoder(resp.Body).Decode(&an)
	resp.Body.Close()
	if resp.StatusCode != 200 || an.Source != "opening book" || len(an.Moves) != 6 {
		t.Fatalf("POST /api/analyze: %d %+v", resp.StatusCode, an)
	}
	for _, mv := range an.Moves {
		if !mv.Exact {
			t.Errorf("move %s: %+v, want exact", mv.Move, mv)
		}
	}
	m, err := serveHint(context.Background(), g)
	if err != nil || m != an.Best() {
		t.Errorf("hint %s (%v); the book's best %s", m, err, an.Best())
	}
}
