package chart

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"strings"

	"github.com/guptarohit/asciigraph"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Mark is how a move is judged by what it gave away.
type Mark int

// The marks a game's chart shows; the command decides which loss is which.
const (
	Good    Mark = iota // best, or within what the command calls an inaccuracy
	Mistake             // marked m on the terminal, an orange triangle in SVG
	Blunder             // marked B on the terminal, a red square in SVG
)

// Ply is one position of a game as the value chart draws it.
type Ply struct {
	// Value is the final store difference with best play from here, from
	// South's view (South's store less North's), in seeds.
	Value float64
	// Mark judges the move played from this position, and Loss is what it
	// gave away, in seeds; Mover is who played it ("South", "North").
	Mark  Mark
	Loss  int
	Mover string
}

// ErrNoData is returned for a chart with nothing to draw.
var ErrNoData = errors.New("nothing to draw")

// The marks' characters on the terminal, under the chart.
const (
	mistakeChar = 'm'
	blunderChar = 'B'
)

// GameText returns a game's value over its plies as terminal text: the
// curve (one column a ply, or squeezed into maxCols columns for a long
// game), under it a row with B below each blunder and m below each mistake,
// the ply axis, and a legend naming the marked plies.
func GameText(plies []Ply, maxCols int) (string, error) {
	n := len(plies)
	if n == 0 {
		return "", ErrNoData
	}
	vals := make([]float64, n)
	lo, hi := 0.0, 0.0 // the zero line is always in view
	for i, p := range plies {
		if !finite(p.Value) {
			return "", fmt.Errorf("ply %d: value %v: %w", i, p.Value, ErrNoData)
		}
		vals[i] = p.Value
		lo, hi = min(lo, p.Value), max(hi, p.Value)
	}
	cols := n
	switch {
	case maxCols > 1 && n > maxCols:
		cols = maxCols
	case n > 1 && maxCols >= 2*n-1:
		cols = 2*n - 1 // a short game two columns a ply, to be read easily
	}
	height := int(math.Ceil(hi - lo))
	height = min(max(height, 4), 12)
	opts := []asciigraph.Option{
		asciigraph.Height(height),
		asciigraph.LowerBound(lo), asciigraph.UpperBound(hi),
		asciigraph.Precision(0),
		asciigraph.YAxisValueFormatter(signed),
		asciigraph.XAxisRange(0, float64(n-1)),
		asciigraph.XAxisTickCount(min(n, max(2, 1+cols/8))),
		asciigraph.XAxisValueFormatter(func(v float64) string { return fmt.Sprintf("%.0f", v) }),
	}
	if cols != n {
		opts = append(opts, asciigraph.Width(cols))
	}
	if n == 1 {
		vals = append(vals, vals[0]) // asciigraph draws a line between points
		cols = 2
	}
	graph := asciigraph.Plot(vals, opts...)
	lines := strings.Split(graph, "\n")
	// The plies' columns start at the y axis (its ┤ or ┼), the same column
	// on every line of the curve; the x axis starts with └.
	axis, body := -1, len(lines)
	for i, l := range lines {
		r := []rune(l)
		if axis < 0 {
			for j, c := range r {
				if c == '┤' || c == '┼' {
					axis = j
					break
				}
			}
		}
		if strings.ContainsRune(l, '└') {
			body = i
			break
		}
	}
	if axis < 0 {
		return "", fmt.Errorf("the chart has no y axis: %w", ErrNoData)
	}
	marks := []rune(strings.Repeat(" ", axis+cols))
	var blunders, mistakes []string
	marked := false
	for i, p := range plies {
		col := axis + i
		if cols != n && n > 1 {
			col = axis + int(math.Round(float64(i)*float64(cols-1)/float64(n-1)))
		}
		what := fmt.Sprintf("%d (%s gave away %d)", i, p.Mover, p.Loss)
		switch p.Mark {
		case Blunder:
			marks[col] = blunderChar
			blunders = append(blunders, what)
			marked = true
		case Mistake:
			if marks[col] != blunderChar {
				marks[col] = mistakeChar
			}
			mistakes = append(mistakes, what)
			marked = true
		}
	}
	var b strings.Builder
	b.WriteString("value with best play from South's view, in seeds (above 0: South ahead)\n")
	for _, l := range lines[:body] {
		b.WriteString(l + "\n")
	}
	if marked {
		b.WriteString(strings.TrimRight(string(marks), " ") + "\n")
	}
	for _, l := range lines[body:] {
		b.WriteString(l + "\n")
	}
	b.WriteString(strings.Repeat(" ", axis) + "ply\n")
	if len(blunders) > 0 {
		fmt.Fprintf(&b, "%c %s %s\n", blunderChar, atPlies("blunder", len(blunders)), strings.Join(blunders, ", "))
	}
	if len(mistakes) > 0 {
		fmt.Fprintf(&b, "%c %s %s\n", mistakeChar, atPlies("mistake", len(mistakes)), strings.Join(mistakes, ", "))
	}
	if !marked {
		b.WriteString("no mistake or blunder\n")
	}
	return b.String(), nil
}

