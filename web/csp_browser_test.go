package web

import (
	"context"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"kalah"
)

// TestBrowserContentSecurityPolicy: under the page's own
// Content-Security-Policy (no style attributes, no inline script) every
// section the page draws works and the browser reports no violation: the
// boards get their sizes and the small boards of the lists their grid,
// which the page sets through the CSSOM rather than style attributes.
func TestBrowserContentSecurityPolicy(t *testing.T) {
	srv, h := browserServer(t)
	live, err := startGame(h, NewGame{Rules: kalah.Standard(), South: "human", North: "greedy"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := browser(t, 1200, 900)
	// Before any page script runs (DevTools' scripts are not held to the
	// policy): keep every violation the page causes.
	collect := `window.cspViolations = []; document.addEventListener("securitypolicyviolation", e => window.cspViolations.push(e.violatedDirective + " " + (e.sample || e.blockedURI)));`
	if err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: collect})
		return err
	})); err != nil {
		t.Fatal(err)
	}
	open(t, ctx, srv.URL+"/#/lobby")
	if m := eval[string](t, ctx, `getComputedStyle(document.querySelector("header .row.hright")).marginLeft`); m == "0px" {
		t.Errorf("the header's buttons are not pushed right (margin-left %s): their style was refused", m)
	}
	open(t, ctx, srv.URL+"/#/game/"+live.ID)
	waitJS(t, ctx, `document.querySelector(".board:not(.ghost) .pit")`)
	if n := eval[string](t, ctx, `getComputedStyle(document.querySelector(".board:not(.ghost)")).getPropertyValue("--n").trim()`); n != "6" {
		t.Errorf("the board's --n is %q, want 6: its style was refused", n)
	}
	open(t, ctx, srv.URL+"/#/watch")
	waitJS(t, ctx, `document.querySelector(".mini")`)
	if g := eval[string](t, ctx, `document.querySelector(".mini").style.gridTemplateColumns`); g == "" {
		t.Error("the small board has no grid: its style was refused")
	}
	for _, section := range []string{"play", "analyze", "tournaments", "ratings", "account"} {
		open(t, ctx, srv.URL+"/#/"+section)
	}
	if v := eval[[]string](t, ctx, `window.cspViolations`); len(v) != 0 {
		t.Errorf("the browser refused under the page's policy: %v", v)
	}
}
