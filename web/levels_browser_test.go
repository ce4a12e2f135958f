package web

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"kalah"
	"kalah/engine"
	"kalah/player"
	"kalah/server"
)

// TestBrowserLevelNames: every level started from the lobby's one click
// and from the Play page is titled by the level's name (the board's title,
// the tab's, the seat's label with the engine as its tooltip, Watch's list
// and the lobby's), never by its engine's spec; a tournament of levels
// plays games titled by them. The menus offer each level once, first, and
// the engines under More; the tournament form sends what is ticked and
// nothing else.
func TestBrowserLevelNames(t *testing.T) {
	browserParallel(t)
	msrv := newMatchServerTB(t, server.Config{MaxOpenGames: 50, MaxGuestGamesPerAddr: 50})
	srv, _ := browserServerWith(t, func(ctx context.Context) Options {
		return Options{Server: msrv, Tournaments: serverTournaments(t, ctx, msrv)}
	})
	ctx := browser(t, 900, 1000)
	trouble := pageTrouble(t, ctx)
	levels := player.Levels()
	titled := func(from string, l player.Level) {
		t.Helper()
		waitJS(t, ctx, `location.hash.startsWith("#/game/") && document.querySelector("#gametitle").textContent.includes(" vs ")`)
		title := eval[string](t, ctx, `document.querySelector("#gametitle").textContent`)
		tab := eval[string](t, ctx, `document.title`)
		tip := eval[string](t, ctx, `document.querySelector("#toplabel").title`)
		if !strings.Contains(title, " vs "+l.Name+" — ") || !strings.Contains(tab, " vs "+l.Name+" — ") {
			t.Errorf("%s, level %s: titled %q, the tab %q", from, l.Name, title, tab)
		}
		if l.Spec != l.Name && (tip != l.Name+": "+l.Spec || strings.Contains(title, l.Spec)) {
			t.Errorf("%s, level %s: the seat's tooltip %q, the title %q: want the engine %s in the tooltip only", from, l.Name, tip, title, l.Spec)
		}
		click(t, ctx, "#abort")
		waitJS(t, ctx, `document.querySelector("#status").textContent.includes("abort")`)
	}
	for _, l := range levels {
		open(t, ctx, srv.URL+"/#/lobby")
		waitJS(t, ctx, fmt.Sprintf(`document.querySelector('#levels button[data-level=%q]')`, l.Name))
		click(t, ctx, fmt.Sprintf(`#levels button[data-level=%q]`, l.Name))
		titled("the lobby", l)
	}
	open(t, ctx, srv.URL+"/#/play")
	// Each level once, first; no engine that is a level's own among the
	// others; every engine under More.
	opts := eval[[]string](t, ctx, `[...document.querySelectorAll("#opponent option")].map(o => (o.parentElement.label || "") + "/" + o.value)`)
	seen := map[string]int{}
	for i, o := range opts {
		group, v, _ := strings.Cut(o, "/")
		seen[v]++
		if i > 0 && i <= len(levels) && group != "Difficulty" || i > len(levels) && !strings.HasPrefix(group, "More") {
			t.Errorf("option %d %q: the levels first, then the engines under More: %v", i, o, opts)
		}
		for _, l := range levels {
			if v == l.Spec && l.Spec != l.Name {
				t.Errorf("the engine %s of level %s is offered beside it: %v", v, l.Name, opts)
			}
		}
	}
	for v, n := range seen {
		if n > 1 {
			t.Errorf("%s is offered %d times: %v", v, n, opts)
		}
	}
	for _, l := range levels {
		open(t, ctx, srv.URL+"/#/play")
		waitJS(t, ctx, `document.querySelector("#opponent")`)
		eval[bool](t, ctx, fmt.Sprintf(`(document.querySelector("#opponent").value = %q, true)`, l.Name))
		click(t, ctx, "#start")
		titled("the Play page", l)
	}
	// The lists: a live game of every level, named by it in Watch's list
	// and the lobby's, asked for over the API by the level's engine
	// settings where it has some ("pekar-tree:3"; a bare kind of player,
	// "random", is that player, by its own name).
	kinds := map[string]bool{}
	for _, k := range player.List() {
		kinds[k.Name] = true
	}
	for _, l := range levels {
		ask := l.Spec
		if kinds[ask] {
			ask = l.Name
		}
		evalAwait[float64](t, ctx, fmt.Sprintf(`fetch("/api/games", {method: "POST", headers: {"Content-Type": "application/json"},
			body: JSON.stringify({south: "human", north: %q, casual: true})}).then(r => r.status)`, ask))
	}
	open(t, ctx, srv.URL+"/#/watch")
	waitJS(t, ctx, fmt.Sprintf(`document.querySelectorAll("#gamelist li").length >= %d`, 3*len(levels)))
	watch := eval[string](t, ctx, `document.querySelector("#gamelist").textContent`)
	open(t, ctx, srv.URL+"/#/lobby")
	waitJS(t, ctx, `document.querySelectorAll("#livegames li.gameline").length > 0`)
	lobby := eval[string](t, ctx, `document.querySelector("#livegames").textContent`)
	for _, l := range levels {
		for what, text := range map[string]string{"Watch": watch, "the lobby": lobby} {
			if !strings.Contains(text, "vs "+l.Name+" — ") {
				t.Errorf("%s does not list a game against %s: %s", what, l.Name, text)
			}
			if l.Spec != l.Name && strings.Contains(text, "vs "+l.Spec+" — ") {
				t.Errorf("%s names the engine %s: %s", what, l.Spec, text)
			}
		}
	}
	// A tournament of the first two levels, nothing else ticked by itself.
	open(t, ctx, srv.URL+"/#/tournaments")
	waitJS(t, ctx, `document.querySelectorAll(".tplayer").length > 0 && document.querySelector("#tchosen")`)
	if n := eval[int](t, ctx, `document.querySelectorAll(".tplayer:checked").length`); n != 0 {
		t.Errorf("%d players ticked before anyone ticked one", n)
	}
	pair := []string{levels[0].Name, levels[1].Name}
	for _, name := range pair {
		click(t, ctx, fmt.Sprintf(`.tplayer[value=%q]`, name))
	}
	if said := eval[string](t, ctx, `document.querySelector("#tchosen").textContent`); said != "Playing: "+strings.Join(pair, ", ")+"." {
		t.Errorf("the form says %q", said)
	}
	eval[bool](t, ctx, `(document.querySelector("#preset").value = "dec1961", document.querySelector("#preset").dispatchEvent(new Event("change")), document.querySelector("#tpermove").value = 200, true)`)
	click(t, ctx, "#tstart")
	waitJS(t, ctx, `location.hash.startsWith("#/tournament/") && document.querySelector("#standings")`)
	waitJS(t, ctx, `document.querySelectorAll('#tournament .games a[href^="#/game/"]').length === 2`)
	players := eval[[]string](t, ctx, `[...document.querySelectorAll("#standings td:nth-child(2)")].map(td => td.textContent).sort()`)
	if strings.Join(players, ",") != strings.Join(pair, ",") {
		t.Errorf("the tournament's players %v, want %v (what was ticked)", players, pair)
	}
	click(t, ctx, `#tournament .games a[href^="#/game/"]`)
	waitJS(t, ctx, `document.querySelector("#gametitle").textContent.includes(" vs ")`)
	title := eval[string](t, ctx, `document.querySelector("#gametitle").textContent`)
	if !strings.Contains(title, pair[0]) || !strings.Contains(title, pair[1]) {
		t.Errorf("a tournament game is titled %q, want its levels %v", title, pair)
	}
	for _, e := range trouble() {
		t.Errorf("console: %s", e)
	}
}

