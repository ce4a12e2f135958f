package engine

import (
	"context"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"kalah"
	"kalah/egdb"
)

// BenchmarkSolve63 solves Kalah(6,3) from the start on one thread, without
// a database.
func BenchmarkSolve63(b *testing.B) {
	t := benchTuning()
	r := kalah.Standard()
	r.Seeds = 3
	for b.Loop() {
		e, _ := New(r, Options{TableMB: 64, Threads: 1, MaxDepth: envInt("MAXD", 0), NoBook: true, Tuning: &t, Debug: benchDebug()})
		res, err := e.Solve(context.Background(), r.Start())
		if err != nil || res.Value != 2 {
			b.Fatalf("%+v %v", res, err)
		}
		b.ReportMetric(float64(res.Nodes), "nodes")
	}
}

// envInt returns the environment variable name as a number, or def.
func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil {
		return v
	}
	return def
}

// BenchmarkSolveFromNothing solves Kalah(6,S) from the start as `kalah
// solve` does on a machine with no database: it builds a K-seed database in
// memory (KALAH_BENCH_BUILD=K; skipped unless set), then searches with a
// fresh table of KALAH_BENCH_TT MiB (default 256) on KALAH_BENCH_THREADS
// threads (default 2). S is KALAH_BENCH_SEEDS (default 4; 5 with K = 24 and
// an 8192 MiB table is the Kalah(6,5) target). It reports the build's and
// the search's seconds and the nodes, and checks the published value.
func BenchmarkSolveFromNothing(b *testing.B) {
	t := benchTuning()
	k := envInt("KALAH_BENCH_BUILD", -1)
	if k < 0 {
		b.Skip("set KALAH_BENCH_BUILD to the seeds of the endgame database to build (16 for Kalah(6,4))")
	}
	r := kalah.Standard()
	r.Seeds = envInt("KALAH_BENCH_SEEDS", 4)
	want := map[int]int{3: 2, 4: 8, 5: 10}[r.Seeds]
	for b.Loop() {
		t0 := time.Now()
		db, err := egdb.Build(context.Background(), r, k, egdb.BuildOptions{})
		if err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		e, err := New(r, Options{TableMB: envInt("KALAH_BENCH_TT", 256), Threads: envInt("KALAH_BENCH_THREADS", 2), DB: db, MaxDepth: envInt("MAXD", 0), NoBook: true, Tuning: &t, Debug: benchDebug()})
		if err != nil {
			b.Fatal(err)
		}
		res, err := e.Solve(context.Background(), r.Start())
		if err != nil {
			b.Fatal(err)
		}
		if want != 0 && res.Value != want {
			b.Fatalf("Kalah(6,%d): value %d, want %d", r.Seeds, res.Value, want)
		}
		b.ReportMetric(t1.Sub(t0).Seconds(), "build-s")
		b.ReportMetric(time.Since(t1).Seconds(), "search-s")
		b.ReportMetric(float64(res.Nodes), "nodes")
		db.Close()
	}
}

