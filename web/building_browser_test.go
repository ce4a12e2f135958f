package web

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"

	"kalah"
	"kalah/engine"
)

// TestBrowserSaysDatabaseBuilding: while the perfect player's endgame
// database is being built on first use, /api/meta says so and every view
// of the page says it above the view, its percentage following the build
// (asked for again), and where a build stopped before resumed; once built, the page says that, and a page opened
// when nothing is built says nothing. The builds are the test's
// (Options.DBBuilds); engine's TestBuildDBOnFirstUse checks what
// engine.DBBuilds, the default, tells of a real build.
func TestBrowserSaysDatabaseBuilding(t *testing.T) {
	browserParallel(t)
	var mu sync.Mutex
	var builds []engine.DBBuild
	set := func(b ...engine.DBBuild) {
		mu.Lock()
		defer mu.Unlock()
		builds = b
	}
	build := func(ecap bool, pct uint64) engine.DBBuild {
		r := kalah.Standard()
		r.EmptyCapture = ecap
		return engine.DBBuild{Rules: r, Seeds: 24, Path: "x", Done: pct * 1000, Total: 100 * 1000}
	}
	srv, _ := browserServerWith(t, func(context.Context) Options {
		return Options{DBBuilds: func() []engine.DBBuild {
			mu.Lock()
			defer mu.Unlock()
			return append([]engine.DBBuild(nil), builds...)
		}}
	})

	set(build(false, 40))
	resp, err := http.Get(srv.URL + "/api/meta")
	if err != nil {
		t.Fatal(err)
	}
	var m Meta
	err = json.NewDecoder(resp.Body).Decode(&m)
	resp.Body.Close()
	if err != nil || len(m.Building) != 1 || m.Building[0] != (Building{Seeds: 24, Percent: 40}) {
		t.Fatalf("/api/meta during a build: %+v, %v", m.Building, err)
	}

	ctx := browser(t, 900, 700)
	notice := `document.querySelector("#notice")`
	shown := func(want string) {
		t.Helper()
		waitJS(t, ctx, `!`+notice+`.hidden && `+notice+`.textContent.includes(`+jsString(want)+`)`)
	}
	for _, view := range []string{"?1#/play", "?2#/analyze"} {
		open(t, ctx, srv.URL+"/"+view)
		shown("endgame database (24 seeds, once): 40%")
	}
	shot(t, ctx, "building")
	axe, err := os.ReadFile(filepath.Join("testdata", "axe", "axe.min.js"))
	if err != nil {
		t.Fatal(err)
	}
	for _, theme := range []string{"light", "dark"} {
		eval[bool](t, ctx, `(localStorage.setItem("kalah.theme", "`+theme+`"), true)`)
		open(t, ctx, srv.URL+"/?"+theme+"#/lobby")
		shown("40%")
		eval[bool](t, ctx, string(axe)+";true")
		v, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](axeRun, chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatalf("axe: %v", err)
		}
		for _, f := range v {
			t.Errorf("%s, the notice shown: %s", theme, f)
		}
	}

	other := build(true, 0)
	other.Elsewhere = true
	resumed := build(false, 70)
	resumed.From = 40 * 1000 // a build stopped at 40% (the server restarted) went on from there
	set(resumed, other)
	eval[bool](t, ctx, `window.kalahCheckBuilding(), true`)
	shown("(24 seeds, once): 70%, resumed from 40% where the server stopped it.")
	shown("its progress is kept if the server stops")
	shown("Another program on the server is building the perfect player's endgame database for empty capture (24 seeds, once).")

	set()
	eval[bool](t, ctx, `window.kalahCheckBuilding(), true`)
	shown("database is built:")
	if text := eval[string](t, ctx, notice+`.textContent`); strings.Contains(text, "%") {
		t.Errorf("after the build the page says %q", text)
	}

	open(t, ctx, srv.URL+"/?again#/play") // a new load, not a new fragment
	if !eval[bool](t, ctx, notice+`.hidden`) {
		t.Errorf("with nothing built, the page says %q", eval[string](t, ctx, notice+`.textContent`))
	}
}

// jsString quotes s for JavaScript.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
