package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"kalah"
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
		egdbSeeds: fs.Int("egdb-seeds", 0, "probe the default database of up to K seeds, building it first if missing (0: none)"),
		ttMB:      fs.Int("tt-mb", 1024, "transposition table size in MiB"),
		threads:   fs.Int("threads", 2, "search threads"),
		idDepth:   fs.Int("id-depth", 0, "depth-limited iterations before the exact search, for move ordering (0: the engine's default)"),
	}
}

// setup returns the position and an engine for the flags.
func (f *engineFlags) setup(ctx context.Context, e *env, r kalah.Rules) (kalah.Position, *engine.Engine, func(), error) {
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
	if *f.ttMB < 1 || *f.threads < 1 {
		return p, nil, nil, usagef("--tt-mb and --threads must be at least 1")
	}
	start := time.Now()
	db, err := loadDB(ctx, e, r, *f.egdbFile, *f.egdbSeeds)
	if err != nil {
		return p, nil, nil, err
	}
	closeDB := func() {}
	if db != nil {
		closeDB = func() { db.Close() }
		e.log.Info("endgame database ready", "seeds", db.Seeds(), "entries", db.Entries(), "time", time.Since(start).Round(time.Millisecond))
	}
	eng, err := engine.New(r, engine.Options{TableMB: *f.ttMB, Threads: *f.threads, DB: db, MaxDepth: *f.idDepth})
	if err != nil {
		closeDB()
		return p, nil, nil, err
	}
	return p, eng, closeDB, nil
}

func runSolve(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "solve", "[--position P] [--json] [--egdb FILE|--egdb-seeds K] [--tt-mb N] [--threads N]",
		"Solves a position exactly: the value for the side to move (the final store\ndifference it can force, less the current one), every optimal move, a\nprincipal variation, and the nodes and time spent.")
	rf := addRulesFlags(fs)
	ef := addEngineFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	r, err := rf.rules()
	if err != nil {
		return err
	}
	p, eng, closeDB, err := ef.setup(ctx, e, r)
	if err != nil {
		return err
	}
	defer closeDB()
	res, err := eng.Solve(ctx, p)
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
		}{r, p.String(), p.ToMove(), res.Value, res.Value + diff(p), res.Best, res.PV, res.Nodes, float64(res.Time.Microseconds()) / 1000}
		enc := json.NewEncoder(e.stdout)
		return enc.Encode(out)
	}
	fmt.Fprintf(e.stdout, "rules:    %s\nposition: %s\nvalue:    %+d for %s (final store difference %+d)\nbest:     %s\npv:       %s\nnodes:    %d\ntime:     %v (%.0f nodes/s)\n",
		r, p, res.Value, p.ToMove(), res.Value+diff(p), moves(res.Best), moves(res.PV), res.Nodes, res.Time.Round(time.Millisecond), nps)
	return nil
}

func diff(p kalah.Position) int { return p.Store(p.ToMove()) - p.Store(p.ToMove().Other()) }

func moves(ms []kalah.Move) string {
	s := make([]string, len(ms))
	for i, m := range ms {
		s[i] = m.String()
	}
	return strings.Join(s, " ")
}
