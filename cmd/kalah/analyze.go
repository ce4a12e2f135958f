package main

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
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
	if *limit < 0 || *limit > 7*24*time.Hour {
		return usagef("--time %v: want 0 (solve exactly) or a positive duration up to a week", *limit)
	}
	r, err := rf.rules()
	if err != nil {
		return err
	}
	ef.analyze = true
	st := newStatus(e, "analyzing")
	p, eng, closeDB, err := ef.setup(ctx, e, r, st)
	if err != nil {
		return err
	}
	defer closeDB()
	start := time.Now()
	vals, err := eng.Analyze(ctx, p, *limit)
	st.done()
	if err != nil {
		return err
	}
	// Best first; equal values in house order.
	sort.SliceStable(vals, func(i, j int) bool { return vals[i].Value > vals[j].Value })
	if *ef.jsonOut {
		out := struct {
			Rules    kalah.Rules        `json:"rules"`
			Position string             `json:"position"`
			ToMove   kalah.Side         `json:"to_move"`
			Moves    []engine.MoveValue `json:"moves"`
			TimeMS   float64            `json:"time_ms"`
			Verdict  string             `json:"verdict,omitempty"`
		}{r, p.String(), p.ToMove(), vals, float64(time.Since(start).Microseconds()) / 1000, analyzeVerdict(p, vals)}
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
	for i, v := range vals {
		kind := "exact"
		if !v.Exact {
			kind = fmt.Sprintf("estimate, depth %d", v.Depth)
		}
		mark := ""
		if v.Value == vals[0].Value {
			mark = "  <- best"
			if i > 0 || len(vals) > 1 && vals[1].Value == v.Value {
				mark = "  <- best (equal)"
			}
		}
		what := outcome(p, v.Value+diff(p))
		if !v.Exact {
			what = estimate(p, v.Value+diff(p))
		}
		fmt.Fprintln(e.stdout, strings.TrimRight(fmt.Sprintf("move %-5s %+4d  %-44s%s", v.Move, v.Value, "("+kind+": "+what+")", mark), " "))
	}
	fmt.Fprintf(e.stdout, "verdict:  %s\n", analyzeVerdict(p, vals))
	if vals[0].Book {
		fmt.Fprintln(e.stdout, "source:   the built-in opening book (--no-book to search)")
		fmt.Fprintf(e.stdout, "time:     %v\n", time.Since(start).Round(time.Microsecond))
		return nil
	}
	fmt.Fprintf(e.stdout, "time:     %v\n", time.Since(start).Round(time.Millisecond))
	return nil
}

// analyzeVerdict sums up the values of every move (best first) in words,
// exact or estimated.
func analyzeVerdict(p kalah.Position, vals []engine.MoveValue) string {
	if len(vals) == 0 {
		return ""
	}
	exact := true
	for _, v := range vals {
		exact = exact && v.Exact
	}
	best := vals[0]
	final := best.Value + diff(p)
	if !exact {
		return fmt.Sprintf("an estimate, not proven: %s with the best move found, %s (searched %d plies deep)", estimate(p, final), best.Move, best.Depth)
	}
	var winning []kalah.Move
	for _, v := range vals {
		if v.Value+diff(p) > 0 {
			winning = append(winning, v.Move)
		}
	}
	v := outcome(p, final) + " with best play"
	switch {
	case len(winning) == 1:
		v += "; the only winning move is " + winning[0].String()
	case len(winning) > 1:
		v += fmt.Sprintf("; %d moves win (%s), the best is %s", len(winning), list(winning), best.Move)
	case final == 0:
		v += "; the best move, " + best.Move.String() + ", draws"
	default:
		v += "; every move loses, the best defence is " + best.Move.String()
	}
	return v
}

// estimate says in words where an estimated final store difference for
// the side to move of p leaves the game: "South ahead by about 4".
func estimate(p kalah.Position, final int) string {
	me := p.ToMove()
	switch {
	case final > 0:
		return fmt.Sprintf("%s ahead by about %d", me, final)
	case final < 0:
		return fmt.Sprintf("%s ahead by about %d", me.Other(), -final)
	}
	return "about level"
}
