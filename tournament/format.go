package tournament

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
)

// Report is everything shown about a tournament: its header, standings,
// cross-table (in entrant order) and, for an SPRT run, the test.
type Report struct {
	Tournament Info       `json:"tournament"`
	Standings  []Standing `json:"standings"`
	Cross      [][]Cell   `json:"cross"`
	SPRT       *SPRTState `json:"sprt,omitempty"`
	// Games, if filled in (Store.Games), are listed by the JSON format.
	Games []Played `json:"games,omitempty"`
}

// Report gathers a tournament's report from the database.
func (s *Store) Report(ctx context.Context, id int64) (Report, error) {
	var r Report
	var err error
	if r.Tournament, err = s.Tournament(ctx, id); err != nil {
		return r, err
	}
	if r.Standings, err = s.Standings(ctx, id); err != nil {
		return r, err
	}
	if r.Cross, err = s.CrossTable(ctx, id); err != nil {
		return r, err
	}
	if r.Tournament.Config.Format == SPRT {
		st, err := s.SPRTResult(ctx, id)
		if err != nil {
			return r, err
		}
		r.SPRT = &st
	}
	return r, nil
}

// Formats lists the output formats of Write.
var Formats = []string{"table", "cross", "csv", "json", "markdown"}

// Write writes a report as a terminal table, a cross-table, CSV, JSON or
// Markdown.
func (r Report) Write(w io.Writer, format string) error {
	switch format {
	case "table", "":
		return r.writeTable(w, false)
	case "cross":
		return r.writeTable(w, true)
	case "csv":
		return r.writeCSV(w)
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	case "markdown", "md":
		return r.writeMarkdown(w)
	}
	return fmt.Errorf("unknown format %q (want %s)", format, strings.Join(Formats, ", "))
}

func (r Report) header() string {
	in := r.Tournament
	c := in.Config
	s := fmt.Sprintf("Tournament %d: %s (%s, %s rules", in.ID, in.Name, c.Format, c.Rules)
	if c.Clock.PerMove > 0 {
		s += fmt.Sprintf(", %v a move", c.Clock.PerMove)
	}
	if c.Clock.Budget > 0 {
		s += fmt.Sprintf(", %v+%v a game", c.Clock.Budget, c.Clock.Increment)
	}
	if c.Openings != NoOpenings {
		s += ", " + string(c.Openings) + " openings"
	}
	sofar := ""
	if (c.Format == Swiss || c.Format == SPRT) && in.Status != StatusFinished {
		sofar = " scheduled so far" // rounds are scheduled as they come
	}
	return s + fmt.Sprintf("): %d of %d games%s played, %s", in.Played, in.Games, sofar, in.Status)
}

func elo(s Standing) string {
	return fmt.Sprintf("%+.0f ± %.0f", noNegZero(math.Round(s.Elo)), s.EloErr)
}

// noNegZero turns -0 into 0 so a rating never prints as "-0".
func noNegZero(x float64) float64 {
	if x == 0 {
		return 0
	}
	return x
}

