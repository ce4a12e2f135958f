package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"kalah/player"
)

func init() {
	register(&command{name: "players", summary: "list the computer players and difficulty levels", run: runPlayers})
}

// width is the most columns the listing takes.
const width = 100

func runPlayers(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "players", "", "Lists the friendly difficulty levels with their strength (Elo, measured by\nthe gauntlet in docs/EXPERIMENTS.md), then every kind of player with its spec,\nwhat it is and where it comes from. Use a level or a spec wherever a player\nis asked for: kalah play --opponent hard, kalah match --a pekar --b engine.")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	w := e.stdout
	if ls := player.Levels(); len(ls) > 0 {
		fmt.Fprintln(w, "LEVELS  (Elo: strength measured against the level below, beginner = 0; see docs/EXPERIMENTS.md)")
		fmt.Fprintf(w, "%-9s %-28s %5s  %s\n", "LEVEL", "PLAYER", "ELO", "WHAT IT DOES")
		for _, l := range ls {
			elo := "?"
			if v, ok := player.LevelElo(l.Name); ok {
				elo = fmt.Sprintf("%d", v)
			}
			wrap(w, fmt.Sprintf("%-9s %-28s %5s  ", l.Name, l.Spec, elo), l.Description)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, "PLAYERS  (a spec, with its options in brackets)")
	for _, k := range player.List() {
		fmt.Fprintln(w, k.Usage)
		wrap(w, "    ", k.Summary+".")
		wrap(w, "    ", "From: "+k.Source+".")
	}
	return nil
}

// wrap writes text after prefix, folding it at word boundaries so that no
// line is wider than width; later lines are indented like the text.
func wrap(w io.Writer, prefix, text string) {
	indent := strings.Repeat(" ", len(prefix))
	line := prefix
	empty := true
	for _, word := range strings.Fields(text) {
		if !empty && len(line)+1+len(word) > width {
			fmt.Fprintln(w, line)
			line, empty = indent, true
		}
		if !empty {
			line += " "
		}
		line += word
		empty = false
	}
	fmt.Fprintln(w, line)
}
