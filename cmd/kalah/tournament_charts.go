package main

import (
	"context"
	"fmt"
	"io"

	"kalah/internal/chart"
	"kalah/tournament"
)

// drawTournament draws a tournament's report: on the terminal (a table
// format only) each player's Elo with its interval and, for an SPRT, the
// likelihood ratio over the games against its bounds; with --plot the
// SPRT's ratio, or else the players' Elo, as an SVG figure.
func drawTournament(ctx context.Context, e *env, st *tournament.Store, id int64, rep tournament.Report, cf *chartFlags, format string) error {
	onTerminal := cf.terminal(e) && (format == "table" || format == "" || format == "cross")
	if !onTerminal && cf.plot == "" {
		return nil
	}
	rated := make([]chart.Rated, len(rep.Standings))
	for i, s := range rep.Standings {
		rated[i] = chart.Rated{Name: s.Player, Elo: s.Elo, Err: s.EloErr}
	}
	var llr []float64
	if rep.SPRT != nil {
		games, err := st.Games(ctx, id)
		if err != nil {
			return err
		}
		llr = llrPath(games, rep.SPRT.Config)
	}
	if onTerminal && len(rated) > 0 {
		printChart(e, func() (string, error) { return chart.EloText(rated, chartCols(e, 40)) })
	}
	if onTerminal && len(llr) > 0 {
		printChart(e, func() (string, error) { return chart.SPRTText(llr, rep.SPRT.Lower, rep.SPRT.Upper, chartCols(e, 10)) })
	}
	if cf.plot == "" {
		return nil
	}
	name := rep.Tournament.Config.Name
	if name == "" {
		name = fmt.Sprintf("tournament %d", id)
	}
	if rep.SPRT != nil {
		if len(llr) == 0 {
			return fmt.Errorf("--plot %s: no game of the SPRT has been played yet", cf.plot)
		}
		title := fmt.Sprintf("%s: SPRT of %s against %s", name, rep.SPRT.PlayerA, rep.SPRT.PlayerB)
		return writePlot(e, cf.plot, func(w io.Writer) error {
			return chart.SPRTSVG(w, title, llr, rep.SPRT.Lower, rep.SPRT.Upper)
		})
	}
	if len(rated) == 0 {
		return fmt.Errorf("--plot %s: the tournament has no players to draw", cf.plot)
	}
	return writePlot(e, cf.plot, func(w io.Writer) error {
		return chart.EloSVG(w, name+": Elo with 95% intervals", rated)
	})
}

// llrPath returns an SPRT's log-likelihood ratio after each of its games
// in schedule order, from the first entrant's view, as the test computes
// it (so the last is the report's).
func llrPath(games []tournament.Played, c tournament.SPRTConfig) []float64 {
	var w, d, l int
	out := make([]float64, 0, len(games))
	for _, g := range games {
		margin := g.SouthSeeds - g.NorthSeeds
		if g.North == 0 {
			margin = -margin
		}
		switch {
		case margin > 0:
			w++
		case margin < 0:
			l++
		default:
			d++
		}
		out = append(out, tournament.LLR(w, d, l, c.Elo0, c.Elo1))
	}
	return out
}
