package web

import (
	"context"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"kalah"
	"kalah/egdb"
	"kalah/engine"
	"kalah/server"
)

// TestAnalyzeGameExact: the page's analysis of a recorded game of
// Kalah(6,4) (OpenSpiel's playthrough, from its twentieth ply, with a
// 14-seed database built here) gives every position's exact value, equal
// to the solver's (an engine of its own, without books), an optimal move
// for each, what each move played gave away, and the same answer twice.
func TestAnalyzeGameExact(t *testing.T) {
	text, err := os.ReadFile("../engine/testdata/games/openspiel.txt")
	if err != nil {
		t.Fatal(err)
	}
	rec, err := kalah.ParseGame(string(text))
	if err != nil {
		t.Fatal(err)
	}
	r := kalah.Standard()
	db, err := egdb.Build(context.Background(), r, 14, egdb.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	const from = 20
	start := rec.PositionAt(from)
	rest, err := kalah.NewGameFrom(r, start)
	if err != nil {
		t.Fatal(err)
	}
	var moves []string
	for _, m := range rec.Moves()[from:] {
		moves = append(moves, m.Move.String())
		if _, err := rest.Play(m.Move); err != nil {
			t.Fatal(err)
		}
	}
	srv, _ := newServerWith(t, server.Config{}, Options{
		Analyzer:    &Engine{Options: engine.Options{DB: db, TableMB: 64}},
		MaxAnalysis: time.Minute,
	})
	req := GameAnalysisRequest{Rules: r, Start: start.String(), Moves: rest.MoveText(), Millis: 60_000}
	var runs [2][]Ply
	for i := range runs {
		t0 := time.Now()
		if code := call(t, srv, "POST", Prefix+"analyze/game", req, &runs[i]); code != 200 {
			t.Fatalf("analysis %d: %d", i+1, code)
		}
		t.Logf("analysis %d: %d positions in %v", i+1, len(runs[i]), time.Since(t0).Round(time.Millisecond))
	}
	if diff := cmp.Diff(runs[0], runs[1]); diff != "" {
		t.Errorf("two analyses of one game differ (-first +second):\n%s", diff)
	}
	if len(runs[0]) != len(moves)+1 {
		t.Fatalf("%d plies for %d moves", len(runs[0]), len(moves))
	}
	solver, err := engine.New(r, engine.Options{TableMB: 128, DB: db, NoBook: true})
	if err != nil {
		t.Fatal(err)
	}
	for i, ply := range runs[0] {
		p := rec.PositionAt(from + i)
		if !ply.Exact {
			t.Errorf("ply %d (%s): an estimate (depth %d)", from+i, p, ply.Depth)
		}
		if p.Over(&r) {
			continue
		}
		res, err := solver.Solve(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		me := p.ToMove()
		want := p.Store(me) - p.Store(me.Other()) + res.Value
		if me == kalah.North {
			want = -want
		}
		if ply.Value != want {
			t.Errorf("ply %d (%s): value %+d, the solver's %+d", from+i, p, ply.Value, want)
		}
		if !slices.ContainsFunc(res.Best, func(m kalah.Move) bool { return m.String() == ply.Best }) {
			t.Errorf("ply %d (%s): best %s, the solver's %v", from+i, p, ply.Best, res.Best)
		}
		if i < len(moves) {
			next := runs[0][i+1].Value // the move played's value, from South
			lost := ply.Value - next
			if me == kalah.North {
				lost = -lost
			}
			if ply.Loss != lost || !ply.LossExact {
				t.Errorf("ply %d (%s): %s gave away %d (exact %v); the values say %d", from+i, p, ply.Move, ply.Loss, ply.LossExact, lost)
			}
		}
	}
}
