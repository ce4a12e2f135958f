package chart

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// bins groups integer values into bins of one width: one a value for a
// narrow spread, wider ones (at most about maxBins) otherwise. Where every
// value is even (a margin of seeds when there is an even number in all)
// the values step by 2 and a bin takes whole steps. It returns each bin's
// first value and count, the bins' width and the step.
func bins(values []int, maxBins int) (starts []int, counts []int, width, step int) {
	lo, hi := slices.Min(values), slices.Max(values)
	step = 2
	for _, v := range values {
		if v%2 != 0 {
			step = 1
		}
	}
	width = step * max(1, int(math.Ceil(float64(hi-lo+step)/float64(step*maxBins))))
	// Bins aligned on multiples of the width, so 0 starts one.
	first := int(math.Floor(float64(lo)/float64(width))) * width
	for s := first; s <= hi; s += width {
		starts = append(starts, s)
		counts = append(counts, 0)
	}
	for _, v := range values {
		counts[(v-first)/width]++
	}
	return starts, counts, width, step
}

// binLabel names a bin: "+4", or "+4..+7" for a wider one.
func binLabel(start, width, step int) string {
	if width == step {
		return signed(float64(start))
	}
	return signed(float64(start)) + ".." + signed(float64(start+width-step))
}

// HistogramText returns a histogram of integer values (a match's margins)
// as terminal text: a row a value (or a range of values, for a wide
// spread) with a bar as long as its count, the longest cols characters.
func HistogramText(values []int, what string, cols int) (string, error) {
	if len(values) == 0 {
		return "", ErrNoData
	}
	cols = max(cols, 4)
	starts, counts, width, step := bins(values, 25)
	most := slices.Max(counts)
	labelW := 0
	for _, s := range starts {
		labelW = max(labelW, len(binLabel(s, width, step)))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s, %d games:\n", what, len(values))
	for i, s := range starts {
		bar := strings.Repeat("█", (counts[i]*cols+most-1)/most)
		n := ""
		if counts[i] > 0 {
			n = fmt.Sprintf(" %d", counts[i])
		}
		fmt.Fprintf(&b, "%*s │%s%s\n", labelW, binLabel(s, width, step), bar, n)
	}
	return b.String(), nil
}

// HistogramSVG writes a histogram of integer values (a match's margins) as
// an SVG figure: a bar a value (or a range of values), its height the
// number of games, and a dashed line at 0.
func HistogramSVG(w io.Writer, title, xlabel string, values []int) error {
	if len(values) == 0 {
		return ErrNoData
	}
	starts, counts, width, step := bins(values, 40)
	h := &plotter.Histogram{Width: float64(width), FillColor: Blue}
	h.LineStyle = draw.LineStyle{Color: darker(Blue), Width: vg.Points(0.5)}
	most := 0
	for i, s := range starts {
		left := float64(s) - float64(step)/2
		h.Bins = append(h.Bins, plotter.HistogramBin{Min: left, Max: left + float64(width), Weight: float64(counts[i])})
		most = max(most, counts[i])
	}
	p := newPlot(title, xlabel, "games")
	zero, err := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: 0, Y: float64(most) * 1.1}})
	if err != nil {
		return err
	}
	zero.Color, zero.Dashes = Gray, []vg.Length{vg.Points(4), vg.Points(3)}
	p.Add(plotter.NewGrid(), h, zero)
	lo := float64(starts[0]) - float64(step)/2
	hi := float64(starts[len(starts)-1]+width) - float64(step)/2
	p.X.Min, p.X.Max = min(lo, -0.5)-0.5, max(hi, 0.5)+0.5
	p.Y.Min, p.Y.Max = 0, float64(most)*1.1
	p.Y.Tick.Marker = intTicks{}
	return writeSVG(w, p, figHeight)
}

// darker returns the colour at two thirds of its brightness.
func darker(c color.RGBA) color.RGBA {
	return color.RGBA{c.R / 3 * 2, c.G / 3 * 2, c.B / 3 * 2, c.A}
}

// intTicks marks whole numbers only (counts of games).
type intTicks struct{}

