package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"kalah"
	"kalah/player"
	"kalah/remote"
	"kalah/server"
)

// TestBrowserArena: three people and a bot play an arena to its end in
// real browsers. alice starts it on the Tournaments page (1+0, a minute);
// bob and carol join with a click, carol enters her bot, which answers at
// once; each person is taken to each of their games as it is paired and
// plays it by clicking houses; a spectator sees the standings change while
// it runs, watches one of its games from the list, and at the end sees the
// winner and standings that are the server's.
func TestBrowserArena(t *testing.T) {
	browserParallel(t)
	w := newBotWorld(t)
	alice := browser(t, 1000, 900)
	bob, cancelB := chromedp.NewContext(alice, chromedp.WithNewBrowserContext())
	defer cancelB()
	carol, cancelC := chromedp.NewContext(alice, chromedp.WithNewBrowserContext())
	defer cancelC()
	viewer, cancelV := chromedp.NewContext(alice, chromedp.WithNewBrowserContext())
	defer cancelV()
	people := map[string]context.Context{"alice": alice, "bob": bob, "carol": carol}
	for name, ctx := range people {
		signUp(t, ctx, w.web.URL, name)
		eval[bool](t, ctx, `(localStorage.setItem("kalah.animate", "off"), true)`)
	}
	// carol's bot: made on her account page's API, online with her token.
	token := evalAwait[string](t, carol, `fetch("/api/account/bots", {method: "POST", headers: {"Content-Type": "application/json"},
		body: JSON.stringify({name: "carolbot"})}).then(r => r.json()).then(b => b.token)`)
	p, err := player.New("greedy", player.Options{Rules: kalah.Standard(), Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	bot := &remote.Client{Addr: w.addr, Name: "carolbot", Token: token, Player: p, Wait: true}
	w.bots.Add(1)
	go func() {
		defer w.bots.Done()
		if err := bot.Run(w.ctx); err != nil && !errors.Is(err, context.Canceled) {
			w.errs <- fmt.Errorf("carolbot: %w", err)
		}
	}()

	// alice starts the arena from the lobby's link and the form.
	open(t, alice, w.web.URL+"/#/lobby")
	click(t, alice, "#lobbytours")
	waitJS(t, alice, `document.querySelector("#ptform")`)
	eval[bool](t, alice, `(() => {
		document.querySelector("#ptname").value = "Lunch arena";
		document.querySelector("#ptformat").value = "arena";
		document.querySelector("#ptformat").dispatchEvent(new Event("change"));
		document.querySelector("#ptclock").value = "60000:0";
		document.querySelector("#ptminutes").value = "1";
		document.querySelector("#ptstarts").value = "0";
		return true })()`)
	click(t, alice, "#ptcreate")
	waitJS(t, alice, `/^#\/tournament\/p\d+$/.test(location.hash) && document.querySelector("#ptwithdraw")`)
	id := strings.TrimPrefix(eval[string](t, alice, `location.hash`), "#/tournament/")
	for _, name := range []string{"bob", "carol"} {
		ctx := people[name]
		open(t, ctx, w.web.URL+"/?"+name+"-again#/tournaments") // a new document: carol's page knows her bot
		waitJS(t, ctx, `document.querySelector('#ptlist a[href="#/tournament/`+id+`"]')`)
		click(t, ctx, `#ptlist a[href="#/tournament/`+id+`"]`)
		waitJS(t, ctx, `document.querySelector("#ptjoin")`)
		click(t, ctx, "#ptjoin")
		waitJS(t, ctx, `document.querySelector("#ptwithdraw") || location.hash.startsWith("#/game/")`)
	}
	// carol enters her bot from the page.
	if !strings.HasPrefix(eval[string](t, carol, `location.hash`), "#/game/") {
		waitJS(t, carol, `document.querySelector("#ptenterbot")`)
		click(t, carol, "#ptenterbot")
	} else {
		evalAwait[string](t, carol, `fetch("/api/tournaments/`+id+`/join", {method: "POST", headers: {"Content-Type": "application/json"}, body: '{"bot":"carolbot"}'}).then(r => r.status + "")`)
	}
	open(t, viewer, w.web.URL+"/#/tournament/"+id)
	waitJS(t, viewer, `document.querySelectorAll("#ptstandings tr[data-player]").length === 4`)

	// The people play whatever game they are in, until the arena is over.
	state := func() server.PeopleTournamentState {
		resp, err := http.Get(w.web.URL + "/api/tournaments/" + id)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var st server.PeopleTournamentState
		if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
			t.Fatal(err)
		}
		return st
	}
	liveSeen := false
	deadline := time.Now().Add(2 * time.Minute)
	games := map[string]map[string]bool{} // the games each person's page was in
	byLink := map[string]int{}            // ... opened by the link, not taken there
	for state().Status != "finished" {
		if time.Now().After(deadline) {
			t.Fatal("the arena does not end")
		}
		for name, ctx := range people {
			// One look at the page a turn: where it is, the link to a
			// game paired before it followed, the house it may sow.
			pg := eval[arenaPage](t, ctx, `(() => {
				const b = document.querySelector("button.pit:not(:disabled)"), r = b && b.getBoundingClientRect();
				return {hash: location.hash, link: !!document.querySelector("#ptmygame"),
					x: r ? r.x + r.width / 2 : 0, y: r ? r.y + r.height / 2 : 0, house: !!b} })()`)
			if strings.HasPrefix(pg.Hash, "#/tournament/") {
				if pg.Link {
					byLink[name]++
					tryClick(ctx, "#ptmygame")
				}
				continue
			}
			if games[name] == nil {
				games[name] = map[string]bool{}
			}
			games[name][pg.Hash] = true
			if pg.House {
				// The mouse at the house's middle: a click a person makes
				// (a house disabled since is not sown).
				chromedp.Run(ctx, chromedp.MouseClickXY(pg.X, pg.Y))
			}
		}
		if !liveSeen {
			liveSeen = eval[bool](t, viewer, `document.querySelector("#ptstatus").textContent.startsWith("Playing") &&
				[...document.querySelectorAll("#ptstandings td.pts")].some(td => +td.textContent > 0)`)
			if liveSeen {
				shot(t, viewer, "arena-running")
			}
		}
	}
	if !liveSeen {
		t.Error("the spectator never saw points in the standings while the arena ran")
	}
	st := state()
	inGames := map[string]int{}
	for name, gs := range games {
		inGames[name] = len(gs)
	}
	t.Logf("%d games, %d played; the pages were in %v games, opened by the link %v", st.GamesTotal, st.Played, inGames, byLink)
	// A person still in a game at the end is on its page: their page went
	// on following them, even after they opened a game by its link.
	for _, s := range st.Standings {
		if name, ok := strings.CutPrefix(s.ID.String(), "user:"); ok && s.Playing != "" {
			waitJS(t, people[name], `location.hash === "#/game/`+s.Playing+`"`)
		}
	}
	if st.Winner == "" || st.Winner != st.Standings[0].Name || st.Played < 3 || len(st.Standings) != 4 {
		t.Fatalf("at the end: winner %q, %d played, standings %+v", st.Winner, st.Played, st.Standings)
	}
	for _, s := range st.Standings {
		if s.Games == 0 {
			t.Errorf("%s played no game", s.Name)
		}
	}
	if len(games["alice"])+len(games["bob"])+len(games["carol"]) < 4 {
		t.Errorf("the people's pages were in %v: no one played again", games)
	}
	// The pages took their people to their games (only a game paired in
	// the moment of joining is opened by its link).
	followed := 0
	for name, gs := range games {
		followed += len(gs) - byLink[name]
	}
	if followed < 2 {
		t.Errorf("the pages were taken to %d games by themselves (pages in %v, by the link %v)", followed, games, byLink)
	}
	// The spectator's page: the winner, the standings as the server has
	// them, the games listed with links.
	waitJS(t, viewer, fmt.Sprintf(`document.querySelector("#winner") && document.querySelector("#winner strong").textContent === %q`, st.Winner))
	rows := eval[[]string](t, viewer, `[...document.querySelectorAll("#ptstandings tr[data-player]")].map(r => r.dataset.player + "=" + r.querySelector("td.pts").textContent)`)
	for i, s := range st.Standings {
		if i >= len(rows) || rows[i] != fmt.Sprintf("%s=%d", s.ID, s.Points) {
			t.Errorf("row %d: the page shows %v, the server %s=%d", i, rows, s.ID, s.Points)
		}
	}
	links := eval[int](t, viewer, `document.querySelectorAll('#ptgames a[href^="#/game/"]').length`)
	if links == 0 || links != len(st.Games) {
		t.Errorf("%d game links for %d games", links, len(st.Games))
	}
	shot(t, viewer, "arena-end")
	for name, ctx := range people {
		if errs := eval[[]string](t, ctx, `window.kalahErrors`); len(errs) > 0 {
			t.Errorf("%s's page: %v", name, errs)
		}
	}
	open(t, viewer, w.web.URL+"/#/tournaments")
	waitJS(t, viewer, `document.querySelector('#ptlist a[href="#/tournament/`+id+`"]')`)
	shot(t, viewer, "tournaments-list")
	open(t, alice, w.web.URL+"/#/tournament/"+id)
	waitJS(t, alice, `document.querySelector("#winner")`)
	shot(t, alice, "arena-end-player")
	open(t, viewer, w.web.URL+"/#/tournament/"+id)
	waitJS(t, viewer, `document.querySelector("#ptgames a")`)
	// One of the games, watched from the list.
	last := st.Games[len(st.Games)-1].Game
	click(t, viewer, `#ptgames a[href="#/game/`+last+`"]`)
	waitJS(t, viewer, `location.hash === "#/game/`+last+`" && document.querySelectorAll("button.pit").length === 12 && document.querySelector("#moves").textContent.startsWith("1.")`)
	// On a phone the page fits its width (the tables scroll inside it).
	phone := browser(t, 360, 844)
	if err := chromedp.Do(phone, chromedp.EmulateViewport(360, 844, chromedp.EmulateScale(2), chromedp.EmulateMobile)); err != nil {
		t.Fatal(err)
	}
	for _, page := range []string{"#/tournament/" + id, "#/tournaments"} {
		open(t, phone, w.web.URL+"/"+page)
		waitJS(t, phone, `document.querySelector("#winner") || document.querySelector("#ptlist li")`)
		if wide := eval[int](t, phone, `document.documentElement.scrollWidth`); wide > 360 {
			t.Errorf("%s at 360 px: the page is %d px wide", page, wide)
		}
		shot(t, phone, "arena-phone-"+safeName(page))
	}
	select {
	case err := <-w.errs:
		t.Error(err)
	default:
	}
}

// tryClick clicks css if it is there within a moment; a page that moved
// on meanwhile (a game ended, the next one opened) is asked again later.
// arenaPage is what the arena's loop reads of a page each turn.
type arenaPage struct {
	Hash  string  `json:"hash"`
	Link  bool    `json:"link"`
	House bool    `json:"house"`
	X     float64 `json:"x"`
	Y     float64 `json:"y"`
}

func tryClick(ctx context.Context, css string) {
	cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	chromedp.Do(cctx, chromedp.Click(chromedp.CSS(css)))
}
