package search

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"kalah"
	"kalah/player"
)

func pos(t testing.TB, s string) kalah.Position {
	t.Helper()
	p, err := kalah.ParsePosition(s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestUtilities(t *testing.T) {
	r := kalah.Standard()
	tests := []struct {
		pos       string
		simple    int
		knowledge int
	}{
		// Stores 10-4: 4 x 6 = 24 for South. House terms, South: house 6
		// empty (1), house 5 has 2 = exact (2), house 1 has 13 = a lap (4),
		// house 2 has 6 = exact for house 2? (7-2=5: no), house 3 has 4 =
		// exact (2); North: house 1 empty (1), house 6 has 1 = exact (2).
		{"13,6,4,0,2,0/0,3,3,3,3,1 10-4 S", 24, 24 + (4 + 2 + 1 + 2 + 1) - (1 + 2 + 2)},
		// The same from North's view is the negation.
		{"13,6,4,0,2,0/0,3,3,3,3,1 10-4 N", 24, 24 + 10 - 5},
		// A finished board: the house terms cancel.
		{"0,0,0,0,0,0/0,0,0,0,0,0 20-28 S", -32, -32},
	}
	for _, tc := range tests {
		p := pos(t, tc.pos)
		if got := Simple.Evaluate(&r, &p, kalah.South); got != tc.simple {
			t.Errorf("simple(%s) = %d, want %d", tc.pos, got, tc.simple)
		}
		if got := Knowledge.Evaluate(&r, &p, kalah.South); got != tc.knowledge {
			t.Errorf("knowledge(%s) = %d, want %d", tc.pos, got, tc.knowledge)
		}
		if a, b := Knowledge.Evaluate(&r, &p, kalah.South), Knowledge.Evaluate(&r, &p, kalah.North); a != -b {
			t.Errorf("knowledge(%s) is not zero-sum: %d and %d", tc.pos, a, b)
		}
	}
}

// randomPositions plays random games and returns positions from them.
func randomPositions(r kalah.Rules, n int, seed uint64) []kalah.Position {
	rng := rand.New(rand.NewPCG(seed, 1))
	var out []kalah.Position
	for len(out) < n {
		p := r.Start()
		for !p.Over(&r) && len(out) < n {
			if rng.IntN(3) == 0 {
				out = append(out, p)
			}
			ms := p.Moves()
			var hs []kalah.Move
			for _, m := range ms {
				if m != kalah.Swap {
					hs = append(hs, m)
				}
			}
			p.Play(&r, int(hs[rng.IntN(len(hs))]))
		}
	}
	return out
}

// Alpha-beta finds the same value as minimax at every depth, with fewer
// nodes; KBAB never searches more than alpha-beta.
func TestAlphaBetaAgreesWithMinimax(t *testing.T) {
	for _, name := range []string{"kalah", "thesis", "egyptian", "ludii", "dec1961", "kgp"} {
		r, _ := kalah.PresetRules(name)
		var mmNodes, abNodes uint64
		for _, p := range randomPositions(r, 30, 5) {
			for _, u := range []Utility{Simple, Knowledge} {
				for d := 1; d <= 5; d++ {
					mm, err := Search(context.Background(), &r, p, Params{Algorithm: Minimax, Utility: u, Depth: d})
					if err != nil {
						t.Fatal(err)
					}
					ab, _ := Search(context.Background(), &r, p, Params{Algorithm: AlphaBeta, Utility: u, Depth: d})
					kb, _ := Search(context.Background(), &r, p, Params{Algorithm: KBAB, Utility: u, Depth: d})
					if mm.Score != ab.Score {
						t.Fatalf("%s %s depth %d: minimax %d, alpha-beta %d", name, p, d, mm.Score, ab.Score)
					}
					if !p.Legal(mm.Move) || !p.Legal(ab.Move) || !p.Legal(kb.Move) {
						t.Fatalf("%s %s: illegal move %s %s %s", name, p, mm.Move, ab.Move, kb.Move)
					}
					mmNodes += mm.Nodes
					abNodes += ab.Nodes
				}
			}
		}
		if abNodes >= mmNodes {
			t.Errorf("%s: alpha-beta searched %d nodes, minimax %d", name, abNodes, mmNodes)
		}
	}
}

// A depth-1 search takes the move with the best utility; deeper searches
// see the opponent's reply.
func TestSearchTactics(t *testing.T) {
	r := kalah.Standard()
	// South's house 1 (1 seed) captures North's 9 seeds in house 5.
	p := pos(t, "1,0,8,8,8,8/4,4,4,4,9,4 0-0 S")
	for _, a := range []Algorithm{Minimax, AlphaBeta, KBAB} {
		res, err := Search(context.Background(), &r, p, Params{Algorithm: a, Utility: Simple, Depth: 1})
		if err != nil {
			t.Fatal(err)
		}
		if res.Move != 1 || res.Score != 4*10 {
			t.Errorf("%s depth 1: %s scored %d, want 1 scored 40", a, res.Move, res.Score)
		}
	}
	// The end is near: the search reaches it and says so.
	end := pos(t, "0,0,0,0,1,1/0,0,0,0,0,2 20-24 S")
	res, _ := Search(context.Background(), &r, end, Params{Algorithm: AlphaBeta, Utility: Simple})
	if !res.Resolved || res.Depth > 10 {
		t.Errorf("endgame: resolved %v at depth %d", res.Resolved, res.Depth)
	}
	// The player reports the proven result in seeds.
	g, _ := kalah.NewGameFrom(r, end)
	pl := &Player{Algorithm: AlphaBeta, Utility: Knowledge, Time: time.Second}
	if _, err := pl.Move(context.Background(), g, player.Clock{}); err != nil {
		t.Fatal(err)
	}
	if rep := pl.LastReport(); !rep.Exact || rep.Score*StoreWeight != res.Score {
		t.Errorf("endgame report %+v, search score %d", rep, res.Score)
	}
}

// KBAB does not deepen a move that loses too much, so it searches fewer
// nodes than alpha-beta where moves lose a lot; with a clock, plain
// alpha-beta takes over once KBAB has nothing left to deepen.
func TestKBAB(t *testing.T) {
	r := kalah.Standard()
	// North threatens big captures, so many South lines fall far behind.
	p := pos(t, "1,1,1,1,20,1/0,0,1,0,10,1 0-0 S")
	ab, _ := Search(context.Background(), &r, p, Params{Algorithm: AlphaBeta, Utility: Simple, Depth: 8})
	kb, _ := Search(context.Background(), &r, p, Params{Algorithm: KBAB, Utility: Simple, Depth: 8})
	if kb.Nodes >= ab.Nodes {
		t.Errorf("kbab searched %d nodes, alpha-beta %d", kb.Nodes, ab.Nodes)
	}
	end := pos(t, "0,0,0,2,1,1/0,1,0,0,0,2 20-21 S")
	kt, _ := Search(context.Background(), &r, end, Params{Algorithm: KBAB, Utility: Simple, Deadline: time.Now().Add(time.Minute)})
	if !kt.Resolved {
		t.Errorf("kbab with a clock did not hand over to alpha-beta and finish: %+v", kt)
	}
}

func TestSearchStopsOnCancel(t *testing.T) {
	r, _ := kalah.PresetRules("thesis")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := Search(ctx, &r, r.Start(), Params{Algorithm: Minimax, Utility: Knowledge})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Stopped || res.Depth != 0 || res.Move != 6 {
		t.Errorf("cancelled search: %+v, want stopped at depth 0 with house 6", res)
	}
}

func TestSearchDoesNotAllocate(t *testing.T) {
	r := kalah.Standard()
	p := pos(t, "5,5,0,6,5,1/4,5,5,1,6,5 2-3 S")
	for _, a := range []Algorithm{Minimax, AlphaBeta, KBAB} {
		allocs := testing.AllocsPerRun(5, func() {
			Search(context.Background(), &r, p, Params{Algorithm: a, Utility: Knowledge, Depth: 6})
		})
		if allocs != 0 {
			t.Errorf("%s: %.0f allocations a search", a, allocs)
		}
	}
}

func TestSpecs(t *testing.T) {
	r := kalah.Standard()
	good := map[string]string{
		"alphabeta":                   "alphabeta:knowledge:time=1s",
		"alphabeta:knowledge:time=2s": "alphabeta:knowledge:time=2s",
		"minimax:simple:depth=6":      "minimax:simple:depth=6",
		"kbab:knowledge:time=500ms":   "kbab:knowledge:time=500ms",
		"kbab:s:depth=3:time=1s":      "kbab:simple:depth=3:time=1s",
		"hard":                        "alphabeta:knowledge:time=1s",
	}
	for spec, want := range good {
		p, err := player.New(spec, player.Options{Rules: r})
		if err != nil {
			t.Errorf("%s: %v", spec, err)
			continue
		}
		if got := p.(*Player).String(); got != want {
			t.Errorf("%s built %s, want %s", spec, got, want)
		}
	}
	for _, bad := range []string{"alphabeta:fast", "minimax:depth=-1", "minimax:depth=x", "kbab:time=soon", "alphabeta:simple:knowledge", "minimax:nodes=5"} {
		if _, err := player.New(bad, player.Options{Rules: r}); err == nil {
			t.Errorf("player.New(%q) succeeded", bad)
		}
	}
}

// Every searcher plays legal moves to the end under every preset, and
// reports what it did.
func TestPlayersUnderEveryPreset(t *testing.T) {
	for _, pr := range kalah.Presets() {
		r := pr.Rules
		for _, spec := range []string{"minimax:simple:depth=3", "alphabeta:knowledge:depth=4", "kbab:knowledge:depth=4"} {
			pl, err := player.New(spec, player.Options{Rules: r})
			if err != nil {
				t.Fatal(err)
			}
			g, _ := kalah.NewGame(r)
			for !g.Over() {
				m, err := pl.Move(context.Background(), g, player.Clock{})
				if err != nil {
					t.Fatalf("%s %s: %v", r.Name, spec, err)
				}
				if _, err := g.Play(m); err != nil {
					t.Fatalf("%s %s: %v", r.Name, spec, err)
				}
				if rep := pl.(player.Reporter).LastReport(); rep.Nodes == 0 || rep.Depth == 0 {
					t.Fatalf("%s %s: empty report %+v", r.Name, spec, rep)
				}
			}
		}
	}
}

// The expected line is a legal sequence of sowings from the position, as
// long as the depth searched or until the game ends, starting with the
// move chosen; alpha-beta and minimax agree on its value.
func TestPrincipalVariation(t *testing.T) {
	for _, name := range []string{"kalah", "thesis", "ludii"} {
		r, _ := kalah.PresetRules(name)
		for _, p := range randomPositions(r, 20, 9) {
			for _, a := range []Algorithm{Minimax, AlphaBeta, KBAB} {
				res, err := Search(context.Background(), &r, p, Params{Algorithm: a, Utility: Simple, Depth: 5})
				if err != nil {
					t.Fatal(err)
				}
				line := res.PV()
				if len(line) == 0 || line[0] != res.Move || len(line) > res.Depth {
					t.Fatalf("%s %s %s: PV %v for move %s at depth %d", name, a, p, line, res.Move, res.Depth)
				}
				q := p
				for i, m := range line {
					if !q.Legal(m) || q.Over(&r) {
						t.Fatalf("%s %s %s: PV %v: move %d (%s) illegal in %s", name, a, p, line, i+1, m, q)
					}
					q.Play(&r, int(m))
				}
				if a == Minimax && len(line) < res.Depth && !q.Over(&r) {
					// Minimax lines stop early only where the game ends.
					t.Fatalf("%s %s: minimax PV %v ends before depth %d in %s", name, p, line, res.Depth, q)
				}
				if a != KBAB && len(line) == res.Depth {
					// At the leaf the line's utility is the score.
					if v := Simple.Evaluate(&r, &q, p.ToMove()); v != res.Score {
						t.Fatalf("%s %s %s: PV %v ends in %s worth %d, score %d", name, a, p, line, q, v, res.Score)
					}
				}
			}
		}
	}
}
