package main

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kalah"
	"kalah/match"
)

// chartGame is a recorded game of Kalah(6,3), greedy against random, as
// kalah match --record writes it (--seed 1): 22 moves, so 23 positions
// (plies 0 to 22), with blunders and mistakes (docs/API.md, "Analysis
// marks") on both sides.
const chartGame = `{"rules":{"houses":6,"seeds":3,"first":"S","empty_capture":false,"end":"either-empty","early_end":false,"pie":false,"sow_opponent_store":false},"players":{"south":"greedy","north":"random"},"moves":[{"side":"S","house":4},{"side":"S","house":1},{"side":"N","house":1},{"side":"S","house":3},{"side":"S","house":6},{"side":"N","house":2},{"side":"N","house":3},{"side":"S","house":2},{"side":"N","house":4},{"side":"S","house":4},{"side":"S","house":6},{"side":"S","house":5},{"side":"N","house":2},{"side":"S","house":6},{"side":"S","house":3},{"side":"N","house":1},{"side":"S","house":2},{"side":"N","house":3},{"side":"S","house":1},{"side":"N","house":6},{"side":"S","house":5},{"side":"N","house":4}],"final":{"south":29,"north":7},"result":"south","termination":"normal","tags":{"Game":"1","Seed":"1"}}` + "\n"

// runKalah runs the command line in this process and returns its output;
// a non-zero exit fails the test.
func runKalah(t *testing.T, dir string, args ...string) (stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	t.Setenv("KALAH_DATA", filepath.Join(dir, "data"))
	if code := run(context.Background(), args, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("kalah %s: exit %d\n%s%s", strings.Join(args, " "), code, out.String(), errb.String())
	}
	return out.String(), errb.String()
}

// svgElements parses an SVG file with encoding/xml (failing the test if it
// is not one) and returns its path elements' style and d attributes.
func svgElements(t *testing.T, file string) (styles, data []string) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	dec := xml.NewDecoder(bytes.NewReader(b))
	root := ""
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s is not valid XML: %v", file, err)
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		if root == "" {
			root = se.Name.Local
		}
		if se.Name.Local == "path" {
			var st, d string
			for _, a := range se.Attr {
				switch a.Name.Local {
				case "style":
					st = a.Value
				case "d":
					d = a.Value
				}
			}
			styles, data = append(styles, st), append(data, d)
		}
	}
	if root != "svg" {
		t.Fatalf("%s: root element %q, want svg", file, root)
	}
	return styles, data
}

// countFilled counts the paths filled with colour hex; with circles, only
// those drawing a circle (two arcs), the points of a line's plies.
func countFilled(styles, data []string, hex string, circles bool) int {
	n := 0
	for i, st := range styles {
		if strings.Contains(st, "fill:"+hex) && (!circles || strings.Count(data[i], "A") == 2) {
			n++
		}
	}
	return n
}

