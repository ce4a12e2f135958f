package chart

import (
	"fmt"
	"io"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/guptarohit/asciigraph"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Rated is one player's rating: Elo and the half width of its interval.
type Rated struct {
	Name string
	Elo  float64
	Err  float64
}

// span returns the least and the most of the players' intervals, with 0.
func span(rs []Rated) (lo, hi float64) {
	for _, r := range rs {
		lo, hi = min(lo, r.Elo-r.Err), max(hi, r.Elo+r.Err)
	}
	return lo, hi
}

// EloText returns the players' ratings as terminal text, a line each on
// one scale cols characters wide: the interval ├───┤, the rating ●, and
// the zero (the players' mean) as │ where no interval covers it.
func EloText(rs []Rated, cols int) (string, error) {
	if len(rs) == 0 {
		return "", ErrNoData
	}
	cols = max(cols, 20)
	lo, hi := span(rs)
	for _, r := range rs {
		if !finite(r.Elo, r.Err) {
			return "", fmt.Errorf("%s: Elo %v ± %v: %w", r.Name, r.Elo, r.Err, ErrNoData)
		}
	}
	if hi-lo < 1 {
		lo, hi = lo-1, hi+1
	}
	col := func(v float64) int {
		return min(max(int(math.Round((v-lo)/(hi-lo)*float64(cols-1))), 0), cols-1)
	}
	nameW := 0
	for _, r := range rs {
		nameW = max(nameW, utf8.RuneCountInString(r.Name))
	}
	var b strings.Builder
	for _, r := range rs {
		line := []rune(strings.Repeat(" ", cols))
		line[col(0)] = '│'
		a, z := col(r.Elo-r.Err), col(r.Elo+r.Err)
		for i := a; i <= z; i++ {
			line[i] = '─'
		}
		line[a], line[z] = '├', '┤'
		line[col(r.Elo)] = '●'
		fmt.Fprintf(&b, "%-*s %+6.0f ±%-4.0f %s\n", nameW, r.Name, r.Elo, r.Err, strings.TrimRight(string(line), " "))
	}
	left, right := fmt.Sprintf("%+.0f", lo), fmt.Sprintf("%+.0f", hi)
	pad := strings.Repeat(" ", nameW+14)
	fmt.Fprintf(&b, "%s%s%s%s\n", pad, left, strings.Repeat(" ", max(cols-len(left)-len(right), 1)), right)
	fmt.Fprintf(&b, "%sElo (● the rating, ├─┤ its 95%% interval, │ the mean 0)\n", pad)
	return b.String(), nil
}

// EloSVG writes the players' ratings as an SVG figure: a point each with
// its interval as an error bar, a row a player (the first at the top).
func EloSVG(w io.Writer, title string, rs []Rated) error {
	if len(rs) == 0 {
		return ErrNoData
	}
	n := len(rs)
	pts := make(plotter.XYs, n)
	errs := make(plotter.Errors, n)
	names := make([]string, n)
	for i, r := range rs {
		if !finite(r.Elo, r.Err) {
			return fmt.Errorf("%s: Elo %v ± %v: %w", r.Name, r.Elo, r.Err, ErrNoData)
		}
		y := float64(n - 1 - i)
		pts[i] = plotter.XY{X: r.Elo, Y: y}
		errs[i] = struct{ Low, High float64 }{r.Err, r.Err}
		names[n-1-i] = r.Name
	}
	p := newPlot(title, "Elo (the players' mean is 0), with 95% intervals", "")
	bars, err := plotter.NewXErrorBars(struct {
		plotter.XYer
		plotter.XErrorer
	}{pts, xErrors(errs)})
	if err != nil {
		return err
	}
	bars.Color = Blue
	bars.Width = vg.Points(1.5)
	bars.CapWidth = vg.Points(8)
	s, err := plotter.NewScatter(pts)
	if err != nil {
		return err
	}
	s.GlyphStyle = draw.GlyphStyle{Color: Blue, Shape: draw.CircleGlyph{}, Radius: vg.Points(3.5)}
	lo, hi := span(rs)
	zero, err := plotter.NewLine(plotter.XYs{{X: 0, Y: -0.5}, {X: 0, Y: float64(n) - 0.5}})
	if err != nil {
		return err
	}
	zero.Color, zero.Dashes = Gray, []vg.Length{vg.Points(4), vg.Points(3)}
	p.Add(plotter.NewGrid(), zero, bars, s)
	p.NominalY(names...)
	pad := max((hi-lo)*0.08, 10)
	p.X.Min, p.X.Max = lo-pad, hi+pad
	p.Y.Min, p.Y.Max = -0.5, float64(n)-0.5
	return writeSVG(w, p, max(figHeight/2, vg.Length(n)*vg.Centimeter+3*vg.Centimeter))
}

// xErrors is Errors as an XErrorer.
type xErrors plotter.Errors

func (e xErrors) XError(i int) (float64, float64) { return e[i].Low, e[i].High }

// SPRTText returns an SPRT's log-likelihood ratio after each game as
// terminal text, between its two bounds (the line at the top accepts H1,
// the one at the bottom H0).
func SPRTText(llr []float64, lower, upper float64, cols int) (string, error) {
	if len(llr) == 0 {
		return "", ErrNoData
	}
	if !finite(lower, upper) || !finite(llr...) {
		return "", fmt.Errorf("the likelihood ratio or its bounds are not numbers: %w", ErrNoData)
	}
	n := len(llr)
	series := llr
	if n == 1 {
		series = []float64{llr[0], llr[0]}
	}
	width := len(series)
	if cols > 1 && width > cols {
		width = cols
	}
	up := make([]float64, width)
	down := make([]float64, width)
	for i := range up {
		up[i], down[i] = upper, lower
	}
	line := series
	if width != len(series) {
		line = resample(series, width)
	}
	g := asciigraph.PlotMany([][]float64{up, line, down},
		asciigraph.Height(10),
		asciigraph.Precision(1),
		asciigraph.SeriesChars(asciigraph.CreateCharSet("╌"), asciigraph.DefaultCharSet, asciigraph.CreateCharSet("╌")),
		asciigraph.XAxisRange(1, float64(n)),
		asciigraph.XAxisTickCount(min(n, max(2, 1+width/10))),
		asciigraph.XAxisValueFormatter(func(v float64) string { return fmt.Sprintf("%.0f", v) }),
	)
	return fmt.Sprintf("SPRT log-likelihood ratio over the games played: H1 accepted at %.2f (the top ╌), H0 at %.2f (the bottom ╌)\n%s\n",
		upper, lower, g), nil
}

// resample takes n values evenly from vs, the first and the last among
// them, for a series longer than the terminal is wide.
func resample(vs []float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = vs[int(math.Round(float64(i)*float64(len(vs)-1)/float64(n-1)))]
	}
	return out
}

