package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kalah"
	"kalah/engine"
)

func TestSolveCommand(t *testing.T) {
	out, errs, code := runCmd(t, "solve", "--houses", "4", "--seeds", "2", "--json", "--tt-mb", "8")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got struct {
		Value int          `json:"value"`
		Best  []kalah.Move `json:"best"`
		PV    []kalah.Move `json:"pv"`
		Nodes uint64       `json:"nodes"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	r := kalah.Rules{Houses: 4, Seeds: 2}
	e, _ := engine.New(r, engine.Options{TableMB: 8})
	want, err := e.Solve(context.Background(), r.Start())
	if err != nil {
		t.Fatal(err)
	}
	if got.Value != want.Value || len(got.Best) != len(want.Best) || len(got.PV) == 0 || got.Nodes == 0 {
		t.Errorf("solve --json %+v, engine %+v", got, want)
	}

	out, errs, code = runCmd(t, "solve", "--houses", "4", "--seeds", "2", "--position", "0,3,3,2/2,2,2,2 2-0 N")
	if code != 0 || !strings.Contains(out, "value:") || !strings.Contains(out, "for North") {
		t.Errorf("solve text: exit %d\n%s%s", code, out, errs)
	}
	if _, errs, code = runCmd(t, "solve", "--position", "1,2/3 0-0 S"); code != 2 {
		t.Errorf("bad position: exit %d: %s", code, errs)
	}
}

func TestAnalyzeCommand(t *testing.T) {
	out, errs, code := runCmd(t, "analyze", "--houses", "3", "--seeds", "3", "--json", "--tt-mb", "8")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got struct {
		Moves []engine.MoveValue `json:"moves"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil || len(got.Moves) != 3 {
		t.Fatalf("%v: %s", err, out)
	}
	for _, m := range got.Moves {
		if !m.Exact {
			t.Errorf("exact analysis gave %+v", m)
		}
	}
	out, errs, code = runCmd(t, "analyze", "--time", "50ms", "--tt-mb", "8")
	if code != 0 || strings.Count(out, "\nmove ") != 6 {
		t.Errorf("timed analysis: exit %d\n%s%s", code, out, errs)
	}
}

func TestEgdbCommand(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "db.egdb")
	if _, errs, code := runCmd(t, "egdb", "build", "--houses", "3", "--seeds", "8", "--out", file); code != 0 {
		t.Fatalf("build: exit %d: %s", code, errs)
	}
	out, errs, code := runCmd(t, "egdb", "verify", file)
	if code != 0 || !strings.Contains(out, "3 houses") || !strings.Contains(out, "up to 8 seeds") || !strings.Contains(out, "checksum ok") {
		t.Fatalf("verify: exit %d\n%s%s", code, out, errs)
	}
	// The database serves solve for matching rules and is refused for others.
	if out, errs, code := runCmd(t, "solve", "--houses", "3", "--seeds", "3", "--egdb", file, "--tt-mb", "8"); code != 0 {
		t.Errorf("solve with database: exit %d\n%s%s", code, out, errs)
	}
	if _, errs, code := runCmd(t, "solve", "--houses", "3", "--seeds", "3", "--empty-capture", "--egdb", file); code != 1 || !strings.Contains(errs, "other rules") {
		t.Errorf("mismatched rules: exit %d: %s", code, errs)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)-5] ^= 1
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errs, code := runCmd(t, "egdb", "verify", file); code != 1 || !strings.Contains(errs, "corrupt") {
		t.Errorf("corrupt file: exit %d: %s", code, errs)
	}
	if _, errs, code := runCmd(t, "egdb", "build", "--rules", "kgp", "--seeds", "4", "--out", file); code != 2 || !strings.Contains(errs, "early end") {
		t.Errorf("kgp: exit %d: %s", code, errs)
	}
}

func TestBenchCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("bench takes a few seconds")
	}
	out, errs, code := runCmd(t, "bench")
	if code != 0 || !strings.Contains(out, "signature: ") || !strings.Contains(out, "nodes/s: ") {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
}
