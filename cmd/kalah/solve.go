package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"kalah"
	"kalah/egdb"
	"kalah/engine"
)

func init() {
	register(&command{name: "solve", summary: "find the exact value, the optimal moves and a principal variation of a position", run: runSolve})
}

// engineFlags are the search flags shared by solve and analyze.
type engineFlags struct {
	position  *string
	jsonOut   *bool
	egdbFile  *string
	egdbSeeds *int
	ttMB      *int
	threads   *int
	idDepth   *int
	noBook    *bool
	// analyze: the caller wants every move's value (kalah analyze), which
	// a book has only before its last ply; else the value and an optimal
	// move will do.
	analyze bool
}

func addEngineFlags(fs interface {
	String(string, string, string) *string
	Bool(string, bool, string) *bool
	Int(string, int, string) *int
}) *engineFlags {
	return &engineFlags{
		position:  fs.String("position", "", "position to solve, e.g. \"4,4,4,4,4,4/4,4,4,4,4,4 0-0 S\" (default: the start)"),
		jsonOut:   fs.Bool("json", false, "print JSON"),
		egdbFile:  fs.String("egdb", "", "endgame database file to probe"),
		egdbSeeds: fs.Int("egdb-seeds", -1, "probe the default database of up to K seeds, building it first if missing (0: none; default: the largest one already built for these rules, else one of min(17, a third of all the seeds + 1) seeds (24 from 56 seeds), built the first time)"),
		ttMB:      fs.Int("tt-mb", 0, "transposition table size in MiB (0: 256 up to 48 seeds in all, where a larger table is slower for its cache misses, else 2048)"),
		threads:   fs.Int("threads", 2, "search threads"),
		idDepth:   fs.Int("id-depth", 0, "depth-limited iterations before the exact search, for move ordering (0: the engine's default)"),
		noBook:    fs.Bool("no-book", false, "search even where the built-in opening book knows the answer (for measuring the search)"),
	}
}

// setup returns the position and an engine for the flags; st, if not nil,
// shows the search's progress.
func (f *engineFlags) setup(ctx context.Context, e *env, r kalah.Rules, st *status) (kalah.Position, *engine.Engine, func(), error) {
	p := r.Start()
	if *f.position != "" {
		var err error
		if p, err = kalah.ParsePosition(*f.position); err != nil {
			return p, nil, nil, usageError{err}
		}
		if err := p.CheckRules(&r); err != nil {
			return p, nil, nil, usageError{err}
		}
	}
	switch {
	case *f.ttMB < 0 || *f.threads < 1:
		return p, nil, nil, usagef("--tt-mb must be at least 0 (the default size) and --threads at least 1")
	case *f.ttMB > 1<<20:
		return p, nil, nil, usagef("--tt-mb %d: at most %d (1 TiB)", *f.ttMB, 1<<20)
	case *f.threads > 256:
		return p, nil, nil, usagef("--threads %d: at most 256", *f.threads)
	case *f.egdbSeeds < -1 || *f.egdbSeeds > 40:
		return p, nil, nil, usagef("--egdb-seeds %d: want 0 (none) to 40", *f.egdbSeeds)
	case *f.idDepth < 0 || *f.idDepth > 64:
		return p, nil, nil, usagef("--id-depth %d: want 0 (the default) to 64", *f.idDepth)
	}
	start := time.Now()
	seeds := *f.egdbSeeds
	if seeds < 0 && *f.egdbFile == "" {
		seeds = autoSeeds(r, inHouses(p))
		if !*f.noBook && engine.BookAnswers(r, &p, f.analyze) {
			seeds = 0 // the book answers: no database to build or map
		}
	}
	db, err := loadDB(ctx, e, r, *f.egdbFile, max(seeds, 0))
	if err != nil {
		return p, nil, nil, err
	}
	closeDB := func() {}
	if db != nil {
		closeDB = func() { db.Close() }
		e.log.Info("endgame database ready", "seeds", db.Seeds(), "entries", db.Entries(), "time", time.Since(start).Round(time.Millisecond))
	}
	o := engine.Options{TableMB: autoTableMB(*f.ttMB, inHouses(p)), Threads: *f.threads, DB: db, MaxDepth: *f.idDepth, NoBook: *f.noBook}
	if os.Getenv("KALAH_ENGINE_DEBUG") != "" {
		o.Debug = e.stderr // every pass of every thread, for studying the search
	}
	if st != nil {
		o.Progress = searchProgress(st)
	}
	eng, err := engine.New(r, o)
	if err != nil {
		closeDB()
		return p, nil, nil, err
	}
	return p, eng, closeDB, nil
}

