package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"kalah/internal/chart"
	"kalah/match"
)

// figure is one SVG figure of an experiment: its file name in the --plot
// directory, its title, and how it is drawn.
type figure struct {
	file, title string
	draw        func(w io.Writer) error
}

// experimentFigures returns the figures of a finished experiment: for the
// thesis, Table 7's win rates beside ours and the depth each AI reached;
// for Pekař's design, Table 1 drawn (each strategy's wins and margins as
// first and as second player, ours beside the paper's) and the time a move
// that the paper says grows with the depth.
func experimentFigures(x *match.Experiment, design, opponent string) []figure {
	if design == "thesis" {
		fs := x.ThesisFigures()
		var names []string
		var ours, theirs, depth []float64
		for _, f := range fs {
			if !f.Played {
				continue
			}
			names = append(names, thesisShort(f.Name))
			ours = append(ours, pctOf(f.Wins, f.Wins+f.Losses))
			theirs = append(theirs, pctOf(f.ThesisWins, f.ThesisWins+f.ThesisLosses))
			depth = append(depth, f.MeanDepth)
		}
		return []figure{
			{"thesis-wins.svg", "Table 7 drawn: each AI's win % (wins of wins and losses)", func(w io.Writer) error {
				return chart.BarsSVG(w, "Win % of each AI (wins / (wins + losses))", "win %", names, []chart.Series{
					{Name: fmt.Sprintf("ours, %v a move", x.Time), Values: ours},
					{Name: "the thesis's Table 7, 30s a move", Values: theirs},
				})
			}},
			{"thesis-depth.svg", "the mean depth each AI's search completed a move", func(w io.Writer) error {
				return chart.BarsSVG(w, fmt.Sprintf("Mean depth reached a move, %v a move", x.Time), "plies", names, []chart.Series{
					{Name: "ours", Values: depth},
				})
			}},
		}
	}
	fs := x.PekarFigures(opponent)
	names := make([]string, len(fs))
	oursFirst, oursSecond, paperFirst, paperSecond := make([]float64, len(fs)), make([]float64, len(fs)), make([]float64, len(fs)), make([]float64, len(fs))
	mFirst, mSecond, pFirst, pSecond := make([][]float64, len(fs)), make([][]float64, len(fs)), make([][]float64, len(fs)), make([][]float64, len(fs))
	times := make([]float64, len(fs))
	for i, f := range fs {
		names[i] = f.Strategy
		oursFirst[i] = pctOf(match.Won(f.FirstMargins), len(f.FirstMargins))
		oursSecond[i] = pctOf(match.Won(f.SecondMargins), len(f.SecondMargins))
		mFirst[i], mSecond[i] = floats(f.FirstMargins), floats(f.SecondMargins)
		paper := match.PekarPaper[f.Strategy]
		pm := [2][]int{}
		for k, games := range paper {
			for _, g := range games {
				pm[k] = append(pm[k], g.Computer-g.Person)
			}
		}
		paperFirst[i] = pctOf(match.Won(pm[0]), len(pm[0]))
		paperSecond[i] = pctOf(match.Won(pm[1]), len(pm[1]))
		pFirst[i], pSecond[i] = floats(pm[0]), floats(pm[1])
		times[i] = float64(f.MeanTime.Nanoseconds()) / 1000
	}
	return []figure{
		{"pekar-wins.svg", "Table 1 drawn: the games each strategy won, moving first and second, ours beside the paper's", func(w io.Writer) error {
			return chart.BarsSVG(w, "Games won by each strategy, moving first and second", "% of games won", names, []chart.Series{
				{Name: "ours first, against " + opponent, Values: oursFirst},
				{Name: "ours second", Values: oursSecond},
				{Name: "paper first, against a person", Values: paperFirst},
				{Name: "paper second", Values: paperSecond},
			})
		}},
		{"pekar-margins.svg", "Table 1's scores drawn: each game's margin from the strategy's view, ours beside the paper's", func(w io.Writer) error {
			return chart.StripSVG(w, "Each game's margin, from the strategy's view", "its seeds less its opponent's", names, []chart.Strip{
				{Name: "ours first", Points: mFirst},
				{Name: "ours second", Points: mSecond},
				{Name: "paper first", Points: pFirst},
				{Name: "paper second", Points: pSecond},
			})
		}},
		{"pekar-time.svg", "the time a move of each strategy, which the paper says grows with the depth", func(w io.Writer) error {
			return chart.BarsSVG(w, "Mean thinking time a move", "microseconds", names, []chart.Series{{Name: "ours", Values: times}})
		}},
	}
}

// writeExperimentFigures writes the figures into dir and returns the
// Markdown that shows them beside the tables, their paths relative to the
// tables' file (out; empty for standard output).
func writeExperimentFigures(e *env, figs []figure, dir, out string) (string, error) {
	base := "."
	if out != "" {
		base = filepath.Dir(out)
	}
	var md strings.Builder
	md.WriteString("\nFigures:\n\n")
	for _, f := range figs {
		path := filepath.Join(dir, f.file)
		if err := writePlot(e, path, f.draw); err != nil {
			return "", err
		}
		rel := path
		if absBase, err := filepath.Abs(base); err == nil {
			if absPath, err := filepath.Abs(path); err == nil {
				if r, err := filepath.Rel(absBase, absPath); err == nil {
					rel = r
				}
			}
		}
		fmt.Fprintf(&md, "![%s](%s)\n\n", f.title, filepath.ToSlash(rel))
	}
	return md.String(), nil
}

// thesisShort names a thesis AI on two lines for a figure's axis:
// "Knowledge-based alpha-beta, simple" is "KBAB\nsimple".
func thesisShort(name string) string {
	alg, util, _ := strings.Cut(name, ", ")
	switch alg {
	case "Knowledge-based alpha-beta":
		alg = "KBAB"
	}
	if util == "knowledge-based" {
		util = "knowledge"
	}
	return alg + "\n" + util
}

// pctOf is n of total in per cent (0 for no games).
func pctOf(n, total int) float64 {
	if total == 0 {
		return 0
	}
	return 100 * float64(n) / float64(total)
}

func floats(vs []int) []float64 {
	out := make([]float64, len(vs))
	for i, v := range vs {
		out[i] = float64(v)
	}
	return out
}
