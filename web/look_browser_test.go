package web

import (
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"kalah"
)

// TestBrowserMoveListThemeSound: on a game's page the move list is made
// of links to the positions, the one shown marked; Home and End go to the
// start and the end; the theme switch turns the page dark (and back to
// the system's), and moves make sounds unless the sound is off.
func TestBrowserMoveListThemeSound(t *testing.T) {
	srv, h := browserServer(t)
	c, err := startGame(h, NewGame{Rules: kalah.Rules{Houses: 3, Seeds: 2}, South: "first", North: "greedy"})
	if err != nil {
		t.Fatal(err)
	}
	for {
		if b, err := boardOf(h, c.ID); err != nil || b.Over {
			break
		}
	}
	ctx := browser(t, 900, 800)
	open(t, ctx, srv.URL+"/#/game/"+c.ID)
	waitJS(t, ctx, `document.querySelectorAll("#moves .mv").length > 2 && document.querySelector("#moves .mv.cur")`)
	n := eval[int](t, ctx, `document.querySelectorAll("#moves .mv").length`)
	if cur := eval[string](t, ctx, `document.querySelector("#moves .mv.cur").dataset.k`); cur != itoa(int64(n)) {
		t.Errorf("the last move is not marked: %s of %d", cur, n)
	}
	click(t, ctx, `#moves .mv[data-k="2"]`)
	waitJS(t, ctx, `document.querySelector("#status").textContent === "Move 2 of `+itoa(int64(n))+`" && document.querySelector("#moves .mv.cur").dataset.k === "2"`)
	if err := chromedp.Do(ctx, chromedp.KeyEvent(kb.Home)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, `document.querySelector("#status").textContent === "Move 0 of `+itoa(int64(n))+`" && !document.querySelector("#moves .mv.cur")`)
	if err := chromedp.Do(ctx, chromedp.KeyEvent(kb.End)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, `document.querySelector("#moves .mv.cur").dataset.k === "`+itoa(int64(n))+`"`)
	// The page claims the keys it steps with: the browser does not also
	// scroll (a smooth scroll still running moved the buttons away from
	// under the mouse).
	for _, key := range []string{"ArrowLeft", "ArrowRight", "Home", "End"} {
		if !eval[bool](t, ctx, `(() => { const e = new KeyboardEvent("keydown", {key: "`+key+`", bubbles: true, cancelable: true}); document.body.dispatchEvent(e); return e.defaultPrevented; })()`) {
			t.Errorf("%s steps through the moves and also scrolls the page", key)
		}
	}

	// The theme: system, then dark, then light.
	light := eval[string](t, ctx, `getComputedStyle(document.body).backgroundColor`)
	click(t, ctx, "#themebtn")
	waitJS(t, ctx, `document.documentElement.dataset.theme === "dark" && document.querySelector("#themebtn").textContent === "Theme: dark"`)
	if dark := eval[string](t, ctx, `getComputedStyle(document.body).backgroundColor`); dark == light {
		t.Errorf("dark theme, same background %s", dark)
	}
	shot(t, ctx, "dark-game")
	click(t, ctx, "#themebtn")
	waitJS(t, ctx, `document.documentElement.dataset.theme === "light"`)

	// Sounds: a live game's moves sound unless muted.
	live, err := startGame(h, NewGame{Rules: kalah.Standard(), South: "first", North: "greedy", DelayMS: 150})
	if err != nil {
		t.Fatal(err)
	}
	open(t, ctx, srv.URL+"/#/game/"+live.ID)
	waitJS(t, ctx, `(window.kalahSounds || []).length >= 2`)
	click(t, ctx, "#soundbtn")
	waitJS(t, ctx, `document.querySelector("#soundbtn").textContent === "Sound: off"`)
	before := eval[int](t, ctx, `window.kalahSounds.length`)
	moves := eval[int](t, ctx, `document.querySelectorAll("#moves .mv").length`)
	waitJS(t, ctx, `document.querySelectorAll("#moves .mv").length > `+itoa(int64(moves+2)))
	if after := eval[int](t, ctx, `window.kalahSounds.length`); after != before {
		t.Errorf("muted, yet %d sounds", after-before)
	}
}
