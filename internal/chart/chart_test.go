package chart

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"strings"
	"testing"
)

// svgPaths parses an SVG document (failing the test if it is not XML with
// an svg root) and returns every path element's style and data.
func svgPaths(t *testing.T, doc []byte) (styles, data []string) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(doc))
	root := ""
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("the SVG is not valid XML: %v", err)
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		if root == "" {
			root = se.Name.Local
		}
		if se.Name.Local != "path" {
			continue
		}
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
	if root != "svg" {
		t.Fatalf("the root element is %q, want svg", root)
	}
	return styles, data
}

// filled counts the paths filled with colour hex ("#1F77B4") whose data
// draws a circle (two arcs) or, with anyShape, any shape.
func filled(styles, data []string, hex string, anyShape bool) int {
	n := 0
	for i, st := range styles {
		if strings.Contains(st, "fill:"+hex) && (anyShape || strings.Count(data[i], "A") == 2) {
			n++
		}
	}
	return n
}

func TestGameSVGOnePointAPly(t *testing.T) {
	plies := []Ply{{Value: 2}, {Value: -2, Mark: Blunder, Loss: 4, Mover: "South"}, {Value: -2}, {Value: 0, Mark: Mistake, Loss: 2, Mover: "North"}, {Value: 1}, {Value: 1}, {Value: -3, Mark: Mistake, Loss: 3, Mover: "South"}, {Value: -3}}
	for _, n := range []int{1, 2, len(plies)} {
		var buf bytes.Buffer
		if err := GameSVG(&buf, "test", plies[:n]); err != nil {
			t.Fatal(err)
		}
		styles, data := svgPaths(t, buf.Bytes())
		// A blue dot a ply, and one in the legend.
		if got := filled(styles, data, "#1F77B4", false); got != n+1 {
			t.Errorf("%d plies: %d blue points (the legend's among them), want %d", n, got, n+1)
		}
		var mistakes, blunders int
		for _, p := range plies[:n] {
			mistakes += btoi(p.Mark == Mistake)
			blunders += btoi(p.Mark == Blunder)
		}
		if got := filled(styles, data, "#FF7F0E", true); got != mistakes+1 {
			t.Errorf("%d plies: %d orange marks, want %d and the legend's", n, got, mistakes)
		}
		if got := filled(styles, data, "#D62728", true); got != blunders+1 {
			t.Errorf("%d plies: %d red marks, want %d and the legend's", n, got, blunders)
		}
		for _, want := range []string{">ply<", ">value from South&#39;s view (seeds)<"} {
			if !strings.Contains(buf.String(), want) {
				t.Errorf("%d plies: no %s in the SVG", n, want)
			}
		}
	}
	if err := GameSVG(io.Discard, "", nil); !errors.Is(err, ErrNoData) {
		t.Errorf("no plies: %v, want ErrNoData", err)
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestGameTextMarksUnderTheirPlies(t *testing.T) {
	var plies []Ply
	for i := range 30 {
		p := Ply{Value: float64(i%7 - 3), Mover: "South"}
		switch i {
		case 3, 17:
			p.Mark, p.Loss = Blunder, 5
		case 9:
			p.Mark, p.Loss = Mistake, 2
		}
		plies = append(plies, p)
	}
	for _, cols := range []int{0, 12, 100} { // a column a ply, squeezed, two columns a ply
		text, err := GameText(plies, cols)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(text, "\n")
		var marks string
		axis := -1
		for _, l := range lines {
			if i := strings.IndexAny(l, "┤┼"); i >= 0 && axis < 0 {
				axis = len([]rune(l[:i]))
			}
			if strings.TrimSpace(l) != "" && strings.Trim(l, " Bm") == "" {
				marks = l
			}
		}
		if axis < 0 || marks == "" {
			t.Fatalf("cols %d: no axis or marks row in\n%s", cols, text)
		}
		r := []rune(marks)
		want := map[int]rune{3: 'B', 9: 'm', 17: 'B'}
		for ply, c := range want {
			n := len(plies)
			width := n
			switch {
			case cols > 0 && cols < n:
				width = cols
			case cols >= 2*n-1:
				width = 2*n - 1
			}
			col := axis + (ply*(width-1)+(n-1)/2)/(n-1)
			if col >= len(r) || r[col] != c {
				t.Errorf("cols %d: ply %d: want %c at column %d of %q", cols, ply, c, col, marks)
			}
		}
		if got := strings.Count(marks, "B") + strings.Count(marks, "m"); got != 3 {
			t.Errorf("cols %d: %d marks in %q, want 3", cols, got, marks)
		}
		if !strings.Contains(text, "B blunders at plies 3 (South gave away 5), 17 (South gave away 5)\n") || !strings.Contains(text, "m mistake at ply 9 (South gave away 2)\n") {
			t.Errorf("cols %d: the legend does not name the plies:\n%s", cols, text)
		}
	}
}

func TestEloText(t *testing.T) {
	text, err := EloText([]Rated{{"alpha", 100, 50}, {"b", -100, 20}}, 41)
	if err != nil {
		t.Fatal(err)
	}
	want := "" +
		"alpha   +100 ±50                     │      ├───────●──────┤\n" +
		"b       -100 ±20   ├──●──┤           │\n" +
		"                   -120                                 +150\n" +
		"                   Elo (● the rating, ├─┤ its 95% interval, │ the mean 0)\n"
	if text != want {
		t.Errorf("got\n%s\nwant\n%s", text, want)
	}
}

func TestEloSVG(t *testing.T) {
	var buf bytes.Buffer
	rs := []Rated{{"alpha", 100, 50}, {"beta", 0, 30}, {"gamma", -100, 20}}
	if err := EloSVG(&buf, "Elo", rs); err != nil {
		t.Fatal(err)
	}
	styles, data := svgPaths(t, buf.Bytes())
	if got := filled(styles, data, "#1F77B4", false); got != len(rs) {
		t.Errorf("%d points, want one a player (%d)", got, len(rs))
	}
	for _, r := range rs {
		if !strings.Contains(buf.String(), ">"+r.Name+"<") {
			t.Errorf("no label %s", r.Name)
		}
	}
}

func TestSPRT(t *testing.T) {
	llr := []float64{0, 0.4, 0.9, 0.5, 1.2, 1.9, 2.4, 3.1}
	text, err := SPRTText(llr, -2.94, 2.94, 60)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text, "H1 accepted at 2.94") || strings.Count(text, "╌") < len(llr) {
		t.Errorf("no bounds drawn:\n%s", text)
	}
	var buf bytes.Buffer
	if err := SPRTSVG(&buf, "SPRT", llr, -2.94, 2.94); err != nil {
		t.Fatal(err)
	}
	styles, data := svgPaths(t, buf.Bytes())
	// The ratio's line has a vertex a game: its M and an L for each other.
	found := false
	for i, st := range styles {
		if strings.Contains(st, "stroke:#1F77B4") && strings.Count(data[i], "L") == len(llr)-1 {
			found = true
		}
	}
	if !found {
		t.Errorf("no blue line of %d vertices", len(llr))
	}
	for _, c := range []string{"stroke:#D62728", "stroke:#2CA02C"} {
		if !strings.Contains(buf.String(), c) {
			t.Errorf("no bound drawn in %s", c)
		}
	}
}

func TestHistogramText(t *testing.T) {
	text, err := HistogramText([]int{2, -1, 2, 4, 2}, "A's margin", 9)
	if err != nil {
		t.Fatal(err)
	}
	want := "A's margin, 5 games:\n" +
		"-1 │███ 1\n" +
		" 0 │\n" +
		"+1 │\n" +
		"+2 │█████████ 3\n" +
		"+3 │\n" +
		"+4 │███ 1\n"
	if text != want {
		t.Errorf("got\n%s\nwant\n%s", text, want)
	}
	even, err := HistogramText([]int{4, -2, 4, 2}, "margin", 4)
	if err != nil {
		t.Fatal(err)
	}
	if want := "margin, 4 games:\n-2 │██ 1\n 0 │\n+2 │██ 1\n+4 │████ 2\n"; even != want {
		t.Errorf("even margins: got\n%s\nwant\n%s", even, want)
	}
	wide := []int{-40, 0, 1, 39}
	text, err = HistogramText(wide, "margin", 10)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text, "-40..-37 │") || !strings.Contains(text, "+36..+39 │") {
		t.Errorf("wide spread not binned:\n%s", text)
	}
}

