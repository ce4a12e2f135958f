package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"

	"kalah/match"
)

func init() {
	register(&command{name: "match", summary: "play a series of games between two players", run: runMatch})
}

func runMatch(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "match", "--a PLAYER --b PLAYER [--games N] [--seed S] [--time D] [--record FILE]",
		"Plays games between two players, each taking South in turn, and prints the\nresults. --record writes one JSON object a line and game.")
	rf := addRulesFlags(fs)
	a := fs.String("a", "random", "player A (see kalah players)")
	b := fs.String("b", "greedy", "player B")
	games := fs.Int("games", 2, "games to play")
	seed := fs.Uint64("seed", 1, "seed for players that draw at random")
	perMove := fs.Duration("time", 0, "time limit a move (0: none)")
	record := fs.String("record", "", "write the games as JSON lines to this file")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	r, err := rf.rules()
	if err != nil {
		return err
	}
	if *games < 1 {
		return usagef("--games must be at least 1")
	}
	cfg := match.Config{A: *a, B: *b, Rules: r, Games: *games, Seed: *seed}
	cfg.Referee.PerMove = *perMove
	var rec *bufio.Writer
	if *record != "" {
		f, err := os.Create(*record)
		if err != nil {
			return err
		}
		defer f.Close()
		rec = bufio.NewWriter(f)
		defer rec.Flush()
	}
	enc := json.NewEncoder(rec)
	sum, err := match.Run(ctx, cfg, func(g *match.Game) error {
		as, bs := g.AScore()
		fmt.Fprintf(e.stdout, "game %d: A (%s) %d - %d B (%s) [%s]\n", g.Index+1, sideName(g.ASouth), as, bs, sideName(!g.ASouth), g.Outcome.Game.Termination())
		if rec != nil {
			return enc.Encode(g.Record(*seed))
		}
		return nil
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "A=%s B=%s: %d games, A won %d, drew %d, lost %d, points %d-%d\n",
		*a, *b, sum.Games, sum.Wins, sum.Draws, sum.Losses, sum.Points(), 2*sum.Games-sum.Points())
	return nil
}

func sideName(south bool) string {
	if south {
		return "S"
	}
	return "N"
}
