package web

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"kalah"
	"kalah/egdb"
	"kalah/engine"
)

func TestEngineMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	a := &Engine{}
	for _, name := range []string{"kalah", "egyptian", "dec1961"} {
		r, _ := kalah.PresetRules(name)
		for i := 0; i < 15; i++ {
			p := randomEndgame(rng, r, 4+rng.IntN(6))
			an, err := a.Analyze(context.Background(), r, p, 2*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			if an.Source != "engine" || len(an.Moves) != len(p.Moves()) {
				t.Fatalf("%s: %+v", p, an)
			}
			for _, mv := range an.Moves {
				if want := moveValue(&r, p, mv.Move); !mv.Exact || mv.Value != want {
					t.Errorf("%s %s move %s: got %d exact=%v, want %d", name, p, mv.Move, mv.Value, mv.Exact, want)
				}
			}
		}
	}
	// From the start, without the opening book, it estimates, with a depth.
	r := kalah.Standard()
	an, err := (&Engine{Options: engine.Options{NoBook: true}}).Analyze(context.Background(), r, r.Start(), 100*time.Millisecond)
	if err != nil || len(an.Moves) != 6 {
		t.Fatalf("start: %v %+v", err, an)
	}
	if an.Moves[0].Exact || an.Moves[0].Depth == 0 {
		t.Errorf("start move proven in 100ms? %+v", an.Moves[0])
	}
}

