package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kalah/tournament"
)

// TestPythonBotInTournament runs examples/bot.py, the documented Python
// bot, as a student would: connected to kalah serve and waiting for
// tournament games ("wait"), against a kalah bot --wait, in a tournament
// started with kalah tournament --server.
func TestPythonBotInTournament(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not installed")
	}
	script, err := filepath.Abs(filepath.Join("..", "..", "examples", "bot.py"))
	if err != nil {
		t.Fatal(err)
	}
	srv := startServe(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var pyErr bytes.Buffer
	cmd := exec.CommandContext(ctx, py, script, fmt.Sprintf("127.0.0.1:%d", srv.botPort), "pybot", "secret", "2", "wait")
	cmd.Stderr = &pyErr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pyDone := make(chan error, 1)
	go func() { pyDone <- cmd.Wait() }()
	bots := srv.startBots(ctx, []string{"--games", "2"}, [2]string{"alice", "greedy"})
	base := fmt.Sprintf("http://127.0.0.1:%d", srv.httpPort)
	var waiting []string
	for deadline := time.Now().Add(10 * time.Second); len(waiting) < 2; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("bots not waiting: %v\n%s\n%s", waiting, pyErr.String(), srv.log.String())
		}
		getJSON(t, base+"/api/bots", &waiting)
	}
	var out, errs syncBuffer
	code := run(ctx, []string{"tournament", "--db", "t.db", "--server", base, "--players", "bot:pybot,bot:alice",
		"--time", "5s", "--format", "json", "--live", "0", "--no-nats"}, strings.NewReader(""), &out, &errs)
	if code != 0 {
		t.Fatalf("tournament exit %d:\n%s\n%s", code, errs.String(), srv.log.String())
	}
	var rep tournament.Report
	if err := json.Unmarshal([]byte(out.String()), &rep); err != nil {
		t.Fatalf("%v:\n%s", err, out.String())
	}
	if len(rep.Standings) != 2 {
		t.Fatalf("standings: %+v", rep.Standings)
	}
	for _, s := range rep.Standings {
		if s.Games != 2 {
			t.Errorf("%s played %d games, want 2 (one a side)", s.Player, s.Games)
		}
	}
	if err := <-pyDone; err != nil {
		t.Errorf("bot.py: %v\n%s", err, pyErr.String())
	}
	bots.wg.Wait()
	if bots.codes[0] != 0 || strings.Contains(bots.outs[0].String(), "disconnect") {
		t.Errorf("alice exit %d:\n%s", bots.codes[0], bots.outs[0].String())
	}
}