// TestAnalyzeGamePlotSVG: kalah analyze --game games.jsonl --plot g.svg
// writes a valid SVG with one point a ply, the blunders and mistakes the
// table names as marks of their own, and the axes labelled.
func TestAnalyzeGamePlotSVG(t *testing.T) {
	dir := t.TempDir()
	games := filepath.Join(dir, "games.jsonl")
	if err := os.WriteFile(games, []byte(chartGame), 0o644); err != nil {
		t.Fatal(err)
	}
	svg := filepath.Join(dir, "g.svg")
	out, errs := runKalah(t, dir, "analyze", "--game", games, "--plot", svg)
	if !strings.Contains(errs, "wrote "+svg) {
		t.Errorf("stderr does not say where the figure went: %q", errs)
	}
	if strings.Contains(out, "┤") {
		t.Errorf("a piped run drew a chart:\n%s", out)
	}
	styles, data := svgElements(t, svg)
	var rec kalah.Record
	if err := json.Unmarshal([]byte(chartGame), &rec); err != nil {
		t.Fatal(err)
	}
	plies := len(rec.Moves) + 1 // the moves and the final position
	if got := countFilled(styles, data, "#1F77B4", true); got != plies+1 {
		t.Errorf("%d blue points, want one a ply (%d) and the legend's", got, plies)
	}
	blunders, mistakes := strings.Count(out, "(a blunder)"), strings.Count(out, "(a mistake)")
	if blunders == 0 || mistakes == 0 {
		t.Fatalf("the table names %d blunders and %d mistakes; the game was chosen for both:\n%s", blunders, mistakes, out)
	}
	if got := countFilled(styles, data, "#D62728", false); got != blunders+1 {
		t.Errorf("%d red marks, want a blunder each (%d) and the legend's", got, blunders)
	}
	if got := countFilled(styles, data, "#FF7F0E", false); got != mistakes+1 {
		t.Errorf("%d orange marks, want a mistake each (%d) and the legend's", got, mistakes)
	}
	b, _ := os.ReadFile(svg)
	for _, want := range []string{">ply<", ">value from South&#39;s view (seeds)<", fmt.Sprintf(">blunders (%d)<", blunders), fmt.Sprintf(">mistakes (%d)<", mistakes), ">South greedy, North random: the value over the plies<"} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("no %s in the figure", want)
		}
	}
}

// TestAnalyzeGameChartGolden: the terminal chart of kalah analyze --game
// (asked with --chart, as a piped run does not draw), against
// testdata/analyze_chart.golden; go test -run TestAnalyzeGameChartGolden
// -update rewrites it.
func TestAnalyzeGameChartGolden(t *testing.T) {
	dir := t.TempDir()
	games := filepath.Join(dir, "games.jsonl")
	if err := os.WriteFile(games, []byte(chartGame), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _ := runKalah(t, dir, "analyze", "--game", games, "--chart")
	// The chart follows the table's last line (which holds a time).
	_, chartText, ok := strings.Cut(out, "\nvalue with best play from South's view")
	if !ok {
		t.Fatalf("no chart after the table:\n%s", out)
	}
	chartText = "value with best play from South's view" + chartText
	checkGolden(t, "testdata/analyze_chart.golden", chartText)

	plain, _ := runKalah(t, dir, "analyze", "--game", games)
	if strings.Contains(plain, "South's view") {
		t.Errorf("a piped run without --chart drew:\n%s", plain)
	}
}

// checkGolden compares got with a golden file, or rewrites it with -update.
func checkGolden(t *testing.T, file, got string) {
	t.Helper()
	if updateGolden() {
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (go test -run %s -update writes it)", err, t.Name())
	}
	if got != string(want) {
		t.Errorf("%s differs (go test -run %s -update rewrites it):\ngot\n%s\nwant\n%s", file, t.Name(), got, want)
	}
}

// TestMatchHistogram: kalah match draws the histogram of A's margins on
// the terminal (--chart) and as SVG (--plot): a row a margin whose counts
// add up to the games, and as many bars in the figure as rows.
func TestMatchHistogram(t *testing.T) {
	dir := t.TempDir()
	svg := filepath.Join(dir, "m.svg")
	out, _ := runKalah(t, dir, "match", "--a", "greedy", "--b", "random", "--games", "12", "--quiet", "--chart", "--plot", svg)
	_, hist, ok := strings.Cut(out, "A's margin (A's seeds less B's), 12 games:\n")
	if !ok {
		t.Fatalf("no histogram:\n%s", out)
	}
	rows, total := 0, 0
	for _, l := range strings.Split(strings.TrimRight(hist, "\n"), "\n") {
		label, bar, ok := strings.Cut(l, " │")
		if !ok {
			t.Fatalf("not a histogram row: %q", l)
		}
		rows++
		if bar = strings.TrimLeft(bar, "█"); bar != "" {
			var n int
			if _, err := fmt.Sscanf(bar, " %d", &n); err != nil {
				t.Fatalf("row %q: no count: %v", label, err)
			}
			total += n
		}
	}
	if total != 12 {
		t.Errorf("the histogram counts %d games, want 12:\n%s", total, hist)
	}
	styles, data := svgElements(t, svg)
	if got := countFilled(styles, data, "#1F77B4", false); got != rows {
		t.Errorf("%d bars in the figure, want one a row of the terminal's (%d)", got, rows)
	}
	plain, _ := runKalah(t, dir, "match", "--a", "greedy", "--b", "random", "--games", "2", "--quiet")
	if strings.Contains(plain, "A's margin (") {
		t.Errorf("a piped run drew a histogram:\n%s", plain)
	}
}

// TestTournamentEloChart: kalah tournament draws each player's Elo with
// its interval, a line each, and --plot writes a point each with its error
// bar; --show draws the stored tournament the same way.
func TestTournamentEloChart(t *testing.T) {
	dir := t.TempDir()
	svg := filepath.Join(dir, "elo.svg")
	players := []string{"greedy", "random", "first"}
	out, _ := runKalah(t, dir, "tournament", "--players", strings.Join(players, ","), "--openings", "paired", "--chart", "--plot", svg, "--live", "0")
	for _, p := range players {
		found := false
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, p+" ") && strings.Contains(l, "●") && strings.Contains(l, "├") && strings.Contains(l, "┤") {
				found = true
			}
		}
		if !found {
			t.Errorf("no Elo bar for %s:\n%s", p, out)
		}
	}
	styles, data := svgElements(t, svg)
	if got := countFilled(styles, data, "#1F77B4", true); got != len(players) {
		t.Errorf("%d points in the figure, want one a player (%d)", got, len(players))
	}
	b, _ := os.ReadFile(svg)
	for _, p := range players {
		if !bytes.Contains(b, []byte(">"+p+"<")) {
			t.Errorf("the figure does not name %s", p)
		}
	}
	shown, _ := runKalah(t, dir, "tournament", "--show", "1", "--chart")
	// A ● a player, and one in the legend.
	if strings.Count(shown, "●") != len(players)+1 {
		t.Errorf("--show --chart: %d ratings drawn, want %d:\n%s", strings.Count(shown, "●")-1, len(players), shown)
	}
}

