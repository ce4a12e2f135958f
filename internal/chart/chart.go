// Package chart draws the pictures of the command line: a game's value over
// its plies, tournament ratings with their error bars, an SPRT's likelihood
// ratio against its bounds, histograms of match margins and the
// experiments' figures. Each takes plain data and either returns text for a
// terminal (drawn with asciigraph, or plain characters where a line chart
// is not the picture) or writes an SVG file (drawn with gonum's plot and its
// vgsvg backend), so that the commands only gather the numbers.
package chart

import (
	"fmt"
	"image/color"
	"io"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// The colours of the figures, one per kind of thing drawn, so that a
// reader (and a test) can tell a figure's elements apart.
var (
	Blue   = color.RGBA{0x1f, 0x77, 0xb4, 0xff} // a game's plies; our results
	Orange = color.RGBA{0xff, 0x7f, 0x0e, 0xff} // mistakes; the paper's results
	Red    = color.RGBA{0xd6, 0x27, 0x28, 0xff} // blunders; the upper bound
	Green  = color.RGBA{0x2c, 0xa0, 0x2c, 0xff} // the lower bound
	Purple = color.RGBA{0x94, 0x67, 0xbd, 0xff}
	Brown  = color.RGBA{0x8c, 0x56, 0x4b, 0xff}
	Gray   = color.RGBA{0x99, 0x99, 0x99, 0xff}
)

// palette is the series colours of bar and strip charts, in order.
var palette = []color.Color{Blue, Orange, Purple, Brown, Green, Red}

// The size of every SVG figure.
const (
	figWidth  = 16 * vg.Centimeter
	figHeight = 10 * vg.Centimeter
	margin    = 12 * vg.Millimeter / 3
)

func init() {
	// Liberation Sans, the metric twin of Arial and Helvetica: a viewer
	// without it draws text in one of those at the widths measured here.
	sans := font.Font{Typeface: "Liberation", Variant: "Sans"}
	plot.DefaultFont = sans
	plotter.DefaultFont = sans
}

// newPlot returns a plot with a title and axis labels in a readable size.
func newPlot(title, xlabel, ylabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = font.Length(13)
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	p.Title.Padding = vg.Points(6)
	p.Legend.Top = true
	p.Legend.TextStyle.Font.Size = font.Length(10)
	p.Legend.ThumbnailWidth = vg.Points(22)
	p.Legend.Padding = vg.Points(3)
	p.Legend.Left = true // text after the icons: a wider font than measured overlaps nothing
	p.Legend.XOffs = vg.Points(6)
	return p
}

// writeSVG draws p on an SVG canvas of the figures' size and writes it.
func writeSVG(w io.Writer, p *plot.Plot, height vg.Length) error {
	c := vgsvg.New(figWidth, height)
	// A margin for a viewer whose sans-serif font is wider than the one
	// measured: the fonts are named, not embedded (half a megabyte each).
	p.Draw(draw.Crop(draw.New(c), margin, -margin/2, margin/2, -margin/2))
	if _, err := c.WriteTo(w); err != nil {
		return fmt.Errorf("writing the SVG: %w", err)
	}
	return nil
}

// zeroLine returns a dashed grey horizontal line at y across [x0, x1].
func hline(y, x0, x1 float64, c color.Color, dashed bool) (*plotter.Line, error) {
	l, err := plotter.NewLine(plotter.XYs{{X: x0, Y: y}, {X: x1, Y: y}})
	if err != nil {
		return nil, err
	}
	l.Color = c
	l.Width = vg.Points(1)
	if dashed {
		l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	}
	return l, nil
}

// finite reports whether every value is a number that can be drawn.
func finite(vs ...float64) bool {
	for _, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}
