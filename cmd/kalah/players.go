package main

import (
	"context"
	"fmt"
	"text/tabwriter"

	"kalah/player"
)

func init() {
	register(&command{name: "players", summary: "list the computer players and difficulty levels", run: runPlayers})
}

func runPlayers(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "players", "", "Lists every kind of player with its spec, what it is and where it comes from,\nthen the friendly difficulty levels.")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SPEC\tWHAT IT IS\tSOURCE")
	for _, k := range player.List() {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", k.Usage, k.Summary, k.Source)
	}
	if ls := player.Levels(); len(ls) > 0 {
		fmt.Fprintln(tw, "\nLEVEL\tPLAYER\tDESCRIPTION")
		for _, l := range ls {
			fmt.Fprintf(tw, "%s\t%s\t%s\n", l.Name, l.Spec, l.Description)
		}
	}
	return tw.Flush()
}