// TestTournamentSPRTChart: an SPRT draws its likelihood ratio over the
// games between its bounds; --plot writes a line with a vertex a game and
// the two bounds.
func TestTournamentSPRTChart(t *testing.T) {
	dir := t.TempDir()
	svg := filepath.Join(dir, "sprt.svg")
	out, _ := runKalah(t, dir, "tournament", "--sprt", "--players", "pekar,greedy", "--openings", "paired", "--batch", "2", "--max-games", "12", "--chart", "--plot", svg, "--live", "0")
	var games int
	for _, l := range strings.Split(out, "\n") {
		if _, err := fmt.Sscanf(strings.TrimSpace(l), "%d games (+", &games); err == nil {
			break
		}
	}
	if games == 0 {
		t.Fatalf("no count of games in the report:\n%s", out)
	}
	if !strings.Contains(out, "SPRT log-likelihood ratio over the games played: H1 accepted at 2.94 (the top ╌), H0 at -2.94 (the bottom ╌)") {
		t.Errorf("no SPRT chart:\n%s", out)
	}
	styles, data := svgElements(t, svg)
	line := false
	for i, st := range styles {
		if strings.Contains(st, "stroke:#1F77B4") && strings.Count(data[i], "L") == games-1 {
			line = true
		}
	}
	if !line {
		t.Errorf("no line of %d vertices, a game each, in the figure", games)
	}
	for _, bound := range []string{"stroke:#D62728", "stroke:#2CA02C"} {
		if !strings.Contains(strings.Join(styles, "\n"), bound) {
			t.Errorf("no bound drawn in %s", bound)
		}
	}
}

