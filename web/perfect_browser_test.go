package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"kalah"
	"kalah/book"
	"kalah/egdb"
	"kalah/engine"
	"kalah/player"
	"kalah/server"
)

// TestBrowserPerfectFromOpenings plays the perfect level through the page,
// as a person would meet it: from the analysis board's "Play from here"
// at every opening of two plies (both moves forced), on either side,
// against moves chosen by random and greedy and clicked on the board. Every
// move the computer plays is checked against the solver (an engine of the
// test's own, without books), and each reply's time as the server recorded
// it (the game's "ms") and as the page saw it (from the person's click to
// the page offering the next move) is collected and logged.
//
// By default it plays Kalah(6,3) from every sixth opening, the engine
// with no database on disk (a small one built in memory), so a fresh
// machine runs it in seconds. KALAH_PERFECT_ALL=1 plays the test:
// Kalah(6,4), standard and with empty capture, every opening, with the
// 24-seed databases in KALAH_PERFECT_EGDB_DIR (engine.
// PerfectDBSeeds; the test is skipped without them), and fails any reply
// the server recorded above 100 ms; docs/PERFORMANCE.md records the run.
func TestBrowserPerfectFromOpenings(t *testing.T) {
	all := os.Getenv("KALAH_PERFECT_ALL") != ""
	type variant struct {
		name  string
		rules kalah.Rules
		every int // play every every-th opening
	}
	std := func(seeds int, ecap bool) kalah.Rules {
		r := kalah.Standard()
		r.Seeds, r.EmptyCapture = seeds, ecap
		return r.Canonical()
	}
	variants := []variant{{"Kalah(6,3)", std(3, false), 6}}
	dir := os.Getenv("KALAH_PERFECT_EGDB_DIR") // TestMain empties KALAH_EGDB_DIR
	if all {
		variants = []variant{{"Kalah(6,4)", std(4, false), 1}, {"Kalah(6,4)-empty-capture", std(4, true), 1}}
		if dir == "" {
			t.Skip("KALAH_PERFECT_ALL needs KALAH_PERFECT_EGDB_DIR, a directory holding the 24-seed databases (kalah egdb build --seeds 24, and --empty-capture)")
		}
	} else {
		dir = t.TempDir()
	}
	t.Setenv("KALAH_EGDB_DIR", dir) // where the server's perfect player looks
	srv, _ := browserServer(t)
	ctx := browser(t, 1000, 900)
	open(t, ctx, srv.URL+"/#/analyze")
	eval[bool](t, ctx, `(localStorage.setItem("kalah.animate", "off"), true)`)
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			var db *egdb.DB
			if all {
				if !book.HasStrategy(v.rules) {
					t.Skipf("no strategy book of %s is embedded: its replies are not bounded (book/data/README.md)", v.name)
				}
				var err error
				db, err = egdb.Load(filepath.Join(dir, egdb.FileName(v.rules, engine.PerfectDBSeeds)))
				if err != nil {
					t.Skipf("the %d-seed database of %s: %v", engine.PerfectDBSeeds, v.name, err)
				}
				t.Cleanup(func() { db.Close() })
			}
			solver, err := engine.New(v.rules, engine.Options{TableMB: 256, Threads: 2, DB: db, NoBook: true})
			if err != nil {
				t.Fatal(err)
			}
			pp := perfectPage{t: t, ctx: ctx, url: srv.URL, rules: v.rules, solver: solver, timed: all}
			opens := kalah.Openings(v.rules, 2)
			start := time.Now()
			for i, open := range opens {
				if i%v.every != 0 {
					continue
				}
				for _, opp := range []string{"random", "greedy"} {
					for _, side := range []kalah.Side{kalah.South, kalah.North} {
						pp.game(open, side, opp, uint64(i))
					}
				}
			}
			t.Logf("%s through the page, %d games: %d replies of perfect, server's time: %s; the page's (click to the next move offered): %s (%v with the checks)",
				v.name, pp.games, len(pp.server), durations(pp.server), durations(pp.page), time.Since(start).Round(time.Second))
		})
	}
}

// durations sums a list of durations up: median, 99th percentile, max.
func durations(ds []time.Duration) string {
	if len(ds) == 0 {
		return "none"
	}
	s := slices.Sorted(slices.Values(ds))
	q := func(f float64) time.Duration { return s[int(f*float64(len(s)-1)+0.5)] }
	return fmt.Sprintf("median %v, 99th percentile %v, max %v", q(0.5), q(0.99), q(1))
}

// perfectPage plays games against perfect on the page.
type perfectPage struct {
	t      *testing.T
	ctx    context.Context
	url    string
	rules  kalah.Rules
	solver *engine.Engine
	timed  bool
	games  int
	server []time.Duration // each reply as the server timed it
	page   []time.Duration // from the person's click to the next move offered
}