// SPRTSVG writes an SPRT's log-likelihood ratio after each game as an SVG
// figure, with its bounds as two horizontal lines.
func SPRTSVG(w io.Writer, title string, llr []float64, lower, upper float64) error {
	if len(llr) == 0 {
		return ErrNoData
	}
	if !finite(lower, upper) || !finite(llr...) {
		return fmt.Errorf("the likelihood ratio or its bounds are not numbers: %w", ErrNoData)
	}
	n := len(llr)
	xys := make(plotter.XYs, n)
	lo, hi := min(lower, 0), max(upper, 0)
	for i, v := range llr {
		xys[i] = plotter.XY{X: float64(i + 1), Y: v}
		lo, hi = min(lo, v), max(hi, v)
	}
	p := newPlot(title, "games", "log-likelihood ratio")
	line, err := plotter.NewLine(xys)
	if err != nil {
		return err
	}
	line.Color, line.Width = Blue, vg.Points(1.5)
	x1 := float64(max(n, 2))
	up, err := hline(upper, 1, x1, Red, true)
	if err != nil {
		return err
	}
	down, err := hline(lower, 1, x1, Green, true)
	if err != nil {
		return err
	}
	p.Add(plotter.NewGrid(), up, down, line)
	p.Legend.Add("log-likelihood ratio", line)
	p.Legend.Add(fmt.Sprintf("accept H1 at %.2f", upper), up)
	p.Legend.Add(fmt.Sprintf("accept H0 at %.2f", lower), down)
	p.X.Min, p.X.Max = 1, x1
	p.Y.Min, p.Y.Max = lo-(hi-lo)*0.05, hi+(hi-lo)*0.3
	return writeSVG(w, p, figHeight)
}
