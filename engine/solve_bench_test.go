package engine

import (
	"context"
	"os"
	"slices"
	"strconv"
	"testing"

	"kalah"
	"kalah/egdb"
)

// BenchmarkSolve63 solves Kalah(6,3) from the start on one thread, without
// a database.
func BenchmarkSolve63(b *testing.B) {
	if v := os.Getenv("TT_MIN"); v != "" {
		ttMinSeeds, _ = strconv.Atoi(v)
	}
	if v := os.Getenv("ETC_MIN"); v != "" {
		etcMinSeeds, _ = strconv.Atoi(v)
	}
	r := kalah.Standard()
	r.Seeds = 3
	for b.Loop() {
		md, _ := strconv.Atoi(os.Getenv("MAXD"))
		e, _ := New(r, Options{TableMB: 64, Threads: 1, MaxDepth: md, NoBook: true})
		res, err := e.Solve(context.Background(), r.Start())
		if err != nil || res.Value != 2 {
			b.Fatalf("%+v %v", res, err)
		}
		b.ReportMetric(float64(res.Nodes), "nodes")
	}
}

// BenchmarkSolve64DB solves Kalah(6,4) after the first plies of its
// principal variation (KALAH_BENCH_PLIES, default 6) on one thread, probing
// the endgame database file named by KALAH_BENCH_EGDB (skipped if unset).
// TT_MARGIN and ETC_MARGIN override the seeds above the database's K at
// which the table and the enhanced transposition cut-off start.
func BenchmarkSolve64DB(b *testing.B) {
	path := os.Getenv("KALAH_BENCH_EGDB")
	if path == "" {
		b.Skip("set KALAH_BENCH_EGDB to an endgame database file of Kalah(6,4)")
	}
	if v := os.Getenv("TT_MARGIN"); v != "" {
		dbTTMargin, _ = strconv.Atoi(v)
	}
	if v := os.Getenv("ETC_MARGIN"); v != "" {
		dbETCMargin, _ = strconv.Atoi(v)
	}
	if os.Getenv("PREFETCH") == "0" {
		prefetchChildren = false
	}
	if os.Getenv("LAZY") == "0" {
		lazyChildren = false
	}
	plies := 6
	if v := os.Getenv("KALAH_BENCH_PLIES"); v != "" {
		plies, _ = strconv.Atoi(v)
	}
	db, err := egdb.Open(path, false)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	r := kalah.Standard()
	p := r.Start()
	for _, m := range []int{3, 6, 2, 1, 5, 5, 6, 2, 6, 5, 4, 1}[:plies] {
		p.Play(&r, m)
	}
	md, _ := strconv.Atoi(os.Getenv("MAXD"))
	e, err := New(r, Options{TableMB: 512, Threads: 1, DB: db, MaxDepth: md, NoBook: true})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		e.Clear()
		res, err := e.Solve(context.Background(), p)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(res.Nodes), "nodes")
	}
}

// published lists solved start values with their sources. Each takes
// minutes, so TestPublished runs only with KALAH_LONG=1; the small boards
// are checked against the brute force in TestSolveMatchesBrute instead.
var published = []struct {
	name   string
	rules  kalah.Rules
	value  int
	best   []kalah.Move // the optimal opening moves, where the source names them
	source string
}{
	{"Kalah(6,4)", kalah.Rules{Houses: 6, Seeds: 4}, 8, []kalah.Move{3},
		"Irving, Donkers and Uiterwijk (2000), Solving Kalah; Pekař et al. (2018) citing Rawlings (2015)"},
	{"Kalah(6,4) empty capture", kalah.Rules{Houses: 6, Seeds: 4, EmptyCapture: true}, 10, nil,
		"Rawlings (2015), quoted in Wikipedia's Kalah article: the 4-seed empty-capture game is a win by 10"},
}

func TestPublished(t *testing.T) {
	if os.Getenv("KALAH_LONG") == "" {
		t.Skip("set KALAH_LONG=1 to solve Kalah(6,4) (minutes each)")
	}
	for _, p := range published {
		t.Run(p.name, func(t *testing.T) {
			db, err := egdb.Build(context.Background(), p.rules, 16, egdb.BuildOptions{})
			if err != nil {
				t.Fatal(err)
			}
			e, _ := New(p.rules, Options{TableMB: 1024, DB: db, NoBook: true}) // the search under test
			res, err := e.Solve(context.Background(), p.rules.Start())
			if err != nil {
				t.Fatal(err)
			}
			if res.Value != p.value || (p.best != nil && !slices.Equal(res.Best, p.best)) {
				t.Fatalf("%s: value %d best %v, want %d best %v (%s)", p.name, res.Value, res.Best, p.value, p.best, p.source)
			}
			t.Logf("%s: %+d best %v pv %v, %d nodes in %v", p.name, res.Value, res.Best, res.PV, res.Nodes, res.Time)
		})
	}
}
