package web

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"kalah"
	"kalah/server"
)

// TestBrowserNoJumpOnLoad: the game page's controls stay where they are
// when the game arrives, so a click aimed at one while the page loads does
// not land on a house that moved under it. The game's data is held back
// for a moment to make the gap wide.
func TestBrowserNoJumpOnLoad(t *testing.T) {
	chromium(t)
	srv := newMatchServerTB(t, server.Config{})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	h, err := New(ctx, Options{Server: srv})
	if err != nil {
		t.Fatal(err)
	}
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, "/games/") {
			time.Sleep(1500 * time.Millisecond)
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(slow.Close)
	g, err := srv.StartGame(context.Background(), server.GameRequest{Rules: kalah.Standard(), South: "human", North: "first"})
	if err != nil {
		t.Fatal(err)
	}
	id := itoa(g.ID)
	for _, size := range [][2]int{{900, 800}, {390, 800}} {
		bctx := browser(t, size[0], size[1])
		open(t, bctx, slow.URL+"/#/play")
		takeSeat(t, bctx, id, 0, g.Tokens[0])
		open(t, bctx, slow.URL+"/#/game/"+id)
		const where = `["#controls", "#animate", "#moves"].map(s => Math.round(document.querySelector(s).getBoundingClientRect().top))`
		if eval[bool](t, bctx, `!!document.querySelector('button.pit')`) {
			t.Fatalf("%dpx: the game arrived before the page was measured; hold it back longer", size[0])
		}
		before := eval[[]int](t, bctx, where)
		shot(t, bctx, "game-loading-"+itoa(int64(size[0])))
		if st := eval[string](t, bctx, `document.querySelector("#status").textContent`); st != "Loading the game…" {
			t.Errorf("%dpx: while the game loads the status says %q", size[0], st)
		}
		waitJS(t, bctx, `document.querySelector('button.pit[data-side="S"]:not(:disabled)')`)
		after := eval[[]int](t, bctx, where)
		for i := range before {
			if d := after[i] - before[i]; d < -4 || d > 4 {
				t.Errorf("%dpx wide: the controls moved by %dpx when the game arrived (%v, then %v)", size[0], d, before, after)
				break
			}
		}
	}
}