func TestHistogramSVG(t *testing.T) {
	var buf bytes.Buffer
	if err := HistogramSVG(&buf, "margins", "margin", []int{2, -1, 2, 4, 2}); err != nil {
		t.Fatal(err)
	}
	styles, data := svgPaths(t, buf.Bytes())
	// A bar a value from -1 to +4 (empty ones too, of no height).
	if got := filled(styles, data, "#1F77B4", true); got != 6 {
		t.Errorf("%d bars, want 6", got)
	}
}

func TestBarsAndStrips(t *testing.T) {
	var buf bytes.Buffer
	cats := []string{"a", "b", "c"}
	if err := BarsSVG(&buf, "bars", "win %", cats, []Series{{"ours", []float64{10, 20, 30}}, {"paper", []float64{5, 0, 50}}}); err != nil {
		t.Fatal(err)
	}
	styles, data := svgPaths(t, buf.Bytes())
	if got := filled(styles, data, "#1F77B4", true); got != 4 { // 3 bars, 1 legend
		t.Errorf("%d blue bars, want 3 and the legend's", got)
	}
	buf.Reset()
	if err := StripSVG(&buf, "strips", "margin", cats, []Strip{{"ours", [][]float64{{1, 1, 2}, {}, {-3}}}, {"paper", [][]float64{{0}, {4, 5}, {}}}}); err != nil {
		t.Fatal(err)
	}
	styles, data = svgPaths(t, buf.Bytes())
	if got := filled(styles, data, "#1F77B4", false); got != 5 { // 4 points, 1 legend
		t.Errorf("%d blue points, want 4 and the legend's", got)
	}
	if err := BarsSVG(io.Discard, "", "", cats, []Series{{"short", []float64{1}}}); err == nil {
		t.Error("a series shorter than the categories was drawn")
	}
}
