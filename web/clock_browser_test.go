package web

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/chromedp/chromedp"

	"kalah"
)

// TestBrowserLostOnTime: a game on a clock shows both clocks, to the
// player and to a spectator, the one to move running; the person who lets
// theirs run out loses, told in words.
func TestBrowserLostOnTime(t *testing.T) {
	browserParallel(t)
	srv, _ := browserServer(t)
	// 15 s: the pages, a spectator's among them, open before Ann's first
	// move on a loaded machine (with 8 s the clock ran out first on CI's).
	c := startAs(t, srv.URL, "Ann", NewGame{Rules: kalah.Standard(), South: Human, North: "first", ClockMS: 15000, IncrementMS: 1000})
	ctx := browser(t, 900, 800)
	open(t, ctx, srv.URL+"/#/play")
	takeSeat(t, ctx, c.ID, 0, c.Tokens[0])
	open(t, ctx, srv.URL+"/#/game/"+c.ID)
	waitJS(t, ctx, `!document.querySelector("#clockbottom").hidden && document.querySelector("#clockbottom").classList.contains("running")`)
	if top := eval[string](t, ctx, `document.querySelector("#clocktop").textContent`); top != "0:15" {
		t.Errorf("the computer's clock shows %q before its first move", top)
	}
	// A spectator sees the same clocks, Ann's running.
	watcher, cancel := chromedp.NewContext(ctx, chromedp.WithNewBrowserContext())
	defer cancel()
	open(t, watcher, srv.URL+"/#/game/"+c.ID)
	waitJS(t, watcher, `document.querySelector("#clockbottom").classList.contains("running") && !document.querySelector("#clocktop").classList.contains("running")`)
	// A clock reads m:ss from ten seconds up, seconds and tenths below.
	const secs = `((s) => s.includes(":") ? 60*parseInt(s) + parseFloat(s.split(":")[1]) : parseFloat(s))(document.querySelector("#clockbottom").textContent)`
	first := eval[float64](t, watcher, secs)
	waitJS(t, watcher, fmt.Sprintf(`%s < %f`, secs, first))
	// Ann moves once and first replies (before both have moved, running
	// out of time only aborts the game); then she lets her time run out:
	// low-time colours, then the loss, in words.
	waitJS(t, ctx, `document.querySelector('button.pit[data-side="S"][data-house="1"]:not(:disabled)')`)
	click(t, ctx, `button.pit[data-side="S"][data-house="1"]`)
	waitJS(t, ctx, `document.querySelector("#moves").textContent.startsWith("1. 1 ")`)
	waitJS(t, ctx, `document.querySelector("#clockbottom").classList.contains("low")`)
	waitJS(t, ctx, `document.querySelector("#status").textContent.includes("You ran out of time")`)
	if got := eval[string](t, ctx, `document.querySelector("#status").textContent`); !regexp.MustCompile(`^first won, \d+–\d+ — You ran out of time; the \d+ seeds left on the board go to first: \d+–\d+$`).MatchString(got) {
		t.Errorf("status %q", got)
	}
	waitJS(t, watcher, `document.querySelector("#status").textContent.includes("Ann ran out of time")`)
	if bottom := eval[string](t, ctx, `document.querySelector("#clockbottom").textContent`); bottom != "0.0" {
		t.Errorf("Ann's clock shows %q at the end", bottom)
	}
	shot(t, ctx, "lost-on-time")
}