func (r Report) writeTable(w io.Writer, cross bool) error {
	fmt.Fprintln(w, r.header())
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	if cross {
		fmt.Fprint(tw, "#\tPLAYER\t")
		for i := range r.Standings {
			fmt.Fprintf(tw, "%d\t", i+1)
		}
		fmt.Fprintln(tw, "POINTS\tSEEDS\t")
		for _, row := range r.Standings {
			fmt.Fprintf(tw, "%d\t%s\t", row.Rank, row.Player)
			for _, col := range r.Standings {
				fmt.Fprintf(tw, "%s\t", r.cell(row.Entrant, col.Entrant))
			}
			fmt.Fprintf(tw, "%d\t%d\t\n", row.Points, row.Seeds)
		}
	} else {
		fmt.Fprintln(tw, "#\tPLAYER\tGAMES\tWON\tDRAWN\tLOST\tPOINTS\tSEEDS\tH2H\tELO\t")
		for _, s := range r.Standings {
			fmt.Fprintf(tw, "%d\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t\n", s.Rank, s.Player, s.Games, s.Wins, s.Draws, s.Losses, s.Points, s.Seeds, r.h2h(s), elo(s))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if !cross {
		fmt.Fprintln(w, "  POINTS: 2 a win, 1 a draw. SEEDS: seeds in store, summed (first tie-break). H2H: points")
		fmt.Fprintln(w, "  against the players tied on both (second tie-break; - when none is tied). ELO: rating")
		fmt.Fprintln(w, "  from these games, the field's mean being 0, with its 95% interval.")
	}
	if r.SPRT != nil {
		_, err := fmt.Fprintf(w, "SPRT: %s\n  %d games (+%d =%d -%d), LLR %.2f in (%.2f, %.2f)\n",
			r.SPRT.Statement, r.SPRT.GamesTotal, r.SPRT.Wins, r.SPRT.Draws, r.SPRT.Losses, r.SPRT.LLR, r.SPRT.Lower, r.SPRT.Upper)
		return err
	}
	return nil
}

// h2h shows s's head-to-head tie-break, or "-" when no one is tied with it
// on points and seeds (the tie-break then plays no part).
func (r Report) h2h(s Standing) string {
	for _, o := range r.Standings {
		if o.Entrant != s.Entrant && o.Points == s.Points && o.Seeds == s.Seeds {
			return fmt.Sprint(s.HeadToHead)
		}
	}
	return "-"
}

// cell shows row's points against col out of those possible.
func (r Report) cell(row, col int) string {
	if row == col {
		return "-"
	}
	if row >= len(r.Cross) || col >= len(r.Cross[row]) {
		return ""
	}
	c := r.Cross[row][col]
	if c.Games == 0 {
		return "."
	}
	return fmt.Sprintf("%d/%d", c.Points, WinPoints*c.Games)
}

func (r Report) writeCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"rank", "player", "games", "wins", "draws", "losses", "byes", "points", "seeds", "head_to_head", "elo", "elo_err95"})
	for _, s := range r.Standings {
		cw.Write([]string{fmt.Sprint(s.Rank), s.Player, fmt.Sprint(s.Games), fmt.Sprint(s.Wins), fmt.Sprint(s.Draws), fmt.Sprint(s.Losses),
			fmt.Sprint(s.Byes), fmt.Sprint(s.Points), fmt.Sprint(s.Seeds), fmt.Sprint(s.HeadToHead), fmt.Sprintf("%.1f", noNegZero(math.Round(s.Elo*10)/10)), fmt.Sprintf("%.1f", s.EloErr)})
	}
	cw.Flush()
	return cw.Error()
}

func mdEscape(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

func (r Report) writeMarkdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "## %s\n\n", mdEscape(r.header()))
	b.WriteString("| # | Player | Games | Won | Drawn | Lost | Points | Seeds | H2H | Elo |\n|--:|:--|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, s := range r.Standings {
		fmt.Fprintf(&b, "| %d | `%s` | %d | %d | %d | %d | %d | %d | %s | %s |\n", s.Rank, mdEscape(s.Player), s.Games, s.Wins, s.Draws, s.Losses, s.Points, s.Seeds, r.h2h(s), elo(s))
	}
	b.WriteString("\nPoints: 2 a win, 1 a draw. Seeds: seeds in store, summed (first tie-break). H2H: points against the players tied on both (second tie-break; - when none is tied). Elo: rating from these games, the field's mean being 0, with its 95% interval.\n")
	b.WriteString("\n| # | Player |")
	for i := range r.Standings {
		fmt.Fprintf(&b, " %d |", i+1)
	}
	b.WriteString("\n|--:|:--|" + strings.Repeat("--:|", len(r.Standings)) + "\n")
	for _, row := range r.Standings {
		fmt.Fprintf(&b, "| %d | `%s` |", row.Rank, mdEscape(row.Player))
		for _, col := range r.Standings {
			fmt.Fprintf(&b, " %s |", r.cell(row.Entrant, col.Entrant))
		}
		b.WriteString("\n")
	}
	if r.SPRT != nil {
		fmt.Fprintf(&b, "\n**SPRT:** %s (%d games, +%d =%d -%d, LLR %.2f in (%.2f, %.2f))\n",
			mdEscape(r.SPRT.Statement), r.SPRT.GamesTotal, r.SPRT.Wins, r.SPRT.Draws, r.SPRT.Losses, r.SPRT.LLR, r.SPRT.Lower, r.SPRT.Upper)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
