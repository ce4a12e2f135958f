package web

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"kalah"
	"kalah/engine"
	"kalah/server"
)

// playOut records a game of r by kind ("random", or "greedy": the move
// that leaves the mover's store furthest ahead, a random one a fifth of the
// time) from seed, in our notation.
func playOut(t *testing.T, r kalah.Rules, kind string, seed uint64) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 11))
	g, err := kalah.NewGame(r)
	if err != nil {
		t.Fatal(err)
	}
	for !g.Over() {
		p := g.Position()
		legal := p.Moves()
		m := legal[rng.IntN(len(legal))]
		if kind == "greedy" && rng.IntN(5) != 0 {
			me, best := p.ToMove(), -1<<20
			for _, c := range legal {
				q := p
				q.Play(&r, int(c))
				if d := q.Store(me) - q.Store(me.Other()); d > best {
					m, best = c, d
				}
			}
		}
		if _, err := g.Play(m); err != nil {
			t.Fatal(err)
		}
	}
	return g.MoveText()
}

// checkMarks fails where the page's analysis of a game contradicts itself:
// a move named best that is marked, a mark that is not what the values say
// (the loss is the best value less the move played's, by the thresholds of
// classOf), a move as good as the best but not named best. It returns each
// side's share of best moves as the page's accuracy line counts it (the
// moves of class "best") and as the marks do (the moves without one), which
// must agree.
func checkMarks(t *testing.T, plies []Ply) {
	t.Helper()
	best := map[string][2]int{}
	for i, p := range plies {
		if p.Move == "" {
			continue
		}
		sgn := 1
		if p.ToMove == "N" {
			sgn = -1
		}
		loss := max(sgn*(p.Value-p.PlayedValue), 0)
		want := classOf(loss, sgn*p.Value, sgn*p.PlayedValue, p.LossExact)
		switch {
		case p.Move == p.Best && p.Class != "best":
			t.Errorf("ply %d: %s named best but marked %s (-%d): %+v", i, p.Move, p.Class, p.Loss, p)
		case p.Loss != loss || p.Class != want || p.Seeds != (loss+1)/2:
			t.Errorf("ply %d: loss %d (%d seeds) %q; its values %+d and %+d say %d, %q: %+v", i, p.Loss, p.Seeds, p.Class, p.Value, p.PlayedValue, loss, want, p)
		case p.Class == "best" && p.Move != p.Best:
			t.Errorf("ply %d: %s as good as the best but %s named best: %+v", i, p.Move, p.Best, p)
		case !p.Exact && p.Depth < 1:
			t.Errorf("ply %d: an estimate of no depth: %+v", i, p)
		}
		c := best[p.ToMove]
		if p.Class == "best" {
			c[0]++
		}
		if !strings.Contains("inaccuracy mistake blunder", p.Class) || p.Class == "" {
			c[1]++
		}
		best[p.ToMove] = c
	}
	for side, c := range best {
		if c[0] != c[1] {
			t.Errorf("%s: %d best moves, but %d moves without a mark", side, c[0], c[1])
		}
	}
}

// notGame hides an Analyzer's AnalyzeGame, so that the page analyses a
// game position by position, as it does when every engine is busy.
type notGame struct{ Analyzer }

