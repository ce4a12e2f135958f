package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"kalah/server"
	"kalah/tournament"
)

// TestTournamentOnServer runs kalah serve, two bots waiting for tournament
// games (kalah bot --wait) and kalah tournament --server with those bots
// and two built-in players: every game with a bot is played and stored on
// the server, the others here; then a tournament cut by a kill in the
// middle of a server game is resumed and finishes, the cut game played
// again; then a bot that never comes loses its games after --bot-wait.
func TestTournamentOnServer(t *testing.T) {
	srv := startServe(t, "--bot-wait", "250ms")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	base := fmt.Sprintf("http://127.0.0.1:%d", srv.httpPort)
	bctx, stopBots := context.WithCancel(ctx)
	defer stopBots()
	botRuns := srv.startBots(bctx, nil, [2]string{"alice", "greedy"}, [2]string{"bob", "first"})
	var bots []string
	for deadline := time.Now().Add(10 * time.Second); len(bots) < 2; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("bots not waiting: %v\n%s", bots, srv.log.String())
		}
		getJSON(t, base+"/api/bots", &bots)
	}

	// Twelve games: ten with a bot on the server, random v first here
	// (through the embedded NATS server, as by default).
	var out, errs syncBuffer
	code := run(ctx, []string{"tournament", "--db", "t.db", "--server", base, "--players", "bot:alice,bot:bob,random,first",
		"--time", "5s", "--format", "json", "--live", "0"}, strings.NewReader(""), &out, &errs)
	if code != 0 {
		t.Fatalf("tournament exit %d:\n%s\n%s", code, errs.String(), srv.log.String())
	}
	var rep tournament.Report
	if err := json.Unmarshal([]byte(out.String()), &rep); err != nil {
		t.Fatalf("%v:\n%s", err, out.String())
	}
	points := 0
	for _, s := range rep.Standings {
		if s.Games != 6 {
			t.Errorf("%s played %d games, want 6", s.Player, s.Games)
		}
		points += s.Points
	}
	if rep.Tournament.Played != 12 || points != 24 || len(rep.Standings) != 4 {
		t.Errorf("tournament %+v, %d points", rep.Tournament, points)
	}
	out = syncBuffer{}
	if code := run(ctx, []string{"tournament", "--db", "t.db", "--show", "1", "--games", "--format", "json"}, strings.NewReader(""), &out, &errs); code != 0 {
		t.Fatalf("show exit %d:\n%s", code, errs.String())
	}
	if err := json.Unmarshal([]byte(out.String()), &rep); err != nil {
		t.Fatal(err)
	}
	pairs := map[[2]int]int{}
	for _, g := range rep.Games {
		pairs[[2]int{g.South, g.North}]++
		onServer := g.South < 2 || g.North < 2
		if onServer != strings.HasPrefix(g.Worker, "server http://") {
			t.Errorf("game %d (%d v %d) played by %q", g.ID, g.South, g.North, g.Worker)
		}
	}
	for s := range 4 {
		for n := range 4 {
			if s != n && pairs[[2]int{s, n}] != 1 {
				t.Errorf("%d v %d played %d times", s, n, pairs[[2]int{s, n}])
			}
		}
	}
	finished := serverGames(t, base)
	if len(finished) != 10 {
		t.Errorf("%d finished games on the server, want 10: %+v", len(finished), finished)
	}
	for _, g := range finished {
		if g.South != "alice" && g.South != "bob" && g.North != "alice" && g.North != "bob" {
			t.Errorf("server game without a bot: %+v", g)
		}
	}

	// A tournament killed while a server game is played resumes, and the
	// cut game (which the server plays to its end anyway) is played again.
	rctx, kill := context.WithCancel(ctx)
	stopped := make(chan int)
	errs = syncBuffer{}
	go func() {
		stopped <- run(rctx, []string{"tournament", "--db", "t.db", "--no-nats", "--server", base, "--players", "bot:alice,first",
			"--delay", "20ms", "--live", "0"}, strings.NewReader(""), io.Discard, &errs)
	}()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no live game on the server:\n%s", errs.String())
		}
		var live []server.GameInfo
		getJSON(t, base+"/api/games?status=live", &live)
		if len(live) > 0 && live[0].Plies > 2 {
			break
		}
	}
	kill()
	if code := <-stopped; code == 0 || !strings.Contains(errs.String(), "resume with") {
		t.Fatalf("killed tournament exit %d:\n%s", code, errs.String())
	}
	out, errs = syncBuffer{}, syncBuffer{}
	if code := run(ctx, []string{"tournament", "--db", "t.db", "--resume", "2", "--no-nats", "--server", base, "--bot-wait", "10s", "--format", "json", "--live", "0"},
		strings.NewReader(""), &out, &errs); code != 0 {
		t.Fatalf("resume exit %d:\n%s", code, errs.String())
	}
	if err := json.Unmarshal([]byte(out.String()), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Tournament.Played != 2 || rep.Standings[0].Points+rep.Standings[1].Points != 4 {
		t.Errorf("resumed tournament %+v", rep)
	}
	out = syncBuffer{}
	if code := run(ctx, []string{"tournament", "--db", "t.db", "--show", "2", "--games", "--format", "json"}, strings.NewReader(""), &out, &errs); code != 0 {
		t.Fatalf("show exit %d:\n%s", code, errs.String())
	}
	if err := json.Unmarshal([]byte(out.String()), &rep); err != nil {
		t.Fatal(err)
	}
	for _, g := range rep.Games {
		// The replay waited for alice to end the cut game (--bot-wait).
		if g.Termination != "normal" {
			t.Errorf("resumed tournament's game %+v", g)
		}
	}
	if n := len(serverGames(t, base)); n != 13 {
		t.Errorf("%d finished games on the server, want 13 (10, the cut game, the two played on resume)", n)
	}

	// A bot that never comes loses each game after the server's --bot-wait.
	out, errs = syncBuffer{}, syncBuffer{}
	if code := run(ctx, []string{"tournament", "--db", "t.db", "--no-nats", "--server", base, "--players", "bot:nobody,random",
		"--format", "json", "--live", "0"}, strings.NewReader(""), &out, &errs); code != 0 || !strings.Contains(errs.String(), "not waiting") {
		t.Fatalf("tournament with an absent bot: exit %d:\n%s", code, errs.String())
	}
	if err := json.Unmarshal([]byte(out.String()), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Standings[0].Player != "random" || rep.Standings[0].Wins != 2 {
		t.Errorf("absent bot: %+v", rep.Standings)
	}
	// A token the server does not take is refused before any tournament
	// is made (the first bot game used to find out, after the creation).
	errs = syncBuffer{}
	if code := run(ctx, []string{"tournament", "--db", "wrong.db", "--no-nats", "--server", base, "--server-token", "not-the-token",
		"--players", "bot:alice,random", "--live", "0"}, strings.NewReader(""), io.Discard, &errs); code == 0 || !strings.Contains(errs.String(), "does not take the admin token given") {
		t.Errorf("wrong token: exit %d:\n%s", code, errs.String())
	}
	if _, err := os.Stat("wrong.db"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the refused tournament left %v", err)
	}
	stopBots()
	botRuns.wg.Wait()
	srv.stop()
	for i, name := range []string{"alice", "bob"} {
		if !strings.Contains(botRuns.outs[i].String(), name+": ") || strings.Contains(botRuns.outs[i].String(), "disconnect") {
			t.Errorf("bot %s exit %d:\n%s", name, botRuns.codes[i], botRuns.outs[i].String())
		}
	}
}

// serverGames returns the finished games stored by the server.
func serverGames(t *testing.T, base string) []server.GameInfo {
	t.Helper()
	var games []server.GameInfo
	getJSON(t, base+"/api/games?status=finished&limit=100", &games)
	return games
}