// BenchmarkSolve64DB solves Kalah(6,4) after the first plies of its
// principal variation (KALAH_BENCH_PLIES, default 6) on one thread, probing
// the endgame database file named by KALAH_BENCH_EGDB (skipped if unset).
// KALAH_BENCH_EMPTY=1 plays the empty capture (its database; the plies are
// then those of the standard game's PV, a test position, not its PV).
// KALAH_BENCH_SEEDS=5 with KALAH_BENCH_PV (moves, comma-separated) solves
// Kalah(6,5) after the first plies of those moves (the database then of
// that board). KALAH_BENCH_THREADS and KALAH_BENCH_TT (MiB) change the threads (1) and
// the table (512). benchTuning lists the switches of the engine's
// features, to compare; EGDB_MAP=1 maps the database file rather than
// loading it.
func BenchmarkSolve64DB(b *testing.B) {
	path := os.Getenv("KALAH_BENCH_EGDB")
	if path == "" {
		b.Skip("set KALAH_BENCH_EGDB to an endgame database file of Kalah(6,4)")
	}
	t := benchTuning()
	plies := 6
	if v := os.Getenv("KALAH_BENCH_PLIES"); v != "" {
		plies, _ = strconv.Atoi(v)
	}
	// Loaded into memory as kalah solve does; EGDB_MAP=1 maps the file
	// instead, to compare.
	load := egdb.Load
	if os.Getenv("EGDB_MAP") == "1" {
		load = func(path string) (*egdb.DB, error) { return egdb.Open(path, false) }
	}
	db, err := load(path)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	r := kalah.Standard()
	r.EmptyCapture = os.Getenv("KALAH_BENCH_EMPTY") == "1"
	pv := []int{3, 6, 2, 1, 5, 5, 6, 2, 6, 5, 4, 1}
	if n := envInt("KALAH_BENCH_SEEDS", 4); n != 4 {
		// Another board (Kalah(6,5): its principal variation, or the
		// moves of KALAH_BENCH_PV).
		r.Seeds, pv = n, nil
		for _, f := range strings.Split(os.Getenv("KALAH_BENCH_PV"), ",") {
			if m, err := strconv.Atoi(f); err == nil {
				pv = append(pv, m)
			}
		}
		plies = min(plies, len(pv))
	}
	p := r.Start()
	for _, m := range pv[:plies] {
		p.Play(&r, m)
	}
	e, err := New(r, Options{TableMB: envInt("KALAH_BENCH_TT", 512), Threads: envInt("KALAH_BENCH_THREADS", 1), DB: db, MaxDepth: envInt("MAXD", 0), NoBook: true, Tuning: &t, Debug: benchDebug()})
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

// BenchmarkSolveRandom64DB solves ten positions of Kalah(6,4), each 3 to
// 8 random plies from the start (the same ten every run), on one thread
// with a fresh 256 MiB table each and the endgame database
// KALAH_BENCH_EGDB (KALAH_BENCH_EMPTY=1: empty capture), with
// benchTuning's switches; it reports the nodes of all ten. A change of
// move order measured on the principal variation alone may fit that line:
// these are other lines.
func BenchmarkSolveRandom64DB(b *testing.B) {
	path := os.Getenv("KALAH_BENCH_EGDB")
	if path == "" {
		b.Skip("set KALAH_BENCH_EGDB to an endgame database file of Kalah(6,4)")
	}
	db, err := egdb.Load(path)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	r := kalah.Standard()
	r.EmptyCapture = os.Getenv("KALAH_BENCH_EMPTY") == "1"
	rng := rand.New(rand.NewPCG(5, 6))
	var positions []kalah.Position
	for range 10 {
		p := r.Start()
		plies := 3 + rng.IntN(6)
		for j := 0; j < plies && !p.Over(&r); j++ {
			ms := p.Moves()
			p.Play(&r, int(ms[rng.IntN(len(ms))]))
		}
		positions = append(positions, p)
	}
	t := benchTuning()
	for b.Loop() {
		var nodes uint64
		for _, p := range positions {
			e, err := New(r, Options{TableMB: 256, Threads: 1, DB: db, NoBook: true, Tuning: &t})
			if err != nil {
				b.Fatal(err)
			}
			res, err := e.Solve(context.Background(), p)
			if err != nil {
				b.Fatal(err)
			}
			nodes += res.Nodes
		}
		b.ReportMetric(float64(nodes), "nodes")
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
			e, _ := New(p.rules, Options{TableMB: 1024, DB: db, MaxDepth: envInt("MAXD", 0), NoBook: true}) // the search under test
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

// benchTuning returns the default tuning changed by the environment, to
// compare a search with and without a change: TT_MIN, ETC_MIN, TT_MARGIN,
// ETC_MARGIN, BUSY_MIN, BUSY_MARGIN, EXPOSURE_MIN and EXPOSURE_MARGIN set
// those thresholds, PREFETCH=0,
// LAZY=0, DBKIDS=0, ALLAHEAD=0, EXPOSURE=0, LEAF=0, SPLIT=0, NODETYPES=0,
// LATEPROBE=0 and FEWEST=0 turn those features off. Each benchmark
// passes its own copy to its engines (Options.Tuning).
func benchTuning() Tuning {
	t := DefaultTuning()
	for name, p := range map[string]*int{"TT_MIN": &t.TTMinSeeds, "ETC_MIN": &t.ETCMinSeeds, "TT_MARGIN": &t.DBTTMargin,
		"ETC_MARGIN": &t.DBETCMargin, "BUSY_MIN": &t.BusyMinSeeds, "BUSY_MARGIN": &t.DBBusyMargin,
		"EXPOSURE_MIN": &t.ExposureMinSeeds, "EXPOSURE_MARGIN": &t.DBExposureMargin} {
		*p = envInt(name, *p)
	}
	for name, p := range map[string]*bool{"PREFETCH": &t.Prefetch, "LAZY": &t.Lazy, "DBKIDS": &t.DBChildren, "ALLAHEAD": &t.AllAhead, "EXPOSURE": &t.Exposure, "LEAF": &t.Leaf, "SPLIT": &t.Split, "NODETYPES": &t.NodeTypes, "LATEPROBE": &t.ProbeLate, "FEWEST": &t.FewestAway} {
		if os.Getenv(name) == "0" {
			*p = false
		}
	}
	return t
}

// benchDebug returns where the engine traces its passes: standard error
// with KALAH_ENGINE_DEBUG=1, as kalah solve does.
func benchDebug() io.Writer {
	if os.Getenv("KALAH_ENGINE_DEBUG") != "" {
		return os.Stderr
	}
	return nil
}
