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

// TestBrowserPhoneWidths: at phone widths from 360 to 430 px (and on a
// desktop) no page the navigation reaches is wider than the screen (issue
// 13: the Play page was 748 px wide on a 390 px phone), and the board's
// targets are at least 44 px. Screenshots of every page at phone and
// desktop width go to a temp dir.
func TestBrowserPhoneWidths(t *testing.T) {
	browserParallel(t)
	msrv := newMatchServerTB(t, server.Config{})
	var tours *server.Tournaments
	srv, h := browserServerWith(t, func(ctx context.Context) Options {
		tours = serverTournaments(t, ctx, msrv)
		return Options{Server: msrv, Tournaments: tours}
	})
	live, err := startGame(h, NewGame{Rules: kalah.Standard(), South: Human, North: "greedy", Casual: true})
	if err != nil {
		t.Fatal(err)
	}
	done, err := startGame(h, NewGame{Rules: kalah.Rules{Houses: 3, Seeds: 2}, South: "first", North: "greedy"})
	if err != nil {
		t.Fatal(err)
	}
	tid, err := tours.Create(context.Background(), server.Organizer{Admin: true},
		server.NewTournament{Name: "Phones", Rules: kalah.Rules{Houses: 3, Seeds: 2}, Players: []string{"first", "greedy", "random"}})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond) // let the small games finish
	pages := []string{"#/lobby", "#/play", "#/watch", "#/ratings", "#/player/nobody", "#/analyze", "#/tournaments", "#/account",
		"#/game/" + live.ID, "#/game/" + done.ID, "#/tournament/" + tid, "#/analyze?game=" + done.ID}
	for _, width := range []int{360, 390, 430, 1280} {
		ctx := browser(t, width, 844)
		if width < 1000 {
			if err := chromedp.Do(ctx, chromedp.EmulateViewport(int64(width), 844, chromedp.EmulateScale(2), chromedp.EmulateMobile)); err != nil {
				t.Fatal(err)
			}
		}
		// The person's seat in the live game is this browser's.
		open(t, ctx, srv.URL+"/#/play")
		takeSeat(t, ctx, live.ID, 0, live.Tokens[0])
		for _, page := range pages {
			open(t, ctx, srv.URL+"/"+page)
			time.Sleep(150 * time.Millisecond) // let the view draw
			if w := eval[int](t, ctx, `document.documentElement.scrollWidth`); w > width {
				wide := eval[string](t, ctx, fmt.Sprintf(`[...document.querySelectorAll("main *, header *")].filter(e => e.getBoundingClientRect().right > %d + 1).slice(-8).map(`, width)+`e => e.tagName + (e.id ? "#" + e.id : "") + (e.className ? "." + e.className : "") + " " + Math.round(e.getBoundingClientRect().right)).join(", ")`)
				t.Errorf("%s at %d px: the page is %d px wide: %s", page, width, w, wide)
			}
			if width == 390 || width == 1280 {
				shot(t, ctx, fmt.Sprintf("width-%d-%s", width, safeName(page)))
			}
		}
		// The board of the live game: targets of at least 44 px.
		open(t, ctx, srv.URL+"/#/game/"+live.ID)
		waitJS(t, ctx, `document.querySelector("button.pit:not(:disabled)")`)
		if px := eval[float64](t, ctx, `Math.min(...[...document.querySelectorAll("button.pit")].map(b => Math.min(b.getBoundingClientRect().width, b.getBoundingClientRect().height)))`); px < 44 {
			t.Errorf("at %d px the pits are %.0f px", width, px)
		}
	}
}

func safeName(page string) string {
	out := []rune{}
	for _, r := range page {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			out = append(out, r)
		} else {
			out = append(out, '-')
		}
	}
	return string(out)
}

