package web

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"kalah"
	"kalah/server"
)

// smallTargets is JavaScript listing the controls of the page shown that
// are less than 44 px either way: buttons, selects, inputs, text areas,
// summaries, the navigation's links and tabs. A checkbox's or radio
// button's target is its label (a click there checks it); a house's or
// a store's number input on the analysis board, its house or store (a
// click there focuses it). Links inside sentences are not targets of their own (WCAG 2.5.8's
// inline exception).
const smallTargets = `(() => {
	const out = [];
	const shown = el => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0 && getComputedStyle(el).visibility !== "hidden"; };
	for (const el of document.querySelectorAll("button, select, input, textarea, summary, nav a, .tabs a, [role=tab]")) {
		if (!shown(el) || el.closest("[aria-hidden=true], .skip")) continue;
		let box = el;
		if (el.matches("input[type=checkbox], input[type=radio]") && el.closest("label")) box = el.closest("label");
		if (el.matches(".board input.edit")) box = el.closest(".pit, .store");
		const r = box.getBoundingClientRect();
		if (Math.min(r.width, r.height) < 44 - 0.5) out.push(el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") + (el.className ? "." + String(el.className).split(" ")[0] : "") +
			" «" + (el.textContent || el.value || el.getAttribute("aria-label") || "").trim().slice(0, 20) + "» " + Math.round(r.width) + "x" + Math.round(r.height));
	}
	return out.slice(0, 12);
})()`

// TestBrowserPhoneTargets: on a 360 px phone every control of every page
// is at least 44 px either way (issue 45: game buttons 40, nav links 34,
// Theme and Sound 31, selects 23, checkboxes 13), and a game's board of
// any size up to 16 houses stands with its game's buttons within one
// screen of 360x640, every house 44 px at least.
func TestBrowserPhoneTargets(t *testing.T) {
	browserParallel(t)
	msrv := newMatchServerTB(t, server.Config{MaxOpenGames: 50})
	var tours *server.Tournaments
	srv, h := browserServerWith(t, func(ctx context.Context) Options {
		tours = serverTournaments(t, ctx, msrv)
		return Options{Server: msrv, Tournaments: tours}
	})
	done, err := startGame(h, NewGame{Rules: kalah.Rules{Houses: 3, Seeds: 2}, South: "first", North: "greedy"})
	if err != nil {
		t.Fatal(err)
	}
	tid, err := tours.Create(context.Background(), server.Organizer{Admin: true},
		server.NewTournament{Name: "Targets", Rules: kalah.Rules{Houses: 3, Seeds: 2}, Players: []string{"first", "greedy"}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := browser(t, 360, 640)
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(360, 640, chromedp.EmulateScale(2), chromedp.EmulateMobile)); err != nil {
		t.Fatal(err)
	}
	signUp(t, ctx, srv.URL, "thumb")
	// A game of n houses of the person's against the computer (made just
	// before it is looked at: a game without a first move is aborted).
	gameOf := func(n int) string {
		id := evalAwait[float64](t, ctx, fmt.Sprintf(`fetch("/api/games", {method: "POST", headers: {"Content-Type": "application/json"},
			body: JSON.stringify({south: "human", north: "greedy", casual: true, rules: {houses: %d, seeds: 4}})}).then(r => r.json()).then(g => g.id)`, n))
		return fmt.Sprint(int64(id))
	}
	ptid := evalAwait[string](t, ctx, `fetch("/api/tournaments", {method: "POST", headers: {"Content-Type": "application/json"},
		body: JSON.stringify({people: true, name: "Thumbs", format: "arena", clock_ms: 60000, increment_ms: 0, starts_in_s: 600, minutes: 10, rules: {houses: 6, seeds: 4}, rated: false})}).then(r => r.json()).then(t => t.id)`)
	pages := []string{"#/lobby", "#/play", "#/watch", "#/ratings", "#/player/thumb", "#/player/nobody", "#/analyze", "#/analyze?game=" + done.ID,
		"#/tournaments", "#/tournament/" + tid, "#/tournament/" + ptid, "#/account", "#/game/" + done.ID, "#/game/" + gameOf(6)}
	for _, page := range pages {
		open(t, ctx, srv.URL+"/?"+safeName(page)+page)
		time.Sleep(300 * time.Millisecond) // the view's data
		// The tournament form's More and the account's parts: open every details.
		eval[bool](t, ctx, `(document.querySelectorAll("details").forEach(d => d.open = true), true)`)
		if small := eval[[]string](t, ctx, smallTargets); len(small) > 0 {
			t.Errorf("%s at 360 px: %s", page, strings.Join(small, "; "))
		}
		shot(t, ctx, "targets-360-"+safeName(page))
	}
	// Signed out: the account form, the lobby's sign-in prompts.
	evalAwait[float64](t, ctx, `fetch("/api/account/logout", {method: "POST", headers: {"Content-Type": "application/json"}, body: "{}"}).then(r => r.status)`)
	for _, page := range []string{"#/account", "#/lobby"} {
		open(t, ctx, srv.URL+"/?out"+page)
		time.Sleep(300 * time.Millisecond)
		if small := eval[[]string](t, ctx, smallTargets); len(small) > 0 {
			t.Errorf("%s signed out at 360 px: %s", page, strings.Join(small, "; "))
		}
	}
	// Each board with the game's buttons on one screen: from the label
	// above the board to the bottom of the game's buttons, 640 px at most.
	signUpAgain := fmt.Sprintf(`fetch("/api/account/login", {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify({name: "thumb", password: "a long password"})}).then(r => r.status)`)
	if code := evalAwait[float64](t, ctx, signUpAgain); code != 200 {
		t.Fatalf("sign in again: %v", code)
	}
	for _, n := range []int{6, 8, 10, 12, 16} {
		open(t, ctx, srv.URL+"/?again"+fmt.Sprint(n)+"#/game/"+gameOf(n))
		waitJS(t, ctx, `document.querySelector("main .board:not(.ghost) button.pit:not(:disabled)") && !document.querySelector("#controls").hidden`)
		time.Sleep(200 * time.Millisecond)
		span := eval[float64](t, ctx, `document.querySelector("#controls").getBoundingClientRect().bottom - document.querySelector("#toplabel").getBoundingClientRect().top`)
		if span > 640 {
			t.Errorf("%d houses: the board and its buttons take %.0f px, more than the 640 px screen", n, span)
		}
		if trouble := eval[[]string](t, ctx, boardTrouble); len(trouble) > 0 {
			t.Errorf("%d houses: %s", n, strings.Join(trouble, "; "))
		}
		if w := eval[int](t, ctx, `document.documentElement.scrollWidth`); w > 360 {
			t.Errorf("%d houses: the page is %d px wide", n, w)
		}
		if small := eval[[]string](t, ctx, smallTargets); len(small) > 0 {
			t.Errorf("%d houses: %s", n, strings.Join(small, "; "))
		}
		shot(t, ctx, fmt.Sprintf("phone-board-%d", n))
	}
}