// TestExperimentPekarPlot: kalah experiment pekar --plot DIR writes its
// figures, valid SVG each, linked below the Markdown tables: the wins and
// the margins of the paper's Table 1 beside ours (a point a game of ours
// and of the paper's), and the time a move.
func TestExperimentPekarPlot(t *testing.T) {
	dir := t.TempDir()
	figs := filepath.Join(dir, "figs")
	md := filepath.Join(dir, "pekar.md")
	runKalah(t, dir, "experiment", "pekar", "--games", "2", "--plot", figs, "--out", md)
	for _, f := range []string{"pekar-wins.svg", "pekar-margins.svg", "pekar-time.svg"} {
		svgElements(t, filepath.Join(figs, f))
	}
	b, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	for _, link := range []string{"](figs/pekar-wins.svg)", "](figs/pekar-margins.svg)", "](figs/pekar-time.svg)"} {
		if !bytes.Contains(b, []byte(link)) {
			t.Errorf("the Markdown does not link %s:\n%s", link, b)
		}
	}
	// Five strategies, each moving first in one of its two games and
	// second in the other; the paper's 45 games each way. A point each, and
	// one in the legend.
	styles, data := svgElements(t, filepath.Join(figs, "pekar-margins.svg"))
	if got := countFilled(styles, data, "#1F77B4", true); got != 5+1 {
		t.Errorf("%d blue points (ours, first), want 5 and the legend's", got)
	}
	if got := countFilled(styles, data, "#FF7F0E", false); got != 5+1 {
		t.Errorf("%d orange points (ours, second), want 5 and the legend's", got)
	}
	stroked := func(hex string) int {
		n := 0
		for _, st := range styles {
			if strings.Contains(st, "stroke:"+hex) {
				n++
			}
		}
		return n
	}
	if got := stroked("#9467BD"); got != 45+1 {
		t.Errorf("%d purple rings (the paper, first), want 45 and the legend's", got)
	}
	if got := stroked("#8C564B"); got != 45+1 {
		t.Errorf("%d brown triangles (the paper, second), want 45 and the legend's", got)
	}
}

// TestExperimentThesisFigures: the thesis design's figures draw a bar for
// each AI that played, ours beside Table 7's (here two AIs of one pairing,
// the rest left out), without the six minutes of a real run.
func TestExperimentThesisFigures(t *testing.T) {
	x := match.Experiment{Name: "thesis", Time: 10 * time.Millisecond, Pairings: []match.Pairing{{
		A: "minimax:simple:time=10ms", B: "alphabeta:simple:time=10ms",
		Summary: match.Summary{Games: 4, Wins: 1, Draws: 1, Losses: 2, A: match.Stats{Moves: 10, Reported: 10, Depth: 60}, B: match.Stats{Moves: 10, Reported: 10, Depth: 90}},
	}}}
	figs := experimentFigures(&x, "thesis", "")
	if len(figs) != 2 || figs[0].file != "thesis-wins.svg" || figs[1].file != "thesis-depth.svg" {
		t.Fatalf("figures %+v", figs)
	}
	dir := t.TempDir()
	for i, f := range figs {
		path := filepath.Join(dir, f.file)
		fh, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.draw(fh); err != nil {
			t.Fatal(err)
		}
		fh.Close()
		styles, data := svgElements(t, path)
		// Two AIs: a blue bar each (ours) and the legend's; the wins figure
		// has the thesis's orange bars too.
		if got := countFilled(styles, data, "#1F77B4", false); got != 2+1 {
			t.Errorf("%s: %d blue bars, want 2 and the legend's", f.file, got)
		}
		if want := []int{2 + 1, 0}[i]; countFilled(styles, data, "#FF7F0E", false) != want {
			t.Errorf("%s: %d orange bars, want %d", f.file, countFilled(styles, data, "#FF7F0E", false), want)
		}
	}
}