// TestBrowserPerfectWithoutDatabase: while the perfect player's endgame
// database is built (Options.DBBuilds, as /api/meta's building says), a
// game against perfect says, on the game's page, that perfect plays
// without it; a game against another level says nothing of it, nor does a
// game against perfect once the database is built.
func TestBrowserPerfectWithoutDatabase(t *testing.T) {
	browserParallel(t)
	var mu sync.Mutex
	building := true
	srv, _ := browserServerWith(t, func(context.Context) Options {
		return Options{DBBuilds: func() []engine.DBBuild {
			mu.Lock()
			defer mu.Unlock()
			if !building {
				return nil
			}
			return []engine.DBBuild{{Rules: kalah.Standard(), Seeds: 24, Path: "x", Done: 30, Total: 100}}
		}}
	})
	ctx := browser(t, 900, 900)
	start := func(level string) {
		t.Helper()
		open(t, ctx, srv.URL+"/?"+level+"#/lobby")
		click(t, ctx, fmt.Sprintf(`#levels button[data-level=%q]`, level))
		waitJS(t, ctx, `location.hash.startsWith("#/game/") && document.querySelector("#gametitle").textContent.includes(" vs `+level+`")`)
	}
	note := `document.querySelector("#perfectnote")`
	start("perfect")
	waitJS(t, ctx, `!`+note+`.hidden && `+note+`.textContent.includes("without its endgame database") && `+note+`.textContent.includes("30%")`)
	click(t, ctx, "#abort")
	start("medium")
	time.Sleep(300 * time.Millisecond)
	if eval[bool](t, ctx, `!`+note+`.hidden`) {
		t.Errorf("a game against medium says %q", eval[string](t, ctx, note+`.textContent`))
	}
	click(t, ctx, "#abort")
	mu.Lock()
	building = false
	mu.Unlock()
	start("perfect")
	time.Sleep(300 * time.Millisecond)
	if eval[bool](t, ctx, `!`+note+`.hidden`) {
		t.Errorf("with the database built, the game says %q", eval[string](t, ctx, note+`.textContent`))
	}
}