// boardTrouble is JavaScript that lists what is wrong with the boards of
// a page: a house below 44 px either way, two cells (houses, stores) of a
// board on top of each other, a cell's text or seeds outside it.
const boardTrouble = `(() => {
	const out = [], tol = 0.5;
	const r = el => el.getBoundingClientRect();
	const inside = (a, b) => a.left >= b.left - 1 && a.right <= b.right + 1 && a.top >= b.top - 1 && a.bottom <= b.bottom + 1;
	const name = el => (el.dataset.side || "") + (el.dataset.house || el.className);
	for (const board of document.querySelectorAll("main .board")) {
		const cells = [...board.children].filter(c => c.matches(".pit, .store"));
		for (const c of cells) {
			const b = r(c);
			if (c.matches(".pit") && Math.min(b.width, b.height) < 44 - tol) out.push("house " + name(c) + " is " + Math.round(b.width) + "x" + Math.round(b.height));
			for (const k of c.querySelectorAll(".k, .n, .seeds, small, input")) {
				const kb = r(k);
				if (kb.width > 0 && !inside(kb, b)) out.push(k.className + " of " + name(c) + " sticks out");
			}
		}
		for (let i = 0; i < cells.length; i++) for (let j = i + 1; j < cells.length; j++) {
			const a = r(cells[i]), b = r(cells[j]);
			if (a.left < b.right - tol && b.left < a.right - tol && a.top < b.bottom - tol && b.top < a.bottom - tol) out.push(name(cells[i]) + " overlaps " + name(cells[j]));
		}
	}
	return out.slice(0, 8);
})()`

// TestBrowserBoardSizes: on phones of 360, 390 and 430 px, boards of 6, 8
// and 16 houses (a game played, a game over, the analysis board and a
// game's analysis, the small boards of the lists) keep every house at 44 px
// at least, nothing on top of anything, no page wider than the screen: a
// board whose houses do not fit across stands upright.
func TestBrowserBoardSizes(t *testing.T) {
	browserParallel(t)
	srv, h := browserServer(t)
	var pages []string
	live := map[int]Created{}
	for _, n := range []int{6, 8, 16} {
		r := kalah.Rules{Houses: n, Seeds: 4}
		g, err := startGame(h, NewGame{Rules: r, South: Human, North: "greedy", Casual: true})
		if err != nil {
			t.Fatal(err)
		}
		live[n] = g
		done, err := startGame(h, NewGame{Rules: kalah.Rules{Houses: n, Seeds: 1}, South: "first", North: "greedy"})
		if err != nil {
			t.Fatal(err)
		}
		pos := strings.TrimSuffix(strings.Repeat("4,", n), ",")
		pages = append(pages, "#/game/"+g.ID, "#/game/"+done.ID, "#/analyze?game="+done.ID,
			"#/analyze?position="+strings.ReplaceAll(pos+"/"+pos+" 0-0 S", " ", "%20"))
	}
	// The pages without a board of their own, with the small boards of
	// the live games (16 houses among them) in their lists.
	pages = append(pages, "#/lobby", "#/watch", "#/play", "#/ratings", "#/tournaments", "#/account")
	deadline := time.Now().Add(20 * time.Second)
	for _, p := range pages {
		if id, ok := strings.CutPrefix(p, "#/analyze?game="); ok {
			for {
				if b, err := boardOf(h, id); err == nil && b.Over || time.Now().After(deadline) {
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
		}
	}
	for _, width := range []int{360, 390, 430} {
		ctx := browser(t, width, 800)
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(int64(width), 800, chromedp.EmulateScale(2), chromedp.EmulateMobile)); err != nil {
			t.Fatal(err)
		}
		open(t, ctx, srv.URL+"/#/play")
		for _, g := range live {
			takeSeat(t, ctx, g.ID, 0, g.Tokens[0])
		}
		for _, page := range pages {
			open(t, ctx, srv.URL+"/?"+safeName(page)+page)
			if strings.HasPrefix(page, "#/game/") || strings.HasPrefix(page, "#/analyze") {
				waitJS(t, ctx, `document.querySelector("main .board:not(.ghost) .pit") && (!location.hash.includes("game=") || document.querySelector("#graphbox .board"))`)
			} else if page == "#/lobby" || page == "#/watch" {
				waitJS(t, ctx, `document.querySelectorAll("main .mini").length >= 3`)
			}
			time.Sleep(100 * time.Millisecond) // the last draw
			if w := eval[int](t, ctx, `document.documentElement.scrollWidth`); w > width {
				t.Errorf("%s at %d px: the page is %d px wide", page, width, w)
			}
			if trouble := eval[[]string](t, ctx, boardTrouble); len(trouble) > 0 {
				t.Errorf("%s at %d px: %s", page, width, strings.Join(trouble, "; "))
			}
			if width == 360 {
				shot(t, ctx, fmt.Sprintf("boards-%d-%s", width, safeName(page)))
			}
		}
	}
}
