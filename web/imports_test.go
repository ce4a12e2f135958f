package web

import (
	"go/build"
	"strings"
	"testing"
)

// TestNoServerWork: the page is the page, its static files and thin
// handlers; the server's work (tournaments and their games, matches, the
// store) lives in package server. Its non-test files import none of the
// packages that do that work, as `go list -f '{{join .Imports " "}}'
// ./web` shows too.
func TestNoServerWork(t *testing.T) {
	pkg, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(pkg.Imports) == 0 {
		t.Fatal("no imports read")
	}
	for _, imp := range pkg.Imports {
		for _, banned := range []string{"kalah/tournament", "kalah/match", "kalah/internal/store"} {
			if imp == banned || strings.HasPrefix(imp, banned+"/") {
				t.Errorf("package web imports %s: that work is the server's", imp)
			}
		}
	}
}