func runSolve(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "solve", "[--position P] [--json] [--egdb FILE|--egdb-seeds K] [--tt-mb N] [--threads N] [--nats embedded|URL [--workers N] [--listen-nats ADDR]]",
		"Solves a position exactly: the value for the side to move (the final store\ndifference it can force, less the current one), every optimal move, a\nprincipal variation, and the nodes and time spent.\n\nWith --nats the proof is split into jobs on NATS JetStream, run by workers\nin this process and by \"kalah worker --join\" on other machines; stopped,\nthe same command goes on without redoing finished jobs (docs/SCALING.md).")
	rf := addRulesFlags(fs)
	ef := addEngineFlags(fs)
	df := addSolveDistFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	r, err := rf.rules()
	if err != nil {
		return err
	}
	if df.nats != "" {
		return solveDistributed(ctx, e, r, ef, df)
	}
	st := newStatus(e, "solving")
	st.bounds = true
	p, eng, closeDB, err := ef.setup(ctx, e, r, st)
	if err != nil {
		return err
	}
	defer closeDB()
	res, err := eng.Solve(ctx, p)
	st.done()
	if err != nil {
		return err
	}
	nps := 0.0
	if res.Time > 0 {
		nps = float64(res.Nodes) / res.Time.Seconds()
	}
	if *ef.jsonOut {
		out := struct {
			Rules    kalah.Rules  `json:"rules"`
			Position string       `json:"position"`
			ToMove   kalah.Side   `json:"to_move"`
			Value    int          `json:"value"`
			Final    int          `json:"final"`
			Best     []kalah.Move `json:"best"`
			PV       []kalah.Move `json:"pv"`
			Nodes    uint64       `json:"nodes"`
			TimeMS   float64      `json:"time_ms"`
			Verdict  string       `json:"verdict"`
			Book     bool         `json:"book,omitempty"`
		}{r, p.String(), p.ToMove(), res.Value, res.Value + diff(p), res.Best, res.PV, res.Nodes, float64(res.Time.Microseconds()) / 1000, solveVerdict(p, res), res.Book}
		enc := json.NewEncoder(e.stdout)
		return enc.Encode(out)
	}
	fmt.Fprintf(e.stdout, "rules:    %s\nposition: %s\nverdict:  %s\nvalue:    %+d for %s: the final store difference it can force (%+d) less the present one (%+d)\nbest:     %s\npv:       %s\n",
		r, p, solveVerdict(p, res), res.Value, p.ToMove(), res.Value+diff(p), diff(p), moves(res.Best), moves(res.PV))
	if res.Book {
		fmt.Fprintf(e.stdout, "source:   the built-in opening book (the pv ends where the book does; --no-book to search)\ntime:     %v\n", res.Time.Round(time.Microsecond))
		return nil
	}
	fmt.Fprintf(e.stdout, "nodes:    %d\ntime:     %v (%.0f nodes/s)\n", res.Nodes, res.Time.Round(time.Millisecond), nps)
	return nil
}

// outcome says in words who wins, and by how many seeds, when the side to
// move of p ends with the final store difference final.
func outcome(p kalah.Position, final int) string {
	me := p.ToMove()
	switch {
	case final > 0:
		return fmt.Sprintf("%s wins by %d", me, final)
	case final < 0:
		return fmt.Sprintf("%s wins by %d", me.Other(), -final)
	}
	return "a draw"
}

// solveVerdict sums up an exact solution in words: "South wins by 8 with
// best play; the best move is 3".
func solveVerdict(p kalah.Position, res engine.Result) string {
	v := outcome(p, res.Value+diff(p)) + " with best play"
	switch {
	case len(res.Best) == 1:
		v += "; the only best move is " + res.Best[0].String()
	case len(res.Best) > 1:
		v += "; the best moves, equally good, are " + list(res.Best)
	}
	return v
}

// list writes moves as "2, 3 and 5".
func list(ms []kalah.Move) string {
	s := make([]string, len(ms))
	for i, m := range ms {
		s[i] = m.String()
	}
	if len(s) == 1 {
		return s[0]
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}

func diff(p kalah.Position) int { return p.Store(p.ToMove()) - p.Store(p.ToMove().Other()) }

func moves(ms []kalah.Move) string {
	s := make([]string, len(ms))
	for i, m := range ms {
		s[i] = m.String()
	}
	return strings.Join(s, " ")
}

// autoTableMB is the table a solve of a position of the given seeds uses:
// mb if given, else 256 MiB up to 48 seeds, where a larger table's cache
// and TLB misses cost more than the transpositions it keeps, and above
// that half the memory available, at least 2 GiB and at most maxAutoMB,
// which Kalah(6,5) needs to finish in minutes (docs/ENGINE.md,
// "Tuning").
func autoTableMB(mb, seeds int) int {
	switch {
	case mb > 0:
		return mb
	case seeds <= 48:
		return 256
	}
	avail, ok := availableMB()
	if !ok {
		return 2048
	}
	return min(max(avail/2, 2048), maxAutoMB)
}

// maxAutoMB is the largest table a solve chooses itself: 5.75 GiB, so that
// Kalah(6,5) with its 24-seed database (1.25 GB) stays within 8 GB
// resident (with 8 GiB it took 9.6 GB).
const maxAutoMB = 5888

// inHouses is the seeds in p's houses.
func inHouses(p kalah.Position) int { return p.Seeds(kalah.South) + p.Seeds(kalah.North) }

// availableMB reads the memory available to new work (Linux's
// MemAvailable), in MiB.
func availableMB() (int, bool) {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0, false
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, "MemAvailable:"); ok {
			f := strings.Fields(rest)
			if len(f) != 2 || f[1] != "kB" {
				return 0, false
			}
			kb, err := strconv.Atoi(f[0])
			return kb >> 10, err == nil
		}
	}
	return 0, false
}

// autoSeeds picks the endgame database a solve of a position of the given
// seeds (in all) uses when none is named: the largest already built for
// these rules, else one of min(17, a third of the seeds + 1) seeds, or 24
// from 56 seeds, or none where the rules have no databases. The size
// balances the build against the search it saves when solving from
// nothing: Kalah(6,4) is fastest with 17 under either capture (built in
// about 2 s), Kalah(6,5) with 24 (1.25 GB, built in about a minute);
// docs/ENGINE.md, "Tuning".
func autoSeeds(r kalah.Rules, seeds int) int {
	if egdb.Supported(r) != nil {
		return 0
	}
	if dir, err := egdb.DefaultDir(); err == nil {
		for k := 40; k >= 1; k-- {
			if _, err := os.Stat(filepath.Join(dir, egdb.FileName(r, k))); err == nil {
				return k
			}
		}
	}
	if seeds >= 56 {
		return 24
	}
	return min(17, seeds/3+1)
}
