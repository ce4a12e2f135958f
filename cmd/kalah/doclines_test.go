package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestDocsCountExampleLines keeps the line counts the docs give for the
// example bots true: docs/PROTOCOL.md's and the README's.
func TestDocsCountExampleLines(t *testing.T) {
	root := filepath.Join("..", "..")
	lines := func(rel string) int {
		b, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			t.Fatal(err)
		}
		return strings.Count(string(b), "\n")
	}
	for _, tc := range []struct {
		doc  string
		re   string // its submatch is the count said of file
		file string
	}{
		{"docs/PROTOCOL.md", `\[examples/bot\.py\]\(\.\./examples/bot\.py\) is (\d+) lines`, "examples/bot.py"},
		{"docs/PROTOCOL.md", `\[examples/gobot/main\.go\]\(\.\./examples/gobot/main\.go\) (\d+)\.`, "examples/gobot/main.go"},
		{"README.md", `examples/bot\.py .*# a complete bot in (\d+) lines`, "examples/bot.py"},
	} {
		b, err := os.ReadFile(filepath.Join(root, tc.doc))
		if err != nil {
			t.Fatal(err)
		}
		m := regexp.MustCompile(tc.re).FindSubmatch(b)
		if m == nil {
			t.Errorf("%s says no line count of %s (%s)", tc.doc, tc.file, tc.re)
			continue
		}
		if got, want := string(m[1]), lines(tc.file); got != strconv.Itoa(want) {
			t.Errorf("%s says %s is %s lines; it is %d", tc.doc, tc.file, got, want)
		}
	}
}
