package web

import (
	"context"
	"math/rand/v2"
	"net/http"
	"testing"
	"time"

	"kalah"
)

// solve is a plain minimax with no pruning, written apart from Search: the
// final store difference for the player to move.
func solve(r *kalah.Rules, p kalah.Position) int {
	if p.Over(r) {
		p.Settle(r)
		me := p.ToMove()
		return p.Store(me) - p.Store(me.Other())
	}
	best := -1 << 30
	for _, m := range p.Moves() {
		v := moveValue(r, p, m)
		best = max(best, v)
	}
	return best
}

func moveValue(r *kalah.Rules, p kalah.Position, m kalah.Move) int {
	c := p
	me := c.ToMove()
	if m == kalah.Swap {
		c.Swap()
		return -solve(r, c)
	}
	c.Play(r, int(m))
	if c.ToMove() == me {
		return solve(r, c)
	}
	return -solve(r, c)
}

// randomEndgame returns a position of the rules with few seeds left.
func randomEndgame(rng *rand.Rand, r kalah.Rules, seeds int) kalah.Position {
	n := r.Houses
	for {
		s, no := make([]int, n), make([]int, n)
		for range seeds {
			if rng.IntN(2) == 0 {
				s[rng.IntN(n)]++
			} else {
				no[rng.IntN(n)]++
			}
		}
		rest := r.TotalSeeds() - seeds
		ss := rng.IntN(rest + 1)
		p, err := kalah.NewPosition(s, no, ss, rest-ss, kalah.Side(rng.IntN(2)))
		if err != nil {
			panic(err)
		}
		if !p.Over(&r) {
			return p
		}
	}
}

func TestSearchMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	var rulesList []kalah.Rules
	for _, name := range []string{"kalah", "egyptian", "ludii", "dec1961"} {
		r, _ := kalah.PresetRules(name)
		rulesList = append(rulesList, r)
	}
	small := kalah.Rules{Houses: 3, Seeds: 3, SowOpponentStore: true}
	rulesList = append(rulesList, small)
	for _, r := range rulesList {
		for i := 0; i < 12; i++ {
			p := randomEndgame(rng, r, 4+rng.IntN(6))
			an, err := Search{}.Analyze(context.Background(), r, p, 5*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			if len(an.Moves) != len(p.Moves()) {
				t.Fatalf("%s: %d moves, want %d", p, len(an.Moves), len(p.Moves()))
			}
			for j, mv := range an.Moves {
				want := moveValue(&r, p, mv.Move)
				if !mv.Exact || mv.Value != want {
					t.Errorf("%v %s move %s: got %d exact=%v, want %d", r, p, mv.Move, mv.Value, mv.Exact, want)
				}
				if j > 0 && mv.Value > an.Moves[j-1].Value {
					t.Errorf("%s: moves not sorted best first", p)
				}
			}
		}
	}
}