// TestEngineAnswersFromBook: the page's analysis (and so its hints) of a
// position in the embedded opening book is the book's: every move exact,
// the source said, well within a budget far too short to solve it.
func TestEngineAnswersFromBook(t *testing.T) {
	a := &Engine{EgdbDir: "-"}
	for _, seeds := range []int{3, 4} {
		r := kalah.Standard()
		r.Seeds = seeds
		p := r.Start()
		p.Play(&r, 1) // one ply in: North to move
		start := time.Now()
		an, err := a.Analyze(context.Background(), r, p, time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		if an.Source != "opening book" || len(an.Moves) != 6 || an.Nodes != 0 {
			t.Fatalf("%s %s: %+v", r, p, an)
		}
		for _, mv := range an.Moves {
			if !mv.Exact || mv.Depth != 0 {
				t.Errorf("%s %s: move %s not exact: %+v", r, p, mv.Move, mv)
			}
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("%s: the book's answer took %v", r, d)
		}
		g, err := kalah.NewGame(r)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := g.Play(1); err != nil {
			t.Fatal(err)
		}
		m, err := Hint(context.Background(), a, g, time.Millisecond)
		if err != nil || m != an.Best() {
			t.Errorf("%s: hint %s (%v), the book's best %s", r, m, err, an.Best())
		}
	}
}

func TestEngineUsesEndgameDatabase(t *testing.T) {
	r := kalah.Standard()
	db, err := egdb.Build(context.Background(), r, 6, egdb.BuildOptions{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := db.WriteFile(filepath.Join(dir, egdb.FileName(r, 6))); err != nil {
		t.Fatal(err)
	}
	a := &Engine{EgdbDir: dir}
	rng := rand.New(rand.NewPCG(9, 9))
	for range 10 {
		p := randomEndgame(rng, r, 3+rng.IntN(6))
		an, err := a.Analyze(context.Background(), r, p, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if an.Source != "engine with the endgame database of 6 seeds" {
			t.Fatalf("source %q", an.Source)
		}
		for _, mv := range an.Moves {
			if want := moveValue(&r, p, mv.Move); !mv.Exact || mv.Value != want {
				t.Errorf("%s move %s: got %d exact=%v, want %d", p, mv.Move, mv.Value, mv.Exact, want)
			}
		}
	}
	// Without a database for the rules, none is claimed.
	an, _ := (&Engine{EgdbDir: dir}).Analyze(context.Background(), kalah.Rules{Houses: 4, Seeds: 3}, kalah.Rules{Houses: 4, Seeds: 3}.Start(), 2*time.Second)
	if an.Source != "engine" {
		t.Errorf("source %q", an.Source)
	}
}

// TestEngineTakesALargerDatabase: a database built while the server runs
// (kalah egdb build, or the perfect player's on first use) is probed by
// the variant's engines once they look again (Recheck), not only after a
// restart; until they look, they keep the one they have.
func TestEngineTakesALargerDatabase(t *testing.T) {
	r := kalah.Standard()
	dir := t.TempDir()
	a := &Engine{EgdbDir: dir, Recheck: time.Hour}
	p := randomEndgame(rand.New(rand.NewPCG(3, 3)), r, 8)
	source := func() string { t.Helper(); return analysisSource(t, a, r, p) }
	if got := source(); got != "engine" {
		t.Fatalf("with no database: source %q", got)
	}
	for _, k := range []int{4, 6} {
		db, err := egdb.Build(context.Background(), r, k, egdb.BuildOptions{Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		if err := db.WriteFile(filepath.Join(dir, egdb.FileName(r, k))); err != nil {
			t.Fatal(err)
		}
		if got := source(); got != "engine" && k == 4 {
			t.Errorf("before the engines look again: source %q", got)
		}
		a.Recheck = -1 // every request from now on
		if got, want := source(), fmt.Sprintf("engine with the endgame database of %d seeds", k); got != want {
			t.Errorf("after the %d-seed database was built: source %q, want %q", k, got, want)
		}
	}
}

// TestEngineTakesTheFirstUseDatabase: the analysis engines take the
// perfect player's database built on first use in the process (or its
// bridge) as they take a larger file, a file of more seeds before it, and
// nothing of the wrong rules.
func TestEngineTakesTheFirstUseDatabase(t *testing.T) {
	r := kalah.Standard()
	dir := t.TempDir()
	build := func(r kalah.Rules, k int) *egdb.DB {
		t.Helper()
		db, err := egdb.Build(context.Background(), r, k, egdb.BuildOptions{Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		return db
	}
	var mu sync.Mutex
	var fu *egdb.DB
	a := &Engine{EgdbDir: dir, Recheck: -1, FirstUse: func(kalah.Rules) *egdb.DB {
		mu.Lock()
		defer mu.Unlock()
		return fu
	}}
	set := func(db *egdb.DB) {
		mu.Lock()
		defer mu.Unlock()
		fu = db
	}
	p := randomEndgame(rand.New(rand.NewPCG(4, 4)), r, 8)
	source := func() string { t.Helper(); return analysisSource(t, a, r, p) }
	if got := source(); got != "engine" {
		t.Fatalf("with no database: source %q", got)
	}
	ecap := r
	ecap.EmptyCapture = true
	set(build(ecap, 6))
	if got := source(); got != "engine" {
		t.Errorf("another variant's database taken: source %q", got)
	}
	set(build(r, 4))
	if got, want := source(), "engine with the endgame database of 4 seeds"; got != want {
		t.Errorf("with the bridge: source %q, want %q", got, want)
	}
	if err := build(r, 5).WriteFile(filepath.Join(dir, egdb.FileName(r, 5))); err != nil {
		t.Fatal(err)
	}
	if got, want := source(), "engine with the endgame database of 5 seeds"; got != want {
		t.Errorf("with a larger file: source %q, want %q", got, want)
	}
	set(build(r, 6))
	if got, want := source(), "engine with the endgame database of 6 seeds"; got != want {
		t.Errorf("once built: source %q, want %q", got, want)
	}
}

// analysisSource returns what a's analysis of p says it came from.
func analysisSource(t *testing.T, a *Engine, r kalah.Rules, p kalah.Position) string {
	t.Helper()
	an, err := a.Analyze(context.Background(), r, p, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	return an.Source
}

// TestEngineAnalysisStartsTheFirstUseBuild: with builds on first use on
// (kalah serve), an Engine made builds nothing; the first analysis asked
// starts the perfect player's database build, as a game against perfect
// would; stopped (a server shutting down), it leaves no lock file.
func TestEngineAnalysisStartsTheFirstUseBuild(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("KALAH_EGDB_DIR", dir)
	started := make(chan engine.DBBuild, 100)
	engine.BuildDBOnFirstUse(func(b engine.DBBuild) { started <- b })
	defer engine.BuildDBOnFirstUse(nil)
	defer engine.StopDBBuilds(context.Background())
	r := kalah.Standard()
	a := &Engine{}
	if now := engine.DBBuilds(); len(now) != 0 {
		t.Fatalf("a build before any analysis: %+v", now)
	}
	p := randomEndgame(rand.New(rand.NewPCG(4, 4)), r, 8)
	if _, err := a.Analyze(context.Background(), r, p, 100*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	select {
	case b := <-started:
		if b.Finished || b.Seeds != engine.PerfectDBSeeds {
			t.Errorf("the first report %+v", b)
		}
	case <-time.After(time.Minute):
		t.Fatal("an analysis started no build")
	}
	if err := engine.StopDBBuilds(context.Background()); err != nil {
		t.Fatal(err)
	}
	if locks, _ := filepath.Glob(filepath.Join(dir, "*.lock")); len(locks) != 0 {
		t.Errorf("the stopped build left %v", locks)
	}
}
