package web

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"kalah"

	"kalah/server"
)

// TestBrowserBlunderMarked: a finished game whose one move (played as its
// opening; the game is then resigned) gave away two seeds, 4 in the final
// difference, and a won game (in 1,0,2,0,1,1/0,2,0,1,1,0 19-20 S house 5 is
// worth -2 where 1, 3 and 6 are worth +2, by brute force) is analysed from
// its page: the move is marked a blunder (a proven win thrown away) in the
// move list and on the graph, with what it lost and the best move;
// accuracy is given for each player; the keys step through it.
func TestBrowserBlunderMarked(t *testing.T) {
	srv, h := browserServer(t)
	const start = "1,0,2,0,1,1/0,2,0,1,1,0 19-20 S"
	// North a person too (by invitation), so that no computer answers the
	// opening before the resignation: a computer's first turn has no delay.
	c, err := startGame(h, NewGame{Rules: kalah.Standard(), Start: start, South: Human, North: Human, Invite: true, Opening: []kalah.Move{5}})
	if err != nil {
		t.Fatal(err)
	}
	id, err := strconv.ParseInt(c.ID, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.opts.Server.(*server.Server).Resign(context.Background(), id, server.Actor{Token: c.Tokens[0]}); err != nil {
		t.Fatal(err)
	}
	ctx := browser(t, 900, 1000)
	open(t, ctx, srv.URL+"/#/analyze?game="+c.ID)
	waitJS(t, ctx, `document.querySelector("#plylist li")`)
	first := eval[string](t, ctx, `document.querySelector("#plylist li").textContent`)
	if !strings.HasPrefix(first, "South 5??") || !strings.Contains(first, "blunder: 2 seeds given away, −4 in the final difference (best ") {
		t.Fatalf("the move reads %q", first)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll('svg.graph circle[data-class="blunder"]').length`); n != 1 {
		t.Errorf("%d blunders on the graph", n)
	}
	if acc := eval[string](t, ctx, `document.querySelector("#accuracy").textContent`); !strings.Contains(acc, "South: 0% best moves, 2 seeds given away") {
		t.Errorf("accuracy %q", acc)
	}
	// The keys and a click on a move step through the game.
	if err := chromedp.Do(ctx, chromedp.KeyEvent(kb.End)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, `document.querySelector("#plyinfo").textContent.startsWith("Position 1 of 1")`)
	if err := chromedp.Do(ctx, chromedp.KeyEvent(kb.ArrowLeft)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, `document.querySelector("#plyinfo").textContent.startsWith("Position 0 of 1")`)
	click(t, ctx, `#plylist button[data-ply="1"]`)
	waitJS(t, ctx, `document.querySelector("#plyinfo").textContent.startsWith("Position 1 of 1")`)
	shot(t, ctx, "analysis-blunder")
}
