package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"kalah"
	"kalah/engine"
	"kalah/internal/chart"
	"kalah/internal/store"
	"kalah/match"
	"kalah/player"
)

func init() {
	register(&command{name: "match", summary: "play a series of games between two players", run: runMatch})
}

func runMatch(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "match", "--a PLAYER --b PLAYER [--games N] [--openings [--opening-plies N]] [--time D] [--seed S] [--parallel P] [--record FILE] [--plot FILE.svg]",
		"Plays games between two players, each taking South in turn, and prints a line a\n"+
			"game, a table of results (wins, draws, losses, points, mean margin, mean and\n"+
			"longest time a move, nodes a move, the share of moves played with a proven\n"+
			"value, forfeits) and every game's score in the layout of Pekař's Table 1.\n"+
			"--openings forces the opening of each pair of games: each house in turn,\n"+
			"as the thesis did, or with --opening-plies N each line of N plies in turn\n"+
			"(a move that earns an extra turn is a ply). --record writes one JSON\n"+
			"object a line and game, in game order. On a terminal (or with --chart) a\n"+
			"histogram of A's margins follows; --plot FILE.svg draws it as an SVG figure.")
	rf := addRulesFlags(fs)
	a := fs.String("a", "random", "player A (see kalah players)")
	b := fs.String("b", "greedy", "player B")
	games := fs.Int("games", 2, "games to play")
	seed := fs.Uint64("seed", 1, "seed for players that draw at random")
	perMove := fs.Duration("time", 0, "time limit a move, enforced by the referee (0: none)")
	budget := fs.Duration("budget", 0, "each player's time for a whole game, enforced by the referee (0: none; with the manchester rules an hour, as the original engine)")
	logs := fs.String("logs", "", "directory for the standard error of program players (exec:, mk:), a file a game and player (default: DATA/logs/match-TIME, DATA as for kalah serve --data)")
	grace := fs.Duration("grace", 0, "slack beyond --time before a move is forfeited as late")
	openings := fs.Bool("openings", false, "force each pair of games to open with each house in turn (with --opening-plies, each opening of that many plies)")
	openingPlies := fs.Int("opening-plies", 1, "plies of each forced opening (implies --openings)")
	parallel := fs.Int("parallel", 1, "games to play at once")
	quiet := fs.Bool("quiet", false, "do not print a line a game")
	markdown := fs.Bool("markdown", false, "print the tables as Markdown")
	record := fs.String("record", "", "write the games as JSON lines to this file")
	verbose := fs.Bool("v", false, "log progress and details to stderr even on a terminal")
	cf := addChartFlags(fs, "the histogram of A's margins", "write the histogram of A's margins (A's seeds less B's, a game each) as an SVG figure in FILE.svg")
	buildDB := fs.Bool("build-egdb", false, fmt.Sprintf("as kalah play does: where the data directory lacks the perfect player's endgame database of %d seeds, its first\n"+
		"move in six-house Kalah starts building it in the background (the players take one of 16 seeds built first within seconds,\n"+
		"then it); the match waits for it at its end; Ctrl-C stops it, its progress kept for the next run. Without the flag a\n"+
		"perfect player lacking the database says so", engine.PerfectDBSeeds))
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	verboseLogs(e, *verbose)
	if err := cf.check(); err != nil {
		return err
	}
	if err := checkPlotFile(cf.plot); err != nil {
		return err
	}
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "opening-plies" {
			*openings = true
		}
	})
	r, err := rf.rules()
	if err != nil {
		return err
	}
	switch {
	case *games < 1:
		return usagef("--games must be at least 1")
	case *parallel < 1:
		return usagef("--parallel must be at least 1")
	case *openingPlies < 1 || *openingPlies > 6:
		return usagef("--opening-plies %d: want 1 to 6", *openingPlies)
	case *perMove < 0 || *grace < 0 || *budget < 0:
		return usagef("--time, --budget and --grace must not be negative")
	case *perMove > 24*time.Hour || *budget > 7*24*time.Hour:
		return usagef("--time %v, --budget %v: too long (at most a day a move, a week a game)", *perMove, *budget)
	}
	budgetGiven := false
	fs.Visit(func(f *flag.Flag) { budgetGiven = budgetGiven || f.Name == "budget" })
	if !budgetGiven && r.Name == "manchester" {
		*budget = time.Hour // the Manchester engine gives each bot an hour a game
	}
	if *buildDB { // before the players are made: the first starts it
		notes := buildDBOnFirstUse(e, false)
		defer func() {
			if engine.DBBuildRunning() {
				finishDBBuild(ctx, e, notes)
			}
		}()
	}
	programs := false
	for _, spec := range []string{*a, *b} {
		p, err := player.New(spec, player.Options{Rules: r})
		if err != nil {
			return usagef("%v", err)
		}
		if c, ok := p.(interface{ Close() error }); ok {
			c.Close()
		}
		programs = programs || strings.HasPrefix(spec, "exec:") || strings.HasPrefix(spec, "mk:")
	}
	if !*openings && *games > 2 && repeatable(*a) && repeatable(*b) {
		e.log.Warn(fmt.Sprintf("%s and %s play the same way every time: without --openings every game from the same side is the same game, and the table counts it again and again; give --openings to vary the games", *a, *b))
	}
	cfg := match.Config{A: *a, B: *b, Rules: r, Games: *games, Seed: *seed, Openings: *openings, OpeningPlies: *openingPlies, Parallel: *parallel}
	cfg.Referee.PerMove = *perMove
	cfg.Referee.Budget = *budget
	cfg.Referee.Grace = *grace
	if programs {
		cfg.Logs = *logs
		if cfg.Logs == "" {
			cfg.Logs = filepath.Join(store.DefaultDir(), "logs", "match-"+time.Now().Format("20060102-150405"))
		}
		e.log.Debug("program players' standard error is kept", "dir", cfg.Logs)
	}
	var rec *bufio.Writer
	if *record != "" {
		f, err := os.Create(*record)
		if err != nil {
			return err
		}
		defer f.Close()
		rec = bufio.NewWriter(f)
	}
	enc := json.NewEncoder(rec)
	var played []*match.Game
	start := time.Now()
	sum, err := match.Run(ctx, cfg, func(g *match.Game) error {
		played = append(played, g)
		if !*quiet {
			as, bs := g.AScore()
			open := ""
			if len(g.Opening) > 0 {
				open = fmt.Sprintf(" opening %s", kalah.MovesText(g.Opening))
			}
			why := ""
			if g.Outcome.Reason != nil {
				loser := "A"
				if w, ok := g.Outcome.Game.Result().Winner(); ok && (g.Outcome.Game.Seat(w) == 0) == g.ASouth {
					loser = "B"
				}
				why = fmt.Sprintf(": %s: %v", loser, g.Outcome.Reason)
			}
			// The sides are those played at the end: after a pie-rule swap
			// the player who started South plays North.
			if g.Outcome.Game.Swapped() {
				open += " (sides swapped)"
			}
			aSide := g.ASide()
			fmt.Fprintf(e.stdout, "game %d: A (%s) %d - %d B (%s) [%s%s]%s\n", g.Index+1, aSide.Letter(), as, bs, aSide.Other().Letter(), g.Outcome.Game.Termination(), why, open)
		}
		if rec != nil {
			return enc.Encode(g.Record(*seed))
		}
		return nil
	})
	if rec != nil {
		if ferr := rec.Flush(); err == nil {
			err = ferr
		}
	}
	if err != nil {
		return err
	}
	clock := "no time limit"
	switch {
	case *perMove > 0 && *budget > 0:
		clock = fmt.Sprintf("%v a move, %v a game", *perMove, *budget)
	case *perMove > 0:
		clock = fmt.Sprintf("%v a move", *perMove)
	case *budget > 0:
		clock = fmt.Sprintf("%v a game", *budget)
	}
	fmt.Fprintf(e.stdout, "\n%s, %d games, %s, seed %d, %d at a time, %v\n\n", r, sum.Games, clock, *seed, *parallel, time.Since(start).Round(time.Millisecond))
	if err := match.WriteTable(e.stdout, *a, *b, &sum, *markdown); err != nil {
		return err
	}
	if err := match.WriteScores(e.stdout, played, 20, *markdown); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "\nA=%s B=%s: %d games, A won %d, drew %d, lost %d, points %d-%d\n",
		*a, *b, sum.Games, sum.Wins, sum.Draws, sum.Losses, sum.Points(), 2*sum.Games-sum.Points())
	margins := make([]int, len(played))
	for i, g := range played {
		as, bs := g.AScore()
		margins[i] = as - bs
	}
	if cf.terminal(e) && (!*markdown || cf.on) { // Markdown is for pasting elsewhere
		printChart(e, func() (string, error) {
			return chart.HistogramText(margins, "A's margin (A's seeds less B's)", chartCols(e, 20))
		})
	}
	if cf.plot != "" {
		title := fmt.Sprintf("A %s against B %s: A's margins", *a, *b)
		if err := writePlot(e, cf.plot, func(w io.Writer) error { return chart.HistogramSVG(w, title, "A's seeds less B's", margins) }); err != nil {
			return err
		}
	}
	if note := repeats(played); note != "" {
		fmt.Fprintf(e.stdout, "\nnote: %s: the players repeat themselves; --openings varies the games\n", note)
	}
	if why := unplayable(played); why != nil {
		return fmt.Errorf("no game could be played: %w", why)
	}
	return nil
}

