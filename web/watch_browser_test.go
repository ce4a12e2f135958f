package web

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"kalah"
)

// TestBrowserWatchFilters: the list of games filters live and finished
// games, by rules and by player; a live game shows a small board and how
// many watch it.
func TestBrowserWatchFilters(t *testing.T) {
	srv, h := browserServer(t)
	done, err := startGame(h, NewGame{Rules: kalah.Rules{Houses: 3, Seeds: 2}, South: "first", North: "greedy"})
	if err != nil {
		t.Fatal(err)
	}
	for {
		if b, err := boardOf(h, done.ID); err != nil || b.Over {
			break
		}
	}
	live := startAs(t, srv.URL, "Ann", NewGame{Rules: kalah.Standard(), South: Human, North: "greedy"})
	// Someone watches Ann's game.
	ctx := browser(t, 900, 800)
	watcher, cancel := chromedp.NewContext(ctx, chromedp.WithNewBrowserContext())
	defer cancel()
	open(t, watcher, srv.URL+"/#/game/"+live.ID)
	open(t, ctx, srv.URL+"/#/watch")
	waitJS(t, ctx, `document.querySelectorAll("#gamelist li.gameline").length === 2`)
	waitJS(t, ctx, `[...document.querySelectorAll("#gamelist li")].some(li => li.textContent.includes("Ann vs greedy") && li.querySelector(".mini") && /\d+ watching/.test(li.textContent))`)
	set := func(sel, v string) {
		eval[bool](t, ctx, `(() => { const e = document.querySelector("`+sel+`"); e.value = "`+v+`"; e.dispatchEvent(new Event("change")); return true })()`)
	}
	set("#wstatus", "finished")
	waitJS(t, ctx, `document.querySelectorAll("#gamelist li.gameline").length === 1 && document.querySelector("#gamelist li").textContent.includes("first vs greedy")`)
	set("#wstatus", "")
	set("#wplayer", "Ann")
	waitJS(t, ctx, `document.querySelectorAll("#gamelist li.gameline").length === 1 && document.querySelector("#gamelist li").textContent.includes("Ann vs greedy")`)
	set("#wplayer", "")
	set("#wrules", "kalah")
	waitJS(t, ctx, `document.querySelectorAll("#gamelist li.gameline").length === 1`)
	if txt := eval[string](t, ctx, `document.querySelector("#gamelist").textContent`); !strings.Contains(txt, "Ann vs greedy") {
		t.Errorf("kalah's games: %q", txt)
	}
	shot(t, ctx, "watch-filters")
}
