package web

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoServerWork: the page is the page, its static files and thin
// handlers; the server's work (its games, tournaments and matches, bots'
// programs, the store) lives in package server and below it. Not one of
// those packages is among web's dependencies, direct or not, as
// `go list -deps ./web` shows: the page reaches the server through the
// small interfaces of Options and answers through internal/httpapi.
func TestNoServerWork(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to list the dependencies with")
	}
	out, err := exec.Command(goTool, "list", "-deps", "kalah/web").Output()
	if err != nil {
		t.Fatalf("go list -deps kalah/web: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 {
		t.Fatalf("go list gave %d packages: %q", len(deps), out)
	}
	banned := []string{"kalah/server", "kalah/tournament", "kalah/match", "kalah/internal/proc", "kalah/internal/store"}
	for _, dep := range deps {
		for _, b := range banned {
			if dep == b || strings.HasPrefix(dep, b+"/") {
				t.Errorf("package web depends on %s: that work is the server's", dep)
			}
		}
	}
}
