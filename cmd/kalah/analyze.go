package main

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"kalah"
	"kalah/engine"
)

func init() {
	register(&command{name: "analyze", summary: "value every legal move of a position, exactly or within a time limit", run: runAnalyze})
}

func runAnalyze(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "analyze", "[--position P] [--time D] [--json] [--egdb FILE|--egdb-seeds K]",
		"Values every legal move for the side to move: exact values (the final store\ndifference it can force after the move, less the current one), or with --time\nthe best estimates within the limit and the depth of each.")
	rf := addRulesFlags(fs)
	ef := addEngineFlags(fs)
	limit := fs.Duration("time", 0, "time limit (0: solve exactly)")
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
	start := time.Now()
	vals, err := eng.Analyze(ctx, p, *limit)
	if err != nil {
		return err
	}
	if *ef.jsonOut {
		out := struct {
			Rules    kalah.Rules        `json:"rules"`
			Position string             `json:"position"`
			ToMove   kalah.Side         `json:"to_move"`
			Moves    []engine.MoveValue `json:"moves"`
			TimeMS   float64            `json:"time_ms"`
		}{r, p.String(), p.ToMove(), vals, float64(time.Since(start).Microseconds()) / 1000}
		if out.Moves == nil {
			out.Moves = []engine.MoveValue{}
		}
		return json.NewEncoder(e.stdout).Encode(out)
	}
	fmt.Fprintf(e.stdout, "rules:    %s\nposition: %s\n", r, p)
	if len(vals) == 0 {
		fmt.Fprintln(e.stdout, "the game is over")
		return nil
	}
	for _, v := range vals {
		kind := "exact"
		if !v.Exact {
			kind = fmt.Sprintf("depth %d", v.Depth)
		}
		fmt.Fprintf(e.stdout, "move %-5s %+4d  (%s)\n", v.Move, v.Value, kind)
	}
	fmt.Fprintf(e.stdout, "time:     %v\n", time.Since(start).Round(time.Millisecond))
	return nil
}