func TestSearchEstimatesWhenDeep(t *testing.T) {
	r := kalah.Standard()
	an, err := Search{MaxDepth: 3}.Analyze(context.Background(), r, r.Start(), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range an.Moves {
		if m.Exact || m.Depth != 3 {
			t.Errorf("move %s: exact=%v depth %d, want an estimate at depth 3", m.Move, m.Exact, m.Depth)
		}
	}
	// House 3 ends in the store: at depth 1 it is worth one seed.
	an, _ = Search{MaxDepth: 1}.Analyze(context.Background(), r, r.Start(), time.Second)
	if an.Best() != 3 || an.Moves[0].Value != 1 {
		t.Errorf("depth 1: %+v", an.Moves)
	}
	p := r.Start()
	if _, err := (Search{}).Analyze(context.Background(), kalah.Rules{Houses: 4, Seeds: 4}, p, time.Second); err == nil {
		t.Error("mismatched rules accepted")
	}
}

func TestAnalyzeRoute(t *testing.T) {
	srv, _ := newServer(t)
	r := kalah.Standard()
	const pos = "0,0,1,0,2,1/1,0,0,2,0,1 20-20 S"
	p, _ := kalah.ParsePosition(pos)
	var out AnalyzeResponse
	if code := call(t, srv, "POST", Prefix+"analyze", AnalyzeRequest{Rules: r, Position: pos, Millis: 2000}, &out); code != 200 {
		t.Fatal(code)
	}
	if len(out.Moves) != 3 || out.Source != "engine" {
		t.Fatalf("analysis: %+v", out)
	}
	for _, m := range out.Moves {
		if want := moveValue(&r, p, m.Move); !m.Exact || m.Value != want {
			t.Errorf("move %s: %d exact=%v, want %d", m.Move, m.Value, m.Exact, want)
		}
	}
	var over AnalyzeResponse
	call(t, srv, "POST", Prefix+"analyze", AnalyzeRequest{Rules: r, Position: "0,0,0,0,0,0/1,0,0,0,0,0 23-24 S"}, &over)
	if !over.Over || over.Score != [2]int{23, 25} {
		t.Errorf("over: %+v", over)
	}
	for _, tc := range []struct {
		name string
		body any
		code int
	}{
		{"bad json", "nope", 400},
		{"bad position", AnalyzeRequest{Rules: r, Position: "1,2,3"}, 400},
		{"wrong houses", AnalyzeRequest{Rules: r, Position: "1,1/1,1 0-0 S"}, 400},
		{"bad rules", AnalyzeRequest{Rules: kalah.Rules{Houses: 99, Seeds: 4}}, 400},
		{"too long", AnalyzeRequest{Rules: r, Millis: 60_000}, 400},
		{"negative time", AnalyzeRequest{Rules: r, Millis: -5}, 400},
	} {
		if code := call(t, srv, "POST", Prefix+"analyze", tc.body, nil); code != tc.code {
			t.Errorf("%s: %d, want %d", tc.name, code, tc.code)
		}
	}
}

func TestAnalyzeGameRoute(t *testing.T) {
	srv, _ := newServer(t)
	r := kalah.Standard()
	var plies []Ply
	if code := call(t, srv, "POST", Prefix+"analyze/game", GameAnalysisRequest{Rules: r, Moves: "1. 3+6 1", Millis: 300}, &plies); code != 200 {
		t.Fatal(code)
	}
	if len(plies) != 4 || plies[0].Move != "3" || !plies[0].Extra || plies[3].Move != "" || plies[3].ToMove != "S" {
		t.Fatalf("plies: %+v", plies)
	}
	// From an endgame the values are exact and seen from South.
	start := "0,0,0,0,0,1/0,0,0,0,0,1 23-23 N"
	// North's 6 ends in its store and empties its side: South keeps its
	// last seed, 24-24.
	plies = nil
	call(t, srv, "POST", Prefix+"analyze/game", GameAnalysisRequest{Rules: r, Start: start, Moves: "6", Millis: 300}, &plies)
	if len(plies) != 2 || !plies[0].Exact || plies[0].Value != 0 || plies[0].Best != "6" || !plies[1].Exact || plies[1].Value != 0 || plies[1].Move != "" {
		t.Errorf("endgame plies: %+v", plies)
	}
	for _, tc := range []struct {
		name string
		body any
	}{
		{"illegal move", GameAnalysisRequest{Rules: r, Moves: "1. 3 3"}},
		{"garbage", GameAnalysisRequest{Rules: r, Moves: "1. x"}},
		{"bad start", GameAnalysisRequest{Rules: r, Start: "x", Moves: ""}},
		{"bad rules", GameAnalysisRequest{Rules: kalah.Rules{}, Moves: ""}},
		{"too long", GameAnalysisRequest{Rules: r, Millis: 1e9}},
	} {
		if code := call(t, srv, "POST", Prefix+"analyze/game", tc.body, nil); code != http.StatusBadRequest {
			t.Errorf("%s: %d", tc.name, code)
		}
	}
}