func (intTicks) Ticks(lo, hi float64) []plot.Tick {
	step := max(1, math.Ceil((hi-lo)/8))
	var ts []plot.Tick
	for v := math.Ceil(lo); v <= hi; v += step {
		ts = append(ts, plot.Tick{Value: v, Label: fmt.Sprint(v)})
	}
	return ts
}

// Series is one set of bars of a grouped bar chart: a value a category.
type Series struct {
	Name   string
	Values []float64
}

// BarsSVG writes a grouped bar chart: a group a category, a bar in each
// for each series (in the palette's colours), and a legend.
func BarsSVG(w io.Writer, title, ylabel string, categories []string, series []Series) error {
	if len(categories) == 0 || len(series) == 0 {
		return ErrNoData
	}
	p := newPlot(title, "", ylabel)
	p.Add(plotter.NewGrid())
	width := vg.Points(math.Min(60, 300/float64(len(categories)*len(series))))
	top := 0.0
	for k, s := range series {
		if len(s.Values) != len(categories) {
			return fmt.Errorf("series %q: %d values for %d categories", s.Name, len(s.Values), len(categories))
		}
		if !finite(s.Values...) {
			return fmt.Errorf("series %q: %w", s.Name, ErrNoData)
		}
		bc, err := plotter.NewBarChart(plotter.Values(s.Values), width)
		if err != nil {
			return err
		}
		bc.Color = palette[k%len(palette)]
		bc.LineStyle.Width = 0
		bc.Offset = vg.Length(float64(k)-float64(len(series)-1)/2) * width
		p.Add(bc)
		p.Legend.Add(s.Name, bc)
		top = max(top, slices.Max(s.Values))
	}
	p.NominalX(categories...)
	p.Y.Min = 0
	p.Y.Max = top * 1.35 // room for the legend
	if top == 0 {
		p.Y.Max = 1
	}
	return writeSVG(w, p, figHeight)
}

// Strip is one set of points of a strip chart: for each category, its
// values, drawn as points in the category's column.
type Strip struct {
	Name   string
	Points [][]float64
}

// StripSVG writes a strip chart: a column a category, each series' values
// as points beside each other in it (spread a little sideways so equal
// values stay visible), a dashed line at 0 and a legend.
func StripSVG(w io.Writer, title, ylabel string, categories []string, series []Strip) error {
	if len(categories) == 0 || len(series) == 0 {
		return ErrNoData
	}
	p := newPlot(title, "", ylabel)
	p.Add(plotter.NewGrid())
	glyphs := []draw.GlyphDrawer{draw.CircleGlyph{}, draw.PyramidGlyph{}, draw.RingGlyph{}, draw.TriangleGlyph{}, draw.BoxGlyph{}, draw.SquareGlyph{}}
	lo, hi := 0.0, 0.0
	step := 0.8 / float64(len(series))
	for k, s := range series {
		if len(s.Points) != len(categories) {
			return fmt.Errorf("series %q: %d columns for %d categories", s.Name, len(s.Points), len(categories))
		}
		var xys plotter.XYs
		for c, vs := range s.Points {
			if !finite(vs...) {
				return fmt.Errorf("series %q: %w", s.Name, ErrNoData)
			}
			x0 := float64(c) - 0.4 + step*(float64(k)+0.5)
			seen := map[float64]int{}
			for _, v := range vs {
				// Equal values side by side, a little apart.
				off := float64(seen[v]) * step / 8
				if seen[v]%2 == 1 {
					off = -off
				}
				seen[v]++
				xys = append(xys, plotter.XY{X: x0 + off, Y: v})
				lo, hi = min(lo, v), max(hi, v)
			}
		}
		sc := &plotter.Scatter{XYs: xys, GlyphStyle: draw.GlyphStyle{Color: palette[k%len(palette)], Shape: glyphs[k%len(glyphs)], Radius: vg.Points(3)}}
		p.Add(sc)
		p.Legend.Add(s.Name, sc)
	}
	zero, err := hline(0, -0.5, float64(len(categories))-0.5, Gray, true)
	if err != nil {
		return err
	}
	p.Add(zero)
	p.NominalX(categories...)
	p.X.Min, p.X.Max = -0.5, float64(len(categories))-0.5
	span := max(hi-lo, 1)
	p.Y.Min, p.Y.Max = lo-span*0.05, hi+span*0.4
	return writeSVG(w, p, figHeight)
}
