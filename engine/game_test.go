package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"kalah"
	"kalah/egdb"
)

// TestAnalyzeRecordedGames analyses the recorded Kalah(6,4) games of
// testdata/games (OpenSpiel's playthrough, a draw of 61 plies; the engine
// at 200 ms a move against alpha-beta; Pekař's tree search against
// alpha-beta after the opening house 1) and checks every position's value
// against the solver, an engine of its own searching without books, and
// that a second analysis says the same. By default it analyses each game
// from its twentieth ply (a few seconds) with a 14-seed database built in
// memory; KALAH_LONG=1 analyses the whole games with the perfect player's
// database (KALAH_EGDB_DIR's, or built) and logs the time of each, which
// docs/PERFORMANCE.md records from kalah analyze --game.
func TestAnalyzeRecordedGames(t *testing.T) {
	files, err := filepath.Glob("testdata/games/*.txt")
	if err != nil || len(files) != 3 {
		t.Fatalf("want three recorded games: %v %v", files, err)
	}
	long := os.Getenv("KALAH_LONG") != ""
	r := kalah.Standard()
	var db *egdb.DB
	from := 20
	if long {
		_, db = testDB(t, r, PerfectDBSeeds)
		from = 0
	} else if db, err = egdb.Build(context.Background(), r, 14, egdb.BuildOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			g, moves := recordedGame(t, file)
			moves = moves[from:]
			start := g.PositionAt(from)
			var runs [2][]PlyValue
			for i := range runs {
				e, err := New(r, Options{TableMB: 256, Threads: 2, DB: db})
				if err != nil {
					t.Fatal(err)
				}
				t0 := time.Now()
				if runs[i], err = e.AnalyzeGame(context.Background(), start, moves, 0); err != nil {
					t.Fatal(err)
				}
				var nodes uint64
				for _, v := range runs[i] {
					nodes += v.Nodes
				}
				t.Logf("analysis %d from ply %d: %d positions, %d nodes, %v", i+1, from, len(runs[i]), nodes, time.Since(t0).Round(time.Millisecond))
			}
			solver, err := New(r, Options{TableMB: 512, Threads: 2, DB: db, NoBook: true})
			if err != nil {
				t.Fatal(err)
			}
			for i, v := range runs[0] {
				w := runs[1][i]
				if v.Value != w.Value || v.Best != w.Best || v.Exact != w.Exact || v.PlayedValue != w.PlayedValue {
					t.Errorf("ply %d: %+v, then %+v", from+i, v, w)
				}
				p := g.PositionAt(from + i)
				if p.Over(&r) {
					continue
				}
				res, err := solver.Solve(context.Background(), p)
				if err != nil {
					t.Fatal(err)
				}
				if !v.Exact || v.Value != res.Value {
					t.Errorf("ply %d, %s: analysis %+v; solver %+d", from+i, p, v, res.Value)
				}
			}
		})
	}
}

// TestAnalyzeGameWithinDeadline: a whole game of Kalah(6,4) from its start
// without a database, given half a second a position but a deadline of 2 s
// in all, answers about the deadline with estimates where it ran out,
// never with the deadline's error.
func TestAnalyzeGameWithinDeadline(t *testing.T) {
	g, moves := recordedGame(t, "testdata/games/openspiel.txt")
	e, err := New(kalah.Standard(), Options{TableMB: 16, NoBook: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	t0 := time.Now()
	vals, err := e.AnalyzeGame(ctx, g.PositionAt(0), moves, 500*time.Millisecond)
	if err != nil {
		t.Fatalf("after %v: %v", time.Since(t0), err)
	}
	if took := time.Since(t0); took > 2500*time.Millisecond {
		t.Errorf("took %v, well past the deadline", took) // a search's last iteration may overrun a little
	}
	if vals[0].Exact || !vals[len(vals)-1].Exact {
		t.Errorf("the start exact %v, the end exact %v", vals[0].Exact, vals[len(vals)-1].Exact)
	}
}

// TestAnalyzeGamePastDeadline: on a machine too slow or too busy for the
// deadline, every position still gets a value (a shallow estimate, with
// its depth), not an error; a cancelled analysis (its reader gone) ends
// with the cancellation.
func TestAnalyzeGamePastDeadline(t *testing.T) {
	g, moves := recordedGame(t, "testdata/games/openspiel.txt")
	e, err := New(kalah.Standard(), Options{TableMB: 16, NoBook: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	vals, err := e.AnalyzeGame(ctx, g.PositionAt(0), moves, 500*time.Millisecond)
	if err != nil {
		t.Fatalf("past its deadline: %v", err)
	}
	for i, v := range vals {
		if !v.Exact && v.Depth < 1 {
			t.Errorf("position %d: %+v, neither exact nor an estimate of some depth", i, v)
		}
	}
	ctx, cancel = context.WithCancel(context.Background())
	cancel()
	if _, err := e.AnalyzeGame(ctx, g.PositionAt(0), moves, 500*time.Millisecond); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// recordedGame reads a recorded game (testdata/games) and its moves.
func recordedGame(t *testing.T, path string) (*kalah.Game, []kalah.Move) {
	t.Helper()
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	g, err := kalah.ParseGame(string(text))
	if err != nil {
		t.Fatal(err)
	}
	var moves []kalah.Move
	for _, m := range g.Moves() {
		moves = append(moves, m.Move)
	}
	return g, moves
}
