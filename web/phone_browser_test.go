package web

import (
	"context"
	"fmt"
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
