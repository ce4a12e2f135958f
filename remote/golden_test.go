package remote_test

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"kalah"
	"kalah/player"
	"kalah/referee"
	"kalah/remote"
)

var update = flag.Bool("update", false, "rewrite the golden transcripts in testdata")

// TestStdioTranscript pins what the referee says to an exec: program in a
// whole game (the Go example bot as South against greedy): the stdio form
// of docs/PROTOCOL.md. Run with -update to rewrite testdata/stdio.golden.
func TestStdioTranscript(t *testing.T) {
	bot := buildGoBot(t)
	log := filepath.Join(t.TempDir(), "in.txt")
	r := kalah.Standard()
	p := &remote.Process{Command: "tee " + log + " | " + bot}
	b, _ := player.New("greedy", player.Options{Rules: r})
	g, _ := kalah.NewGame(r)
	out, err := (&referee.Referee{PerMove: 5 * time.Second}).Play(context.Background(), g, [2]player.Player{p, b})
	p.Close()
	if err != nil || out.Game.Termination() != kalah.Normal {
		t.Fatalf("game: %v %v", out.Game.Termination(), err)
	}
	got, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "stdio.golden")
	if *update {
		os.MkdirAll("testdata", 0o755)
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if string(got) != string(want) {
		t.Errorf("transcript differs from %s (run with -update if intended):\n%s", golden, got)
	}
}
