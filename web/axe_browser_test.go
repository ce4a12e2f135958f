package web

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"kalah"
	"kalah/internal/identity"
	"kalah/internal/store"
	"kalah/server"
)

// axeRun is JavaScript that runs axe on the page and lists its serious
// and critical findings, each with the elements it found (experimental
// rules included: label-content-name-mismatch is one).
const axeRun = `axe.run(document, {rules: {"label-content-name-mismatch": {enabled: true}}}).then(r => r.violations
	.filter(v => v.impact === "serious" || v.impact === "critical")
	.map(v => v.impact + " " + v.id + " (" + v.help + "): " + v.nodes.slice(0, 4).map(n => n.target.join(" ") + (n.failureSummary ? " [" + n.failureSummary.replace(/\s+/g, " ").slice(0, 160) + "]" : "")).join("; ")))`

// axePages serves a page with something on every view: accounts, ratings
// on two ladders, a game being played by the browser's person, one over
// with a chat, a tournament; it returns the server and the pages to look
// at.
func axePages(t *testing.T) (string, []string, Created) {
	t.Helper()
	msrv, st := newMatchServerAt(t, filepath.Join(t.TempDir(), "kalah.db"), server.Config{})
	var tours *server.Tournaments
	srv, h := browserServerWith(t, func(ctx context.Context) Options {
		tours = serverTournaments(t, ctx, msrv)
		return Options{Server: msrv, Tournaments: tours}
	})
	ctx := context.Background()
	for _, name := range []string{"ann", "bob"} {
		if err := st.CreateUser(ctx, name, "a long password"); err != nil {
			t.Fatal(err)
		}
	}
	ann, bob := identity.Of(identity.Person, "ann"), identity.Of(identity.Person, "bob")
	for i := range 12 {
		st.RateGame(ctx, int64(500+i), "kalah/blitz", [2]identity.ID{ann, bob}, float64(i%2))
	}
	st.RateGame(ctx, 600, "kalah/bullet", [2]identity.ID{ann, bob}, 1)
	live, err := startGame(h, NewGame{Rules: kalah.Standard(), South: Human, North: "greedy", Casual: true})
	if err != nil {
		t.Fatal(err)
	}
	done, err := startGame(h, NewGame{Rules: kalah.Rules{Houses: 4, Seeds: 2}, South: "first", North: "greedy"})
	if err != nil {
		t.Fatal(err)
	}
	for {
		if b, err := boardOf(h, done.ID); err != nil || b.Over {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	doneID, _ := strconv.ParseInt(done.ID, 10, 64)
	if _, err := st.AddChat(ctx, store.ChatLine{Game: doneID, Room: "spectators", By: ann, Text: "well played, first"}, 0); err != nil {
		t.Fatal(err)
	}
	tid, err := tours.Create(ctx, server.Organizer{Admin: true},
		server.NewTournament{Name: "Axe", Rules: kalah.Rules{Houses: 3, Seeds: 2}, Players: []string{"first", "greedy", "random"}})
	if err != nil {
		t.Fatal(err)
	}
	pages := []string{"#/lobby", "#/play", "#/watch", "#/ratings", "#/ratings?pool=kalah/bullet", "#/player/ann", "#/player/nosuchperson",
		"#/analyze", "#/analyze?game=" + done.ID, "#/tournaments", "#/tournament/" + tid, "#/account",
		"#/game/" + live.ID, "#/game/" + done.ID, "#/game/99999"}
	return srv.URL, pages, live
}

// TestBrowserAxe: axe finds nothing serious or critical on any page, in
// the light theme or the dark, nor on the page for a path that is none.
func TestBrowserAxe(t *testing.T) {
	browserParallel(t)
	src, err := os.ReadFile(filepath.Join("testdata", "axe", "axe.min.js"))
	if err != nil {
		t.Fatal(err)
	}
	base, pages, live := axePages(t)
	ctx := browser(t, 1024, 900)
	open(t, ctx, base+"/#/play")
	takeSeat(t, ctx, live.ID, 0, live.Tokens[0])
	eval[bool](t, ctx, `(localStorage.setItem("kalah.animate", "off"), true)`)
	check := func(what string) {
		t.Helper()
		eval[bool](t, ctx, string(src)+";true")
		v, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](axeRun, chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatalf("%s: axe: %v", what, err)
		}
		for _, f := range v {
			t.Errorf("%s: %s", what, f)
		}
	}
	for _, theme := range []string{"light", "dark"} {
		eval[bool](t, ctx, `(localStorage.setItem("kalah.theme", "`+theme+`"), true)`)
		for _, page := range pages {
			open(t, ctx, base+"/?"+theme+safeName(page)+page)
			waitJS(t, ctx, `document.documentElement.dataset.theme === "`+theme+`" && !document.querySelector("main").textContent.includes("Loading")`)
			time.Sleep(300 * time.Millisecond) // lists and boards arrive
			check(theme + " " + page)
		}
	}
	// The page of no page has no script: the system's theme decides.
	for _, scheme := range []string{"light", "dark"} {
		if err := chromedp.Do(ctx, emulateScheme(scheme), chromedp.Navigate(base+"/no/such/page")); err != nil {
			t.Fatal(err)
		}
		waitJS(t, ctx, `document.readyState === "complete"`)
		check(scheme + " /no/such/page")
	}
}

// emulateScheme makes the page see the system's colour scheme.
func emulateScheme(scheme string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}})
		return err
	})
}

// TestBrowserVisitorLoad: a visitor's first load of each page asks the
// server nothing that fails: no 4xx or 5xx, no request refused, no error
// in the page.
func TestBrowserVisitorLoad(t *testing.T) {
	base, pages, _ := axePages(t)
	ctx := browser(t, 1024, 900)
	if err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, network.Enable, network.EnableParams{})
		return err
	})); err != nil {
		t.Fatal(err)
	}
	failed := make(chan string, 100)
	chromedp.Listen(ctx, func(ev any) {
		switch e := ev.(type) {
		case *network.EventResponseReceived:
			if e.Response.Status >= 400 {
				select {
				case failed <- e.Response.URL + ": " + e.Response.StatusText:
				default:
				}
			}
		case *network.EventLoadingFailed:
			if !e.Canceled {
				select {
				case failed <- "a request failed: " + e.ErrorText:
				default:
				}
			}
		}
	})
	for _, page := range pages {
		if strings.Contains(page, "99999") || strings.Contains(page, "nosuchperson") {
			continue // asked for what is not there: a 404 is the truth
		}
		open(t, ctx, base+"/?"+safeName(page)+page)
		time.Sleep(400 * time.Millisecond)
		if errs := eval[[]string](t, ctx, `window.kalahErrors`); len(errs) > 0 {
			t.Errorf("%s: page errors %v", page, errs)
		}
	}
	for {
		select {
		case f := <-failed:
			t.Errorf("a visitor's request failed: %s", f)
			continue
		default:
		}
		break
	}
}
