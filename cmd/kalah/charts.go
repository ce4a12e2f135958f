package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/charmbracelet/x/term"

	"kalah/internal/datadir"
)

// chartFlags are the flags of the commands that draw: --chart and
// --no-chart for the picture on the terminal, --plot for an SVG file (or,
// for kalah experiment, a directory of them).
type chartFlags struct {
	on, off bool
	plot    string
}

// addChartFlags adds --chart, --no-chart and, if plotUsage is not empty,
// --plot with that usage.
func addChartFlags(fs *flag.FlagSet, what, plotUsage string) *chartFlags {
	c := &chartFlags{}
	fs.BoolVar(&c.on, "chart", false, "draw "+what+" on standard output even when it is not a terminal (by default only on a terminal)")
	fs.BoolVar(&c.off, "no-chart", false, "do not draw "+what+" on the terminal: the table only")
	if plotUsage != "" {
		fs.StringVar(&c.plot, "plot", "", plotUsage)
	}
	return c
}

// check refuses --chart with --no-chart.
func (c *chartFlags) check() error {
	if c.on && c.off {
		return usagef("--chart and --no-chart: give one")
	}
	return nil
}

// terminal reports whether to draw on standard output: asked with --chart,
// or standard output is a terminal and --no-chart is not given. A piped
// run keeps its plain table.
func (c *chartFlags) terminal(e *env) bool {
	if c.on || c.off {
		return c.on
	}
	return stderrIsTerminal(e.stdout)
}

// chartCols is how wide a terminal chart may be: the terminal's width less
// the room of its labels, or 72 columns when it is not a terminal.
func chartCols(e *env, labels int) int {
	cols := 80
	if f, ok := e.stdout.(*os.File); ok && stderrIsTerminal(f) {
		if w, _, err := term.GetSize(f.Fd()); err == nil && w > 0 {
			cols = w
		}
	}
	return max(cols-labels, 20)
}

// writePlot writes an SVG file whole (a failed drawing leaves no file),
// saying where on standard error.
func writePlot(e *env, path string, draw func(io.Writer) error) error {
	if err := datadir.WriteFile(path, 0o644, draw); err != nil {
		return fmt.Errorf("--plot %s: %w", path, err)
	}
	e.note("wrote %s", path)
	return nil
}

// checkPlotFile refuses a --plot file that is not .svg, before any work.
func checkPlotFile(path string) error {
	if path != "" && !strings.EqualFold(filepath.Ext(path), ".svg") {
		return usagef("--plot %s: the figure is SVG; give a file name ending in .svg", path)
	}
	return nil
}

// printChart writes a terminal chart after the table, or says on standard
// error why there is none.
func printChart(e *env, draw func() (string, error)) {
	text, err := draw()
	if err != nil {
		e.log.Warn("no chart: " + err.Error())
		return
	}
	fmt.Fprintln(e.stdout)
	fmt.Fprint(e.stdout, text)
}
