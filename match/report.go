package match

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"kalah"
)

// WriteTable writes the match's result as a table with a row for each
// player: wins, draws, losses, points, mean margin, mean and longest
// thinking time a move, mean nodes and search depth a move, the share of
// moves played with a proven value (a book's or a solve's: "-" for a
// player that reports none) and forfeits. With markdown set it writes a
// Markdown table, else aligned text.
func WriteTable(w io.Writer, a, b string, s *Summary, markdown bool) error {
	head := []string{"player", "games", "wins", "draws", "losses", "points", "mean margin", "time/move", "max time", "nodes/move", "depth", "exact", "forfeits"}
	bs := Summary{Games: s.Games, Wins: s.Losses, Draws: s.Draws, Losses: s.Wins, Margin: -s.Margin}
	rows := [][]string{
		row("A "+a, s, &s.A),
		row("B "+b, &bs, &s.B),
	}
	return writeRows(w, head, rows, markdown)
}

func row(name string, s *Summary, st *Stats) []string {
	nodes, depth, exact := "-", "-", "-"
	if st.Reported > 0 {
		nodes = fmt.Sprintf("%.0f", st.MeanNodes())
		depth = fmt.Sprintf("%.1f", st.MeanDepth())
	}
	if (st.Reported > 0 || st.Exact > 0) && st.Moves > 0 {
		// Rounded down: 100% only when every move was proven.
		pct := 100 * st.Exact / st.Moves
		exact = fmt.Sprintf("%d%%", pct)
		if pct == 0 && st.Exact > 0 {
			exact = "<1%"
		}
	}
	return []string{name, fmt.Sprint(s.Games), fmt.Sprint(s.Wins), fmt.Sprint(s.Draws), fmt.Sprint(s.Losses),
		fmt.Sprint(s.Points()), fmt.Sprintf("%+.1f", s.MeanMargin()), Dur(st.MeanTime()), Dur(st.MaxTime), nodes, depth, exact, fmt.Sprint(st.Forfeits)}
}

// Dur formats a thinking time briefly: "0", "850µs", "12.3ms", "1.97s".
func Dur(d time.Duration) string {
	switch {
	case d <= 0:
		return "0"
	case d < time.Millisecond:
		return d.Round(time.Microsecond).String()
	case d < time.Second:
		return d.Round(100 * time.Microsecond).String()
	}
	return d.Round(10 * time.Millisecond).String()
}

// WriteScores writes every game's final stores in the layout of Pekař's
// Table 1: the games A moved first in, then those B moved first in, with a
// row of A's stores and a row of B's under the game numbers, perRow games a
// row (all in one row if perRow < 1).
func WriteScores(w io.Writer, games []*Game, perRow int, markdown bool) error {
	for _, aFirst := range []bool{true, false} {
		var sel []*Game
		for _, g := range games {
			if g.AFirst() == aFirst {
				sel = append(sel, g)
			}
		}
		if len(sel) == 0 {
			continue
		}
		title := "A moved first"
		if !aFirst {
			title = "B moved first"
		}
		if markdown {
			fmt.Fprintf(w, "\n%s:\n\n", title)
		} else {
			fmt.Fprintf(w, "\nscores, %s:\n", title)
		}
		n := perRow
		if n < 1 {
			n = len(sel)
		}
		for lo := 0; lo < len(sel); lo += n {
			chunk := sel[lo:min(lo+n, len(sel))]
			head := []string{"game"}
			ra, rb := []string{"A"}, []string{"B"}
			for _, g := range chunk {
				label := fmt.Sprint(g.Index + 1)
				if len(g.Opening) > 0 {
					label += fmt.Sprintf(" (%s)", kalah.MovesText(g.Opening))
				}
				head = append(head, label)
				a, b := g.AScore()
				ra = append(ra, fmt.Sprint(a))
				rb = append(rb, fmt.Sprint(b))
			}
			if err := writeRows(w, head, [][]string{ra, rb}, markdown); err != nil {
				return err
			}
			if markdown && lo+n < len(sel) {
				fmt.Fprintln(w)
			}
		}
	}
	return nil
}

// writeRows writes a header and rows as a Markdown or an aligned text table.
func writeRows(w io.Writer, head []string, rows [][]string, markdown bool) error {
	if markdown {
		line := func(cells []string) {
			fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
		}
		line(head)
		sep := make([]string, len(head))
		for i := range sep {
			sep[i] = "---"
			if i > 0 {
				sep[i] = "---:"
			}
		}
		line(sep)
		for _, r := range rows {
			line(r)
		}
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, r := range append([][]string{head}, rows...) {
		fmt.Fprintln(tw, strings.Join(r, "\t")+"\t")
	}
	return tw.Flush()
}
