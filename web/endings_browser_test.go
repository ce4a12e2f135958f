package web

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"kalah/internal/identity"
	"kalah/server"
)

// playUntil has each page whose player is to move sow a house of theirs
// until cond holds on every page.
func playUntil(t *testing.T, ps []context.Context, cond string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		done := true
		for _, ctx := range ps {
			if !eval[bool](t, ctx, "!!("+cond+")") {
				done = false
			}
		}
		if done {
			return
		}
		for _, ctx := range ps {
			if eval[bool](t, ctx, `!!document.querySelector("button.pit[data-side]:not(:disabled)")`) {
				n := eval[int](t, ctx, `document.querySelectorAll("#moves .mv").length`)
				play(t, ctx, `button.pit[data-side]:not(:disabled)`, fmt.Sprintf(`document.querySelectorAll("#moves .mv").length > %d`, n))
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("playing until %s: timed out", cond)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestBrowserRatedTakebackAndDraw: two people in a rated game (ann rated
// above bob by an earlier game): a spectator is counted on the board and
// in the list of live games; the one who moved last asks to take it back,
// the other accepts, and the game stays rated; then a draw is offered
// (the other's tab says so) and accepted: both pages read "Draw by
// agreement", and the ratings moved as a draw does (ann, the higher,
// down; bob up).
func TestBrowserRatedTakebackAndDraw(t *testing.T) {
	path := t.TempDir() + "/kalah.db"
	msrv, st := newMatchServerAt(t, path, server.Config{})
	srv, _ := browserServerWith(t, func(ctx context.Context) Options { return Options{Server: msrv} })
	ps := people(t, srv.URL, "ann", "bob", "")
	ann, bob, visitor := ps[0], ps[1], ps[2]
	who := func(name string) identity.ID { return identity.Of(identity.Person, name) }
	if _, err := st.RateGame(context.Background(), 999, "kalah/blitz", [2]identity.ID{who("ann"), who("bob")}, 1); err != nil {
		t.Fatal(err)
	}
	for _, ctx := range ps[:2] {
		open(t, ctx, srv.URL+"/#/lobby")
		waitJS(t, ctx, `document.querySelector('#quick button[data-tc="3+2"]') && document.querySelector("#seekrated").checked`)
		eval[bool](t, ctx, `(document.querySelector('#quick button[data-tc="3+2"]').click(), true)`)
	}
	for _, ctx := range ps[:2] {
		waitJS(t, ctx, `location.hash.startsWith("#/game/") && document.querySelectorAll("button.pit").length === 12`)
		waitJS(t, ctx, `document.querySelector("#gameinfo").textContent === "Rated" && document.querySelector("#draw").hidden`)
	}
	id := gameID(t, ann)
	open(t, visitor, srv.URL+"/#/game/"+id)
	for _, ctx := range ps[:2] {
		waitJS(t, ctx, `document.querySelector("#gameinfo").textContent === "Rated · 1 watching"`)
	}
	if n := evalAwait[int](t, ann, `fetch("/api/games?status=live").then(r => r.json()).then(gs => gs.find(g => g.id === `+id+`).spectators)`); n != 1 {
		t.Errorf("the live games list counts %d spectators, want 1", n)
	}

	// Both move: a draw may be offered from then on.
	drawable := `!document.querySelector("#draw").hidden`
	playUntil(t, ps[:2], drawable)
	asker, other := ann, bob
	if eval[bool](t, ann, `document.querySelector("#status").textContent === "Your move"`) {
		asker, other = bob, ann
	}
	moves := eval[int](t, asker, `document.querySelectorAll("#moves .mv").length`)
	waitJS(t, asker, `!document.querySelector("#undo").hidden && !document.querySelector("#undo").disabled`)
	click(t, asker, "#undo")
	waitJS(t, asker, `document.querySelector("#takebackwait")`)
	waitJS(t, other, `document.querySelector("#takebackask") && document.title.startsWith("Takeback asked · ")`)
	click(t, other, "#tbaccept")
	for _, ctx := range ps[:2] {
		waitJS(t, ctx, fmt.Sprintf(`document.querySelectorAll("#moves .mv").length < %d && !document.querySelector("#takebackask") && !document.querySelector("#takebackwait")`, moves))
		waitJS(t, ctx, `document.querySelector("#gameinfo").textContent.startsWith("Rated")`)
	}
	waitJS(t, asker, `document.querySelector("#status").textContent === "Your move"`)
	if b := evalAwait[bool](t, ann, `fetch("/api/games/`+id+`/board").then(r => r.json()).then(b => b.rated && b.takeback_ask === -1)`); !b {
		t.Fatal("after the takeback the game is not rated")
	}

	// The draw: offered, seen in the other's tab, accepted.
	playUntil(t, ps[:2], drawable)
	click(t, ann, "#draw")
	waitJS(t, ann, `document.querySelector("#drawwait") && document.querySelector("#draw").disabled`)
	waitJS(t, bob, `document.querySelector("#drawask") && document.querySelector("#drawask").textContent.startsWith("ann offers a draw") && document.title.startsWith("Draw offered · ")`)
	click(t, bob, "#drawaccept")
	for _, ctx := range ps[:2] {
		waitJS(t, ctx, `/^Draw by agreement, \d+–\d+$/.test(document.querySelector("#status").textContent) && document.querySelector("#draw").hidden && document.querySelector("#resign").hidden`)
	}
	waitJS(t, visitor, `document.querySelector("#status").textContent.startsWith("Draw by agreement")`)
	// The labels carry the rating changes: on ann's page hers is at the
	// bottom, bob's at the top; on bob's the other way round.
	change := func(ctx context.Context, label string) int {
		t.Helper()
		waitJS(t, ctx, `/ \d+\?? [+−]\d+ \((South|North)\)$/.test(document.querySelector("#`+label+`").textContent)`)
		txt := eval[string](t, ctx, `document.querySelector("#`+label+`").textContent`)
		m := regexp.MustCompile(` ([+−])(\d+) \(`).FindStringSubmatch(txt)
		n, _ := strconv.Atoi(m[2])
		if m[1] == "−" {
			n = -n
		}
		return n
	}
	if a, b := change(ann, "bottomlabel"), change(ann, "toplabel"); a >= 0 || b <= 0 {
		t.Errorf("ann's page: ann %+d, bob %+d; a draw moves the higher rated down and the lower up", a, b)
	}
	if a, b := change(bob, "toplabel"), change(bob, "bottomlabel"); a >= 0 || b <= 0 {
		t.Errorf("bob's page: ann %+d, bob %+d", a, b)
	}
	rec := evalAwait[string](t, ann, `fetch("/api/games/`+id+`/record").then(r => r.text())`)
	if !regexp.MustCompile(`\[Termination "agreement"\]`).MatchString(rec) || !regexp.MustCompile(`1/2-1/2`).MatchString(rec) {
		t.Errorf("the record:\n%s", rec)
	}
}

// TestBrowserResignedScore: a person resigns early against the computer:
// the page gives the score as the stores stood when they resigned, the
// move they resigned at, and then what the forfeit gave the winner (not a
// bare "0–48"); Resign and Undo are gone once it is over.
func TestBrowserResignedScore(t *testing.T) {
	srv := servedLikeServe(t)
	ctx := browser(t, 900, 900)
	open(t, ctx, srv.URL+"/#/lobby")
	eval[bool](t, ctx, `(localStorage.setItem("kalah.animate", "off"), true)`)
	id := evalAwait[int](t, ctx, `fetch("/api/games", {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify({south: "human", north: "first", casual: true})}).then(r => r.json()).then(g => g.id)`)
	// Loaded afresh, the page knows the guest the game made of it.
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatal(err)
	}
	open(t, ctx, fmt.Sprintf("%s/#/game/%d", srv.URL, id))
	waitJS(t, ctx, `document.querySelector("#status").textContent === "Your move"`)
	play(t, ctx, `button.pit[data-side="S"][data-house="1"]`, `document.querySelectorAll("#moves .mv").length >= 2 && document.querySelector("#status").textContent === "Your move"`)
	waitJS(t, ctx, `!document.querySelector("#resign").hidden && !document.querySelector("#resign").disabled`)
	eval[bool](t, ctx, `(window.confirm = () => true, true)`)
	click(t, ctx, "#resign")
	waitJS(t, ctx, `document.querySelector("#status").textContent.includes("You resigned")`)
	status := eval[string](t, ctx, `document.querySelector("#status").textContent`)
	m := regexp.MustCompile(`^first won, (\d+)–(\d+) — You resigned at move (\d+); the (\d+) seeds left on the board go to first: (\d+)–(\d+)$`).FindStringSubmatch(status)
	if m == nil {
		t.Fatalf("the end reads %q", status)
	}
	n := make([]int, len(m))
	for i := 1; i < len(m); i++ {
		n[i], _ = strconv.Atoi(m[i])
	}
	if n[1]+n[2] > 8 || n[3] != 2 || n[1]+n[2]+n[4] != 48 || n[5] != n[1] || n[6] != n[2]+n[4] {
		t.Errorf("the end reads %q: stores %d–%d at move %d, %d given, %d–%d", status, n[1], n[2], n[3], n[4], n[5], n[6])
	}
	if sum := eval[string](t, ctx, `[...document.querySelectorAll("#summary td.num")].filter((_, i) => i % 4 === 0).map(td => td.textContent).join("-")`); sum != m[1]+"-"+m[2] {
		t.Errorf("the summary's stores read %s, want %s-%s", sum, m[1], m[2])
	}
	if !eval[bool](t, ctx, `document.querySelector("#resign").hidden && document.querySelector("#undo").hidden && document.querySelector("#abort").hidden`) {
		t.Error("a control of a live game shows after the end")
	}
}

// background opens a new tab in ctx's browser and brings it to the
// front: ctx's page goes on in a tab behind it, out of view.
func background(t *testing.T, ctx context.Context) context.Context {
	t.Helper()
	front, cancel := chromedp.NewContext(ctx)
	t.Cleanup(cancel)
	if err := chromedp.Do(front, chromedp.Navigate("about:blank")); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(front, bringToFront()); err != nil {
		t.Fatal(err)
	}
	return front
}

// bringToFront makes a page's tab the one in view.
func bringToFront() chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, page.BringToFront, cdp.Empty{})
		return err
	})
}
