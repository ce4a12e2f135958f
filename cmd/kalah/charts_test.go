package main

import (
	"bytes"
	"context"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// chartGame is a recorded game of Kalah(6,3), greedy against pekar, as
// kalah match --record writes it: 24 moves, so 25 positions (plies 0 to
// 24), with blunders and mistakes on both sides.
const chartGame = `{"rules":{"houses":6,"seeds":3,"first":"S","empty_capture":false,"end":"either-empty","early_end":false,"pie":false,"sow_opponent_store":false},"players":{"south":"greedy","north":"pekar"},"moves":[{"side":"S","house":4},{"side":"S","house":1},{"side":"N","house":4},{"side":"N","house":1},{"side":"S","house":6},{"side":"N","house":2},{"side":"N","house":1},{"side":"S","house":2},{"side":"N","house":6},{"side":"S","house":6},{"side":"S","house":5},{"side":"N","house":3},{"side":"S","house":6},{"side":"S","house":4},{"side":"N","house":5},{"side":"S","house":6},{"side":"S","house":5},{"side":"N","house":6},{"side":"N","house":4},{"side":"S","house":6},{"side":"S","house":4},{"side":"N","house":5},{"side":"S","house":5},{"side":"N","house":6}],"final":{"south":16,"north":20},"result":"north","termination":"normal","tags":{"Game":"1","Seed":"3"}}` + "\n"

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
	const plies = 25 // 24 moves and the final position
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
	for _, want := range []string{">ply<", ">value from South&#39;s view (seeds)<", ">blunders (6)<", ">mistakes (3)<", ">South greedy, North pekar: the value over the plies<"} {
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
