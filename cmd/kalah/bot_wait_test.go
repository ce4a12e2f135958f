package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"kalah/web"
)

// TestBotWaitTournament runs kalah serve with its page, two kalah bot
// --wait, and a tournament between them started through the page's API:
// each bot plays its two games and stops.
func TestBotWaitTournament(t *testing.T) {
	t.Chdir(t.TempDir())
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	if err := os.Mkdir("kalah-data", 0o755); err != nil {
		t.Fatal(err)
	}
	botPort, httpPort := freePort(t), freePort(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var serveErr syncBuffer
	served := make(chan int)
	go func() {
		served <- run(ctx, []string{"serve", "--data", "kalah-data", "--addr", fmt.Sprintf("127.0.0.1:%d", httpPort), "--kgp-addr", "0",
			"--bot-addr", fmt.Sprintf("127.0.0.1:%d", botPort)}, strings.NewReader(""), io.Discard, &serveErr)
	}()
	for !strings.Contains(serveErr.String(), "serving") {
		time.Sleep(10 * time.Millisecond)
	}
	var wg sync.WaitGroup
	outs := make([]syncBuffer, 2)
	codes := make([]int, 2)
	for i, bot := range [][2]string{{"alice", "greedy"}, {"bob", "first"}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i] = run(ctx, []string{"bot", "--server", fmt.Sprintf("127.0.0.1:%d", botPort), "--name", bot[0], "--player", bot[1],
				"--token", "t", "--wait", "--games", "2"}, strings.NewReader(""), &outs[i], io.Discard)
		}()
	}
	base := fmt.Sprintf("http://127.0.0.1:%d%s", httpPort, web.Prefix)
	var meta web.Meta
	for deadline := time.Now().Add(10 * time.Second); len(meta.Bots) < 2; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("bots not waiting: %v\n%s", meta.Bots, serveErr.String())
		}
		getJSON(t, base+"meta", &meta)
	}
	resp, err := http.Post(base+"tournaments", "application/json",
		strings.NewReader(`{"name":"Class","players":["bot:alice","bot:bob"],"rules":{"houses":6,"seeds":4},"per_move_ms":5000}`))
	if err != nil {
		t.Fatal(err)
	}
	var ts web.TournamentState
	json.NewDecoder(resp.Body).Decode(&ts)
	resp.Body.Close()
	if resp.StatusCode != 201 {
		t.Fatalf("create: %d", resp.StatusCode)
	}
	wg.Wait()
	for deadline := time.Now().Add(10 * time.Second); ts.Running || ts.Played < ts.Total; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("tournament: %+v", ts)
		}
		getJSON(t, base+"tournaments/"+ts.ID, &ts)
	}
	cancel()
	<-served
	for i, name := range []string{"alice", "bob"} {
		if codes[i] != 0 || !strings.Contains(outs[i].String(), name+": won ") || strings.Count(outs[i].String(), "(normal)") != 2 {
			t.Errorf("bot %s exit %d:\n%s", name, codes[i], outs[i].String())
		}
	}
	if ts.Total != 2 || ts.Error != "" || len(ts.Standings) != 2 || ts.Standings[0].Points+ts.Standings[1].Points != 2 {
		t.Errorf("tournament %+v", ts)
	}
	for _, g := range ts.Games {
		if !g.Done || !strings.HasPrefix(g.Game, "s") {
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
