package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"kalah/server"
	"kalah/web"
)

// TestBotWaitTournament runs kalah serve with its page, two kalah bot
// --wait, and a tournament between them started through the page's API:
// each bot plays its two games and stops.
func TestBotWaitTournament(t *testing.T) {
	srv := startServe(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	bots := srv.startBots(ctx, []string{"--games", "2"}, [2]string{"alice", "greedy"}, [2]string{"bob", "first"})
	base := fmt.Sprintf("http://127.0.0.1:%d%s", srv.httpPort, web.Prefix)
	var meta web.Meta
	for deadline := time.Now().Add(10 * time.Second); len(meta.Bots) < 2; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("bots not waiting: %v\n%s", meta.Bots, srv.log.String())
		}
		getJSON(t, base+"meta", &meta)
	}
	// A tournament is the server's work: the admin's token (or a session)
	// starts one.
	admin, err := os.ReadFile("kalah-data/admin.token")
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest("POST", base+"tournaments",
		strings.NewReader(`{"name":"Class","players":["bot:alice","bot:bob"],"rules":{"houses":6,"seeds":4},"per_move_ms":5000}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(admin)))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var ts server.TournamentState
	json.NewDecoder(resp.Body).Decode(&ts)
	resp.Body.Close()
	if resp.StatusCode != 201 {
		t.Fatalf("create: %d", resp.StatusCode)
	}
	bots.wg.Wait()
	for deadline := time.Now().Add(10 * time.Second); ts.Running || ts.Played < ts.Total; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("tournament: %+v", ts)
		}
		getJSON(t, base+"tournaments/"+ts.ID, &ts)
	}
	srv.stop()
	for i, name := range []string{"alice", "bob"} {
		if bots.codes[i] != 0 || !strings.Contains(bots.outs[i].String(), name+": won ") || strings.Count(bots.outs[i].String(), "(normal)") != 2 {
			t.Errorf("bot %s exit %d:\n%s", name, bots.codes[i], bots.outs[i].String())
		}
	}
	if ts.Total != 2 || ts.Error != "" || len(ts.Standings) != 2 || ts.Standings[0].Points+ts.Standings[1].Points != 2 {
		t.Errorf("tournament %+v", ts)
	}
	for _, g := range ts.Games {
		if _, err := strconv.ParseInt(g.Game, 10, 64); !g.Done || err != nil {
			t.Errorf("game %+v", g)
		}
	}
}

func getJSON(t *testing.T, url string, v any) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatal(err)
	}
}