// game plays one game from the opening open, the person on the side
// opposite to perfect's, choosing with the player opp.
func (pp *perfectPage) game(open []kalah.Move, side kalah.Side, opp string, seed uint64) {
	t, ctx := pp.t, pp.ctx
	t.Helper()
	pp.games++
	g, err := kalah.NewGame(pp.rules)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range open {
		if _, err := g.Play(m); err != nil {
			t.Fatal(err)
		}
	}
	you := side.Other()
	person, err := player.New(opp, player.Options{Rules: pp.rules, Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	// The analysis board: the rules, the position, the opponent, the side.
	eval[bool](t, ctx, `(location.hash = "#/analyze?x=`+strconv.Itoa(pp.games)+`", true)`)
	waitJS(t, ctx, `document.querySelector("#pfstart")`)
	setRules := fmt.Sprintf(`(() => {
		const set = (id, v) => { const el = document.getElementById(id); if (el.type === "checkbox") el.checked = v; else el.value = v; el.dispatchEvent(new Event("change", {bubbles: true})); };
		set("houses", %d); set("seeds", %d); set("empty_capture", %t);
		set("position", %q);
		set("pfopp", "perfect"); set("pfside", %q);
		return true; })()`, pp.rules.Houses, pp.rules.Seeds, pp.rules.EmptyCapture, g.Position().String(), you.Letter())
	eval[bool](t, ctx, setRules)
	if got := eval[string](t, ctx, `document.getElementById("pfside").value`); got != you.Letter() {
		t.Fatalf("the side chosen is %q, not %s", got, you)
	}
	click(t, ctx, "#pfstart")
	waitJS(t, ctx, `location.hash.startsWith("#/game/")`)
	id := strings.TrimPrefix(eval[string](t, ctx, `location.hash`), "#/game/")
	mine := fmt.Sprintf(`button.pit[data-side=%q]`, you.Letter())
	var clicked time.Time
	seen := 0 // moves of the board checked
	for {
		waitJS(t, ctx, `!document.querySelector("#summary").hidden || document.querySelector('`+mine+`:not(:disabled)')`)
		if !clicked.IsZero() {
			pp.page = append(pp.page, time.Since(clicked))
			clicked = time.Time{} // one sample a click
		}
		b := pp.board(id)
		if seen == 0 && b.StartText != g.Position().String() {
			t.Fatalf("game %s starts at %s, not the opening's %s", id, b.StartText, g.Position())
		}
		for ; seen < len(b.Moves); seen++ {
			bm := b.Moves[seen]
			m, err := kalah.ParseMove(bm.Move)
			if err != nil {
				t.Fatal(err)
			}
			p := g.Position()
			if bm.Side == side {
				pp.check(open, side, opp, p, m, time.Duration(bm.Millis)*time.Millisecond)
			}
			if _, err := g.Play(m); err != nil {
				t.Fatalf("game %s: move %d (%s) is not legal at %s: %v", id, seen+1, bm.Move, p, err)
			}
		}
		if b.Over {
			if !g.Over() {
				t.Fatalf("game %s: over on the server, not on the board its moves give (%s)", id, g.Position())
			}
			return
		}
		if now := g.Position(); now.ToMove() != you {
			continue // the computer's move is on its way
		}
		m, err := person.Move(ctx, g, player.Clock{})
		if err != nil {
			t.Fatal(err)
		}
		house := fmt.Sprintf(`%s[data-house="%d"]:not(:disabled)`, mine, m)
		waitJS(t, ctx, `document.querySelector('`+house+`')`)
		clicked = time.Now()
		eval[bool](t, ctx, `(document.querySelector('`+house+`').click(), true)`)
		// The move taken, the next look waits for the page to offer a move.
		for deadline := time.Now().Add(15 * time.Second); len(pp.board(id).Moves) <= seen; time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("game %s: the click on house %d was not played", id, m)
			}
		}
	}
}

// check checks one of perfect's moves: optimal, and in time if timed.
func (pp *perfectPage) check(open []kalah.Move, side kalah.Side, opp string, p kalah.Position, m kalah.Move, took time.Duration) {
	t := pp.t
	t.Helper()
	pp.server = append(pp.server, took)
	res, err := pp.solver.Solve(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(res.Best, m) {
		t.Errorf("opening %v, perfect %s against %s: at %s it played %s; optimal %v (value %+d)", open, side, opp, p, m, res.Best, res.Value)
	}
	if pp.timed && took > 100*time.Millisecond {
		t.Errorf("opening %v, perfect %s against %s: the reply at %s took %v", open, side, opp, p, took)
	}
}

// board fetches the game's board as the page does.
func (pp *perfectPage) board(id string) server.Board {
	t := pp.t
	t.Helper()
	resp, err := http.Get(pp.url + "/api/games/" + id + "/board")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b server.Board
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("board of game %s: %s", id, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(&b); err != nil {
		t.Fatal(err)
	}
	return b
}
