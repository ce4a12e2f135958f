package web

import (
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestBrowserSeekRatedGame: two people sign up in browsers of their own;
// Ann seeks a rated 1+0 game from the lobby, Bob accepts it there; they
// play it with the clocks running to its end, and both ratings change.
func TestBrowserSeekRatedGame(t *testing.T) {
	srv := servedLikeServe(t)
	ann := browser(t, 900, 900)
	bob, cancel := chromedp.NewContext(ann, chromedp.WithNewBrowserContext())
	defer cancel()
	for name, ctx := range map[string]context.Context{"ann": ann, "bob": bob} {
		open(t, ctx, srv.URL+"/#/account")
		eval[bool](t, ctx, `(localStorage.setItem("kalah.animate", "off"), document.querySelector("#acctname").value = "`+name+`", document.querySelector("#acctpass").value = "`+name+`'s long password", true)`)
		click(t, ctx, "#signup")
		waitJS(t, ctx, `document.querySelector("#acct").textContent === "`+name+`"`)
	}
	open(t, ann, srv.URL+"/#/lobby")
	eval[bool](t, ann, `(document.querySelector("#seekpreset").value = "dec1961", true)`)
	click(t, ann, `#quick button[data-tc="1+0"]`)
	waitJS(t, ann, `document.querySelector("#seeking")`)
	shot(t, ann, "lobby-seeking")

	open(t, bob, srv.URL+"/#/lobby")
	waitJS(t, bob, `document.querySelector("#seeks button.accept")`)
	if txt := eval[string](t, bob, `document.querySelector("#seeks li").textContent`); !regexp.MustCompile(`^ann 1500\? — dec1961, 1\+0, rated`).MatchString(txt) {
		t.Errorf("the seek reads %q", txt)
	}
	click(t, bob, "#seeks button.accept")
	waitJS(t, bob, `location.hash.startsWith("#/game/") && document.querySelectorAll("button.pit").length === 12`)
	waitJS(t, ann, `location.hash.startsWith("#/game/") && document.querySelectorAll("button.pit").length === 12`)
	if a, b := eval[string](t, ann, `location.hash`), eval[string](t, bob, `location.hash`); a != b {
		t.Fatalf("ann is in %s, bob in %s", a, b)
	}
	waitJS(t, ann, `!document.querySelector("#clockbottom").hidden`)
	// They play it out: whoever may move sows their leftmost house.
	deadline := time.Now().Add(60 * time.Second)
	for {
		over := 0
		for _, ctx := range []context.Context{ann, bob} {
			if eval[bool](t, ctx, `!document.querySelector("#summary").hidden`) {
				over++
				continue
			}
			eval[bool](t, ctx, `(() => { const b = document.querySelector("button.pit:not(:disabled)"); if (b) b.click(); return true })()`)
		}
		if over == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the game does not end")
		}
		time.Sleep(60 * time.Millisecond)
	}
	// Both ratings changed, shown beside the names.
	change := regexp.MustCompile(`\d+\? [+−]\d+ \(`)
	for name, ctx := range map[string]context.Context{"ann": ann, "bob": bob} {
		waitJS(t, ctx, `/\d+\? [+−]\d+ \(/.test(document.querySelector("#bottomlabel").textContent)`)
		if lbl := eval[string](t, ctx, `document.querySelector("#bottomlabel").textContent + " / " + document.querySelector("#toplabel").textContent`); len(change.FindAllString(lbl, -1)) != 2 {
			t.Errorf("%s sees %q", name, lbl)
		}
		resp, err := http.Get(srv.URL + "/api/players/" + name)
		if err != nil {
			t.Fatal(err)
		}
		var p struct {
			Ratings []struct {
				Pool   string  `json:"pool"`
				Rating float64 `json:"rating"`
				Games  int     `json:"games"`
			} `json:"ratings"`
		}
		json.NewDecoder(resp.Body).Decode(&p)
		resp.Body.Close()
		if len(p.Ratings) != 1 || p.Ratings[0].Games != 1 || p.Ratings[0].Pool != "dec1961/bullet" {
			t.Errorf("%s's ratings %+v", name, p.Ratings)
		}
	}
	shot(t, ann, "rated-game-over")
	open(t, ann, srv.URL+"/#/ratings")
	// One ladder, its two players provisional after a game each: apart.
	waitJS(t, ann, `document.querySelectorAll("#provisional tr").length === 3 && document.querySelector("#leaderboard-none")`)
	shot(t, ann, "ratings")
	// Ann's page: her ladder, her games, a download of them all.
	click(t, ann, `#provisional a[href="#/player/ann"]`)
	waitJS(t, ann, `document.querySelectorAll("#playerratings tr").length === 2 && document.querySelectorAll("#playergames tr").length === 1 && document.querySelector("#downloadall")`)
	shot(t, ann, "player")
}
