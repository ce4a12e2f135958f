package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"kalah"
	"kalah/match"
	"kalah/player"
)

func init() {
	register(&command{name: "experiment", summary: "rerun the papers' experiments (thesis, pekar) and write Markdown tables", run: runExperiment})
}

func runExperiment(ctx context.Context, e *env, args []string) error {
	if len(args) == 0 || (args[0] != "thesis" && args[0] != "pekar" && args[0] != "-h" && args[0] != "--help") {
		return usagef("want \"kalah experiment thesis\" or \"kalah experiment pekar\" (-h for flags)")
	}
	design := args[0]
	if design == "-h" || design == "--help" {
		design = "thesis"
	} else {
		args = args[1:]
	}
	fs := newFlags(e, "experiment", "thesis|pekar [--time D] [--games N] [--out FILE] [--plot DIR]",
		"thesis: the Kalaha thesis's tournament: six AIs (minimax, alpha-beta and\n"+
			"knowledge-based alpha-beta, each with the simple and the knowledge utility),\n"+
			"12 games a pairing with forced openings on Kalah(6,6), each minimax AI against\n"+
			"each other AI (--all: every pair), under a per-move clock (the thesis: 30s).\n\n"+
			"pekar: Pekař's strategies (pekar, pekar-tree:1..4) on Kalah(6,4), each as first\n"+
			"and second player against --opponent (the paper's human), then each other.\n\n"+
			"Writes Markdown tables to --out (default stdout). --plot DIR writes the\n"+
			"figures as SVG into DIR, linked below the tables: thesis-wins.svg (Table 7\n"+
			"as win %, ours beside the thesis's) and thesis-depth.svg; pekar-wins.svg and\n"+
			"pekar-margins.svg (Table 1: wins and each game's margin as first and as\n"+
			"second player, ours beside the paper's) and pekar-time.svg.")
	defTime := 100 * time.Millisecond
	if design == "pekar" {
		defTime = 0
	}
	perMove := fs.Duration("time", defTime, "time a move for the searchers, enforced by the referee")
	grace := fs.Duration("grace", 500*time.Millisecond, "slack beyond --time before a move is forfeited as late (the operating system of a busy shared machine can hold a process back for a tenth of a second or more)")
	games := fs.Int("games", 12, "games a pairing (even; with forced openings)")
	seed := fs.Uint64("seed", 1, "seed")
	parallel := fs.Int("parallel", 1, "games to play at once (more than the idle cores distorts timed play)")
	all := fs.Bool("all", false, "thesis: play every pair of the six AIs, not only the thesis's pairings")
	opponent := fs.String("opponent", "alphabeta:simple:depth=4", "pekar: the opponent in the human's seat")
	out := fs.String("out", "", "write the Markdown here")
	plotDir := fs.String("plot", "", "write the figures as SVG files into this directory (made if missing), linked from the Markdown")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	switch {
	case fs.NArg() > 0:
		return usagef("unexpected arguments %q", fs.Args())
	case *games < 2 || *games%2 != 0:
		return usagef("--games must be even and at least 2")
	case *parallel < 1:
		return usagef("--parallel must be at least 1")
	case *perMove < 0:
		return usagef("--time must not be negative")
	case design == "thesis" && *perMove == 0:
		return usagef("the thesis design needs --time")
	}
	if *grace < 0 {
		return usagef("--grace must not be negative")
	}
	x := match.Experiment{Name: design, Games: *games, Time: *perMove, Grace: *grace, Seed: *seed, Parallel: *parallel}
	var pairs [][2]string
	var err error
	if design == "thesis" {
		x.Rules, err = kalah.PresetRules("thesis")
		pairs = match.ThesisPairings(*perMove, *all)
	} else {
		x.Rules, err = kalah.PresetRules("pekar")
		if _, perr := player.New(*opponent, player.Options{Rules: x.Rules}); perr != nil {
			return usagef("--opponent: %v", perr)
		}
		pairs = match.PekarPairings(*opponent)
	}
	if err != nil {
		return err
	}
	if experimentTTY(e.stderr) {
		start := time.Now()
		x.OnGame = func(done, total int) {
			const width = 30
			bar := strings.Repeat("#", done*width/total) + strings.Repeat(".", width-done*width/total)
			fmt.Fprintf(e.stderr, "\r[%s] %d/%d games, %v", bar, done, total, time.Since(start).Round(time.Second))
			if done == total {
				fmt.Fprintln(e.stderr)
			}
		}
	}
	e.log.Info("experiment", "design", design, "pairings", len(pairs), "games", len(pairs)**games, "time", *perMove)
	err = x.Run(ctx, pairs, func(done, total int, p *match.Pairing) {
		s := &p.Summary
		if x.OnGame != nil {
			return // the progress bar says it
		}
		e.log.Info("pairing done", "n", fmt.Sprintf("%d/%d", done, total), "a", p.A, "b", p.B,
			"wdl", fmt.Sprintf("%d-%d-%d", s.Wins, s.Draws, s.Losses))
	})
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if design == "thesis" {
		x.WriteThesis(&buf)
	} else {
		x.WritePekar(&buf, *opponent)
	}
	if *plotDir != "" {
		md, err := writeExperimentFigures(e, experimentFigures(&x, design, *opponent), *plotDir, *out)
		if err != nil {
			return err
		}
		buf.WriteString(md)
	}
	if *out == "" {
		_, err = e.stdout.Write(buf.Bytes())
		return err
	}
	return os.WriteFile(*out, buf.Bytes(), 0o644)
}

// experimentTTY reports whether w is a terminal, where progress bars go.
func experimentTTY(w any) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
