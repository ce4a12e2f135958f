package web

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"kalah"
	"kalah/server"
)

// pageTrouble collects what a page reports as wrong, from the moment it is
// called: uncaught exceptions (Runtime.exceptionThrown), console.error and
// console.assert calls, and the browser's own error entries (Log.entryAdded:
// "Failed to load resource" for any fetch answered outside 2xx, a refused
// script). The function it returns gives them so far.
func pageTrouble(t testing.TB, ctx context.Context) func() []string {
	t.Helper()
	var mu sync.Mutex
	var out []string
	add := func(s string) {
		mu.Lock()
		out = append(out, s)
		mu.Unlock()
	}
	err := chromedp.Listen(ctx, func(ev any) {
		switch e := ev.(type) {
		case *runtime.EventExceptionThrown:
			d := e.ExceptionDetails
			text := d.Text
			if d.Exception != nil && d.Exception.Description != "" {
				text += " " + d.Exception.Description
			}
			add(fmt.Sprintf("exception: %s (%s:%d)", text, d.URL, d.LineNumber))
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.ConsoleAPICalledTypeError || e.Type == runtime.ConsoleAPICalledTypeAssert {
				var parts []string
				for _, a := range e.Args {
					parts = append(parts, strings.Trim(string(a.Value), `"`)+a.Description)
				}
				add("console." + string(e.Type) + ": " + strings.Join(parts, " "))
			}
		case *log.EventEntryAdded:
			if e.Entry.Level == log.EntryLevelError {
				add(fmt.Sprintf("%s error: %s %s", e.Entry.Source, e.Entry.Text, e.Entry.URL))
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), out...)
	}
}

// inView is JavaScript: whether the element css is shown, not empty, and
// wholly within the window as it is scrolled.
func inView(css string) string {
	return `(el => { if (!el || !el.textContent.trim()) return false; const r = el.getBoundingClientRect();
		return r.width > 0 && r.height > 0 && r.top >= 0 && r.bottom <= innerHeight && r.left >= 0 && r.right <= innerWidth })(document.querySelector(` + fmt.Sprintf("%q", css) + `))`
}

// TestBrowserRefusalStays: a guest with five unfinished games clicks a
// level in the lobby: the server refuses the sixth (429), and the page
// says so beside the levels, with the five games to finish linked, and
// still says so, in view, 10 s later; the refusal leaves no error in the
// console (the page asks for refusals as 200 with X-Kalah-Status), nor do
// the other refusals it meets: an unknown player (404), an unknown game
// (404), a seek it could not take.
func TestBrowserRefusalStays(t *testing.T) {
	browserParallel(t)
	srv, _ := browserServer(t)
	ctx := browser(t, 390, 844)
	trouble := pageTrouble(t, ctx)
	open(t, ctx, srv.URL+"/#/lobby")
	for i := range 5 {
		code := evalAwait[float64](t, ctx, `fetch("/api/games", {method: "POST", headers: {"Content-Type": "application/json"},
			body: JSON.stringify({south: "human", north: "greedy", casual: true})}).then(r => r.status)`)
		if code != 201 {
			t.Fatalf("game %d: %v", i+1, code)
		}
	}
	open(t, ctx, srv.URL+"/#/lobby")
	waitJS(t, ctx, `document.querySelector('#levels button[data-level="easy"]')`)
	click(t, ctx, `#levels button[data-level="easy"]`)
	waitJS(t, ctx, `document.querySelectorAll("#levelerr a.mygame").length === 5`)
	text := eval[string](t, ctx, `document.querySelector("#levelerr").textContent`)
	if !strings.Contains(text, "unfinished games") || !strings.Contains(text, "resign or abort") {
		t.Errorf("the refusal reads %q", text)
	}
	shot(t, ctx, "refused-sixth-game")
	time.Sleep(10 * time.Second)
	if !eval[bool](t, ctx, inView("#levelerr")) || !strings.Contains(eval[string](t, ctx, `document.querySelector("#levelerr").textContent`), "unfinished games") {
		t.Errorf("10 s later the refusal is gone or out of view: %q", eval[string](t, ctx, `document.querySelector("#levelerr").textContent`))
	}
	if !strings.HasPrefix(eval[string](t, ctx, `location.hash`), "#/lobby") {
		t.Errorf("the page left the lobby: %s", eval[string](t, ctx, `location.hash`))
	}
	// The Play page says it under its Start button, and the analysis
	// board's Play from here under its own.
	for _, place := range []struct{ page, button, say string }{{"#/play", "#start", "main form .err"}, {"#/analyze", "#pfstart", "#pferr"}} {
		open(t, ctx, srv.URL+"/?"+safeName(place.page)+place.page)
		click(t, ctx, place.button)
		waitJS(t, ctx, `document.querySelectorAll(`+jsString(place.say+" a.mygame")+`).length === 5`)
		time.Sleep(2 * time.Second)
		if !eval[bool](t, ctx, inView(place.say)) {
			t.Errorf("%s: the refusal is not in view after %s", place.page, place.button)
		}
	}
	open(t, ctx, srv.URL+"/?back#/lobby")
	click(t, ctx, `#levels button[data-level="easy"]`)
	waitJS(t, ctx, `document.querySelectorAll("#levelerr a.mygame").length === 5`)
	// The links lead to the games.
	click(t, ctx, `#levelerr a.mygame`)
	waitJS(t, ctx, `location.hash.startsWith("#/game/") && document.querySelector("button.pit")`)
	// Other expected refusals.
	open(t, ctx, srv.URL+"/#/player/nobody-at-all")
	waitJS(t, ctx, `document.querySelector("#noplayer")`)
	open(t, ctx, srv.URL+"/#/game/987654")
	waitJS(t, ctx, `document.querySelector("#missinggame")`)
	time.Sleep(300 * time.Millisecond)
	for _, e := range trouble() {
		t.Errorf("console: %s", e)
	}
}

// TestBrowserSeekClosed: a guest sees a rated seek as one they cannot take
// (why, and a link to sign in), with no Accept; a signed-in person sees
// Accept.
func TestBrowserSeekClosed(t *testing.T) {
	browserParallel(t)
	srv := servedLikeServe(t)
	ps := people(t, srv.URL, "ann", "", "bob")
	ann, guest, bob := ps[0], ps[1], ps[2]
	open(t, ann, srv.URL+"/#/lobby")
	waitJS(t, ann, `document.querySelector('#quick button[data-tc="3+2"]') && document.querySelector("#seekrated").checked`)
	eval[bool](t, ann, `(document.querySelector('#quick button[data-tc="3+2"]').click(), true)`)
	waitJS(t, ann, `document.querySelector("#seeking")`)
	trouble := pageTrouble(t, guest)
	open(t, guest, srv.URL+"/#/lobby")
	waitJS(t, guest, `document.querySelector("#seeks li[data-seek] .closed")`)
	if eval[bool](t, guest, `!!document.querySelector("#seeks li[data-seek] button.accept")`) {
		t.Error("a guest is offered Accept on a rated seek")
	}
	if why := eval[string](t, guest, `document.querySelector("#seeks .closed").textContent`); !strings.Contains(why, "sign in") {
		t.Errorf("the closed seek reads %q", why)
	}
	open(t, bob, srv.URL+"/#/lobby")
	waitJS(t, bob, `document.querySelector("#seeks li[data-seek] button.accept")`)
	for _, e := range trouble() {
		t.Errorf("console: %s", e)
	}
}

// TestBrowserCrawl visits every page and goes between them, in the page
// (the fragment changes, no reload), leaving games while they move and
// pages while they load; no page error and no console error anywhere.
func TestBrowserCrawl(t *testing.T) {
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
	watched, err := startGame(h, NewGame{Rules: kalah.Standard(), South: "random", North: "greedy", DelayMS: 300})
	if err != nil {
		t.Fatal(err)
	}
	tid, err := tours.Create(context.Background(), server.Organizer{Admin: true},
		server.NewTournament{Name: "Crawl", Rules: kalah.Rules{Houses: 3, Seeds: 2}, Players: []string{"first", "greedy", "beginner"}, DelayMillis: 200})
	if err != nil {
		t.Fatal(err)
	}
	ctx := browser(t, 900, 900)
	trouble := pageTrouble(t, ctx)
	signUp(t, ctx, srv.URL, "crawler")
	eval[bool](t, ctx, `(localStorage.setItem("kalah.animate", "on"), true)`)
	ptid := evalAwait[string](t, ctx, `fetch("/api/tournaments", {method: "POST", headers: {"Content-Type": "application/json"},
		body: JSON.stringify({people: true, name: "Crawl arena", format: "arena", clock_ms: 60000, increment_ms: 0, starts_in_s: 600, minutes: 10, rules: {houses: 6, seeds: 4}, rated: false})}).then(r => r.json()).then(t => t.id)`)
	// A game of the crawler's against the computer, to leave mid-move.
	gid := evalAwait[float64](t, ctx, `fetch("/api/games", {method: "POST", headers: {"Content-Type": "application/json"},
		body: JSON.stringify({south: "human", north: "medium", casual: true})}).then(r => r.json()).then(g => g.id)`)
	game := fmt.Sprint(int64(gid))
	pages := []string{"#/lobby", "#/play", "#/watch", "#/watch", "#/ratings", "#/player/crawler", "#/player/nobody", "#/analyze",
		"#/analyze?game=" + done.ID, "#/tournaments", "#/tournament/" + tid, "#/tournament/" + ptid, "#/account",
		"#/game/" + done.ID, "#/game/" + watched.ID, "#/game/" + game, "#/game/424242", "#/game/" + done.ID + "/join/nothing", "#/nowhere"}
	open(t, ctx, srv.URL+"/#/lobby")
	// Every page after every other one (in the order above, and back).
	for pass, order := range [][]string{pages, reversed(pages)} {
		for _, p := range order {
			eval[bool](t, ctx, fmt.Sprintf(`(location.hash = %q, true)`, p))
			time.Sleep(250 * time.Millisecond)
			if !eval[bool](t, ctx, `document.querySelector("main").children.length > 0`) {
				t.Errorf("pass %d: %s is empty", pass, p)
			}
		}
	}
	// Leave a game while it sows (the computer's answer still to come),
	// for the Play page, a tournament, the lobby.
	for _, away := range []string{"#/play", "#/tournament/" + tid, "#/tournament/" + ptid, "#/lobby", "#/watch"} {
		eval[bool](t, ctx, fmt.Sprintf(`(location.hash = "#/game/%s", true)`, game))
		waitJS(t, ctx, `document.querySelector("button.pit:not(:disabled)") || document.querySelector("#summary:not([hidden])")`)
		eval[bool](t, ctx, `(b => (b && b.click(), true))(document.querySelector('button.pit[data-side="S"]:not(:disabled)'))`)
		time.Sleep(60 * time.Millisecond)
		eval[bool](t, ctx, fmt.Sprintf(`(location.hash = %q, true)`, away))
		time.Sleep(1500 * time.Millisecond) // the sowing and the answer arrive after the game was left
		if title := eval[string](t, ctx, `document.title`); strings.Contains(title, " vs ") && !strings.HasPrefix(away, "#/tournament") {
			t.Errorf("on %s the tab reads %q: a game left behind wrote it", away, title)
		}
	}
	// A page left before it loads draws nothing over the next.
	for _, left := range []string{"#/player/crawler", "#/ratings", "#/game/" + done.ID + "/join/nothing"} {
		eval[bool](t, ctx, fmt.Sprintf(`(location.hash = %q, setTimeout(() => location.hash = "#/play", 0), true)`, left))
		time.Sleep(500 * time.Millisecond)
		if !eval[bool](t, ctx, `location.hash === "#/play" && !!document.querySelector("#opponent")`) {
			t.Errorf("the Play page was drawn over by %s, left behind: %s", left, eval[string](t, ctx, `document.querySelector("main").innerText.slice(0, 200)`))
		}
	}
	if errs := eval[[]string](t, ctx, `window.kalahErrors`); len(errs) > 0 {
		t.Errorf("page errors: %v", errs)
	}
	for _, e := range trouble() {
		t.Errorf("console: %s", e)
	}
}

func reversed(s []string) []string {
	out := make([]string, len(s))
	for i, v := range s {
		out[len(s)-1-i] = v
	}
	return out
}