// repeats names the games that were the same game played again (the
// same side, opening and moves): "games 1, 3, 5 were one game (A as
// South), games 2, 4, 6 another"; empty if every game was its own.
func repeats(games []*match.Game) string {
	type key struct {
		aSouth bool
		moves  string
	}
	groups := map[key][]int{}
	var order []key
	for _, g := range games {
		k := key{g.ASouth, g.Outcome.Game.MoveText()}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], g.Index+1)
	}
	var parts []string
	for _, k := range order {
		ns := groups[k]
		if len(ns) < 2 {
			continue
		}
		list := make([]string, len(ns))
		for i, n := range ns {
			list[i] = fmt.Sprint(n)
		}
		side := "South"
		if !k.aSouth {
			side = "North"
		}
		parts = append(parts, fmt.Sprintf("games %s were one game (A starting %s)", strings.Join(list, ", "), side))
	}
	return strings.Join(parts, "; ")
}

// unplayable returns why, if every game was lost by a program that never
// made a move (it could not start, or died at once); nil if any game was
// played.
func unplayable(games []*match.Game) error {
	var why error
	for _, g := range games {
		kg := g.Outcome.Game
		t := kg.Termination()
		if g.Outcome.Reason == nil || t != kalah.Crash {
			return nil
		}
		w, ok := kg.Result().Winner()
		if !ok {
			return nil
		}
		loser := kg.Seat(w.Other())
		for _, m := range g.Outcome.Moves {
			if m.Seat == loser {
				return nil
			}
		}
		why = g.Outcome.Reason
	}
	return why
}
