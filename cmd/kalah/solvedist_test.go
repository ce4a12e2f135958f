package main

import (
	"context"
	"encoding/json"
	"testing"

	"kalah"
	"kalah/engine"
)

// TestSolveNATSCommand solves through the embedded NATS server with two
// workers, then again: the second run finds every result stored (and those
// of jobs that finished after the first had its answer) and searches
// nothing.
func TestSolveNATSCommand(t *testing.T) {
	data := t.TempDir()
	args := []string{"solve", "--data", data, "--houses", "5", "--seeds", "3", "--egdb-seeds", "0", "--tt-mb", "16",
		"--nats", "embedded", "--workers", "2", "--split-plies", "3", "--json"}
	type answer struct {
		Value  int        `json:"value"`
		Best   kalah.Move `json:"best"`
		Status struct {
			Known   int `json:"known"`
			Done    int `json:"done"`
			Resumed int `json:"resumed"`
		} `json:"status"`
	}
	var first, second answer
	for i, got := range []*answer{&first, &second} {
		out, errs, code := runCmd(t, args...)
		if code != 0 {
			t.Fatalf("run %d: exit %d: %s", i+1, code, errs)
		}
		if err := json.Unmarshal([]byte(out), got); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
	}
	r := kalah.Rules{Houses: 5, Seeds: 3}
	e, _ := engine.New(r, engine.Options{TableMB: 8})
	want, err := e.Solve(context.Background(), r.Start())
	if err != nil {
		t.Fatal(err)
	}
	if first.Value != want.Value || second.Value != want.Value {
		t.Errorf("values %+d and %+d, engine %+d", first.Value, second.Value, want.Value)
	}
	if first.Status.Done == 0 || second.Status.Done != 0 || second.Status.Resumed < first.Status.Known {
		t.Errorf("first run %+v, second %+v: the second should only read the first's results", first.Status, second.Status)
	}
}
