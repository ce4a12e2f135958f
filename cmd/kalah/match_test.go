package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kalah"
)

func runCmd(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(""), &out, &errb)
	return out.String(), errb.String(), code
}

// The perfect player's moves in Kalah(6,3) are all proven (its books, then
// its solves), and the table says so; greedy reports none.
func TestMatchCommandExactShare(t *testing.T) {
	t.Setenv("KALAH_EGDB_DIR", t.TempDir()) // no database: one built in memory
	out, errs, code := runCmd(t, "match", "--data", t.TempDir(), "--a", "perfect", "--b", "greedy", "--seeds", "3", "--games", "2", "--markdown")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"| exact |", "| 100% | 0 |", "| - | 0 |"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestMatchCommand(t *testing.T) {
	rec := filepath.Join(t.TempDir(), "games.jsonl")
	out, errs, code := runCmd(t, "match", "--a", "alphabeta:simple:depth=4", "--b", "pekar", "--games", "4",
		"--openings", "--parallel", "2", "--time", "2s", "--record", rec)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"game 1: A (S)", "opening 1", "game 4: A (N)", "max time", "nodes/move",
		"A alphabeta:simple:depth=4", "B pekar", "scores, A moved first:", "scores, B moved first:", "2s a move"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	f, err := os.Open(rec)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		var r kalah.Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("record %d: %v", n+1, err)
		}
		g, err := r.Game()
		if err != nil || !g.Over() {
			t.Fatalf("record %d: %v, over %v", n+1, err, g != nil && g.Over())
		}
		n++
		if r.Tags["Game"] != string(rune('0'+n)) {
			t.Errorf("record %d has tags %v", n, r.Tags)
		}
	}
	if n != 4 {
		t.Errorf("%d records, want 4", n)
	}
	for _, bad := range [][]string{
		{"match", "--a", "nobody"},
		{"match", "--games", "0"},
		{"match", "--a", "pekar-tree:9"},
		{"experiment"},
		{"experiment", "thesis", "--games", "3"},
	} {
		if _, _, code := runCmd(t, bad...); code != 2 {
			t.Errorf("%v: exit %d, want 2", bad, code)
		}
	}
}

func TestExperimentCommand(t *testing.T) {
	md := filepath.Join(t.TempDir(), "pekar.md")
	if _, errs, code := runCmd(t, "experiment", "pekar", "--games", "2", "--opponent", "greedy", "--out", md); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	b, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Rules pekar; 2 games a pairing", "| pekar-tree:4 | Player 1 | Player 1 |", "| pekar-tree:4 | pekar-tree:3 |"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("experiment output lacks %q:\n%s", want, b)
		}
	}
	out, errs, code := runCmd(t, "experiment", "thesis", "--games", "2", "--time", "5ms")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"| Minimax, simple |", "| Knowledge-based alpha-beta, knowledge-based |", "| 5 | 42 | 11 % |"} {
		if !strings.Contains(out, want) {
			t.Errorf("thesis output lacks %q:\n%s", want, out)
		}
	}
}