// TestAnalyzeGameAPIConsistent analyses self-played games (random and
// greedy players, recorded) through the page's API as a server does a few
// minutes after a restart: no endgame database, a short time, most values
// estimates; through the whole-game analysis and the position-by-position
// one. No move named best is marked, every mark is what the values given
// with it say, the accuracy agrees with the marks, and a second view of
// the game is the first.
func TestAnalyzeGameAPIConsistent(t *testing.T) {
	r := kalah.Standard()
	for _, tc := range []struct {
		name     string
		analyzer Analyzer
	}{
		{"whole", &Engine{EgdbDir: "-", Options: engine.Options{TableMB: 16}}},
		{"position", notGame{&Engine{EgdbDir: "-", Options: engine.Options{TableMB: 16}}}},
	} {
		srv, _ := newServerWith(t, server.Config{}, Options{Analyzer: tc.analyzer, AnalysisRate: -1})
		for i, kind := range []string{"random", "greedy", "random", "greedy"} {
			t.Run(fmt.Sprintf("%s-%s-%d", tc.name, kind, i), func(t *testing.T) {
				moves := playOut(t, r, kind, uint64(10+i))
				req := GameAnalysisRequest{Rules: r, Moves: moves, Millis: 400}
				var runs [2][]Ply
				for j := range runs {
					if code := call(t, srv, "POST", Prefix+"analyze/game", req, &runs[j]); code != 200 {
						t.Fatalf("analysis %d: %d", j+1, code)
					}
				}
				est := 0
				for _, p := range runs[0] {
					if !p.Exact {
						est++
					}
				}
				t.Logf("%d plies, %d estimated", len(runs[0]), est)
				if est == 0 {
					t.Errorf("no estimate: the test does not test what it says")
				}
				checkMarks(t, runs[0])
				if d := cmp.Diff(runs[0], runs[1]); d != "" {
					t.Errorf("two views of one game differ (-first +second):\n%s", d)
				}
			})
		}
	}
}

// TestAnalysisMarksShortGame: a 20-ply game of Kalah(6,3) (exact values,
// from the opening books and quick solves) whose moves give away one seed
// once and two or three seeds once, the result kept, and otherwise are
// optimal, shows "?!" (inaccuracy) and "?" (mistake) at those moves and no
// other mark.
func TestAnalysisMarksShortGame(t *testing.T) {
	r := kalah.Standard()
	r.Name, r.Seeds = "", 3
	e, err := engine.New(r, engine.Options{TableMB: 32})
	if err != nil {
		t.Fatal(err)
	}
	// The plan: at the first ply where one can, a loss of 2 (one seed),
	// then at the next where one can, a loss of 4 or 6 (two or three
	// seeds), the side's result unchanged; optimal moves elsewhere.
	plan := [][]int{{2}, {4, 6}}
	g, err := kalah.NewGame(r)
	if err != nil {
		t.Fatal(err)
	}
	marked := map[int]string{}
	for ply := 0; ply < 20; ply++ {
		if g.Over() {
			t.Fatalf("the game ended at ply %d", ply)
		}
		p := g.Position()
		vals, err := e.Analyze(context.Background(), p, 0)
		if err != nil {
			t.Fatal(err)
		}
		top := -1 << 20
		for _, v := range vals {
			top = max(top, v.Value)
		}
		me := p.ToMove()
		now := p.Store(me) - p.Store(me.Other())
		pick := kalah.NoMove
		if len(plan) > 0 {
			for _, v := range vals {
				for _, l := range plan[0] {
					if top-v.Value == l && sign(now+v.Value) == sign(now+top) && pick == kalah.NoMove {
						pick, marked[ply] = v.Move, classOf(l, 0, 0, false)
					}
				}
			}
			if pick != kalah.NoMove {
				plan = plan[1:]
			}
		}
		for _, v := range vals {
			if v.Value == top && pick == kalah.NoMove {
				pick = v.Move
			}
		}
		if _, err := g.Play(pick); err != nil {
			t.Fatal(err)
		}
	}
	if len(plan) > 0 {
		t.Fatalf("the plan not played within 20 plies: %v", marked)
	}
	t.Logf("%s: marked %v", g.MoveText(), marked)
	srv, _ := newServerWith(t, server.Config{}, Options{Analyzer: &Engine{EgdbDir: "-"}, AnalysisRate: -1})
	var plies []Ply
	if code := call(t, srv, "POST", Prefix+"analyze/game", GameAnalysisRequest{Rules: r, Moves: g.MoveText(), Millis: 5000}, &plies); code != 200 {
		t.Fatalf("analysis: %d", code)
	}
	checkMarks(t, plies)
	for i, p := range plies[:20] {
		want := "best"
		if c, ok := marked[i]; ok {
			want = c
		}
		if p.Class != want || !p.LossExact {
			t.Errorf("ply %d: %s %q (loss %d, exact %v), want %q", i, p.Move, p.Class, p.Loss, p.LossExact, want)
		}
	}
}