// GameSVG writes a game's value over its plies as an SVG figure: a line
// with one point a ply, each mistake an orange triangle and each blunder a
// red square, a legend, and the axes "ply" and the value from South's view
// in seeds.
func GameSVG(w io.Writer, title string, plies []Ply) error {
	n := len(plies)
	if n == 0 {
		return ErrNoData
	}
	all := make(plotter.XYs, n)
	var mistakes, blunders plotter.XYs
	lo, hi := 0.0, 0.0
	for i, p := range plies {
		if !finite(p.Value) {
			return fmt.Errorf("ply %d: value %v: %w", i, p.Value, ErrNoData)
		}
		all[i] = plotter.XY{X: float64(i), Y: p.Value}
		lo, hi = min(lo, p.Value), max(hi, p.Value)
		switch p.Mark {
		case Mistake:
			mistakes = append(mistakes, all[i])
		case Blunder:
			blunders = append(blunders, all[i])
		}
	}
	p := newPlot(title, "ply", "value from South's view (seeds)")
	p.Add(plotter.NewGrid())
	zero, err := hline(0, 0, float64(max(n-1, 1)), Gray, true)
	if err != nil {
		return err
	}
	p.Add(zero)
	// The marks first, so the line and the ply's own point are drawn over
	// them and every ply keeps its point.
	mk := func(xys plotter.XYs, shape draw.GlyphDrawer, c color.Color, r vg.Length) *plotter.Scatter {
		// Made by hand: NewScatter refuses no points, and an empty kind
		// keeps its entry in the legend all the same.
		return &plotter.Scatter{XYs: xys, GlyphStyle: draw.GlyphStyle{Color: c, Shape: shape, Radius: r}}
	}
	ms := mk(mistakes, draw.PyramidGlyph{}, Orange, vg.Points(6))
	bs := mk(blunders, draw.BoxGlyph{}, Red, vg.Points(5))
	line, err := plotter.NewLine(all)
	if err != nil {
		return err
	}
	line.Color = Blue
	line.Width = vg.Points(1.2)
	pts, err := plotter.NewScatter(all)
	if err != nil {
		return err
	}
	pts.GlyphStyle = draw.GlyphStyle{Color: Blue, Shape: draw.CircleGlyph{}, Radius: vg.Points(2)}
	p.Add(ms, bs, line, pts)
	p.Legend.Add(fmt.Sprintf("value (%d plies)", n), line, pts)
	p.Legend.Add(fmt.Sprintf("mistakes (%d)", len(mistakes)), ms)
	p.Legend.Add(fmt.Sprintf("blunders (%d)", len(blunders)), bs)
	p.X.Min, p.X.Max = 0, float64(max(n-1, 1))
	// Room above the curve for the legend.
	span := max(hi-lo, 4)
	p.Y.Min, p.Y.Max = lo-span*0.05, hi+span*0.35
	return writeSVG(w, p, figHeight)
}

// signed formats an axis label in whole seeds with its sign: +2, 0, -4.
func signed(v float64) string {
	if math.Round(v) == 0 {
		return "0"
	}
	return fmt.Sprintf("%+.0f", v)
}

// atPlies is "blunder at ply" for one, "blunders at plies" for more.
func atPlies(what string, n int) string {
	if n == 1 {
		return what + " at ply"
	}
	return what + "s at plies"
}
