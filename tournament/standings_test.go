package tournament

import (
	"math"
	"testing"
	"time"

	"kalah"

	"github.com/google/go-cmp/cmp"
)

func game(south, north, ss, ns int) Played {
	return Played{Scheduled: Scheduled{South: south, North: north}, SouthSeeds: ss, NorthSeeds: ns}
}

// TestStandingsByHand checks a small fixed tournament against a table
// worked out by hand: points (win 2, draw 1), then total seeds, then
// head-to-head points among those still tied.
func TestStandingsByHand(t *testing.T) {
	type row struct {
		Rank, Entrant, Games, Wins, Draws, Losses, Points, Seeds, HeadToHead int
	}
	tests := []struct {
		name    string
		players []string
		games   []Played
		byes    map[int]int
		want    []row
	}{
		{
			// A: won 30-18 v B, lost 23-25 v C, drew 24-24 v D: 3 points, 77 seeds.
			// B: lost v A, won 28-20 v C, won 28-20 v D: 4 points, 74 seeds.
			// C: lost v B, won v A, won 26-22 v D, lost 18-30 v D: 4 points, 89 seeds.
			// D: drew v A, lost v B, lost v C, won v C: 3 points, 96 seeds.
			// C and B tie on points, C has more seeds; so do D and A.
			name:    "seeds break ties",
			players: []string{"A", "B", "C", "D"},
			games: []Played{
				game(0, 1, 30, 18),
				game(1, 2, 28, 20),
				game(2, 0, 25, 23),
				game(3, 0, 24, 24),
				game(3, 1, 20, 28),
				game(2, 3, 26, 22),
				game(3, 2, 30, 18),
			},
			want: []row{
				{Rank: 1, Entrant: 2, Games: 4, Wins: 2, Losses: 2, Points: 4, Seeds: 89},
				{Rank: 2, Entrant: 1, Games: 3, Wins: 2, Losses: 1, Points: 4, Seeds: 74},
				{Rank: 3, Entrant: 3, Games: 4, Wins: 1, Draws: 1, Losses: 2, Points: 3, Seeds: 96},
				{Rank: 4, Entrant: 0, Games: 3, Wins: 1, Draws: 1, Losses: 1, Points: 3, Seeds: 77},
			},
		},
		{
			// X beat Y 26-22, Y beat W 26-22, W beat X 26-22, X drew W 24-24.
			// X and W: 3 points and 72 seeds each; between them W scored 3
			// (the win and the draw), X 1. Y: 2 points, 48 seeds.
			name:    "head-to-head breaks ties on points and seeds",
			players: []string{"X", "Y", "W"},
			games: []Played{
				game(0, 1, 26, 22),
				game(1, 2, 26, 22),
				game(2, 0, 26, 22),
				game(0, 2, 24, 24),
			},
			want: []row{
				{Rank: 1, Entrant: 2, Games: 3, Wins: 1, Draws: 1, Losses: 1, Points: 3, Seeds: 72, HeadToHead: 3},
				{Rank: 2, Entrant: 0, Games: 3, Wins: 1, Draws: 1, Losses: 1, Points: 3, Seeds: 72, HeadToHead: 1},
				{Rank: 3, Entrant: 1, Games: 2, Wins: 1, Losses: 1, Points: 2, Seeds: 48},
			},
		},
		{
			// A cycle with equal scores: every tie-break is equal, so all
			// three share first place, listed in entrant order.
			name:    "complete tie shares the rank",
			players: []string{"P", "Q", "R"},
			games: []Played{
				game(0, 1, 26, 22),
				game(1, 2, 26, 22),
				game(2, 0, 26, 22),
			},
			want: []row{
				{Rank: 1, Entrant: 0, Games: 2, Wins: 1, Losses: 1, Points: 2, Seeds: 48, HeadToHead: 2},
				{Rank: 1, Entrant: 1, Games: 2, Wins: 1, Losses: 1, Points: 2, Seeds: 48, HeadToHead: 2},
				{Rank: 1, Entrant: 2, Games: 2, Wins: 1, Losses: 1, Points: 2, Seeds: 48, HeadToHead: 2},
			},
		},
		{
			// A Swiss bye is worth a won pairing (here 4 points) and no seeds.
			name:    "bye",
			players: []string{"A", "B", "C"},
			games:   []Played{game(0, 1, 40, 8), game(1, 0, 30, 18)},
			byes:    map[int]int{1: 2},
			want: []row{
				{Rank: 1, Entrant: 2, Points: 4},
				{Rank: 2, Entrant: 0, Games: 2, Wins: 1, Losses: 1, Points: 2, Seeds: 58},
				{Rank: 3, Entrant: 1, Games: 2, Wins: 1, Losses: 1, Points: 2, Seeds: 38},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Compute(tt.players, tt.games, tt.byes, 4)
			var rows []row
			for _, s := range got {
				rows = append(rows, row{s.Rank, s.Entrant, s.Games, s.Wins, s.Draws, s.Losses, s.Points, s.Seeds, s.HeadToHead})
				if s.Player != tt.players[s.Entrant] {
					t.Errorf("entrant %d named %q, want %q", s.Entrant, s.Player, tt.players[s.Entrant])
				}
			}
			if diff := cmp.Diff(tt.want, rows); diff != "" {
				t.Errorf("standings (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCross(t *testing.T) {
	games := []Played{game(0, 1, 30, 18), game(1, 0, 24, 24), game(1, 0, 40, 8)}
	got := Cross(2, games)
	want := [][]Cell{
		{{}, {Games: 3, Wins: 1, Draws: 1, Losses: 1, Points: 3, Seeds: 12 + 0 - 32}},
		{{Games: 3, Wins: 1, Draws: 1, Losses: 1, Points: 3, Seeds: -12 + 0 + 32}, {}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("cross (-want +got):\n%s", diff)
	}
}

func repeat(g Played, n int) []Played {
	out := make([]Played, n)
	for i := range out {
		out[i] = g
	}
	return out
}

func TestRatings(t *testing.T) {
	// Player 0 scores 75% over 4000 games: 400 log10(3) = 190.8 Elo better.
	var games []Played
	games = append(games, repeat(game(0, 1, 30, 18), 3000)...)
	games = append(games, repeat(game(1, 0, 30, 18), 1000)...)
	r := Ratings(2, games)
	diff := r[0].Elo - r[1].Elo
	if math.Abs(diff-190.8) > 2 {
		t.Errorf("Elo difference %.1f, want 190.8", diff)
	}
	if math.Abs(r[0].Elo+r[1].Elo) > 1e-6 {
		t.Errorf("ratings %v do not average 0", r)
	}
	if r[0].Err95 <= 0 || r[0].Err95 > 15 {
		t.Errorf("95%% error %.1f out of range for 4000 games", r[0].Err95)
	}
	// Fewer games, wider interval; an even score, equal ratings.
	few := Ratings(2, append(repeat(game(0, 1, 30, 18), 5), repeat(game(1, 0, 30, 18), 5)...))
	if math.Abs(few[0].Elo-few[1].Elo) > 1e-6 {
		t.Errorf("even score gave %v", few)
	}
	if few[0].Err95 <= r[0].Err95 {
		t.Errorf("10 games error %.1f not wider than 4000 games %.1f", few[0].Err95, r[0].Err95)
	}
	// A clean sweep stays finite.
	sweep := Ratings(2, repeat(game(0, 1, 30, 18), 20))
	if math.IsInf(sweep[0].Elo, 0) || math.IsNaN(sweep[0].Elo) || sweep[0].Elo <= 0 {
		t.Errorf("sweep rating %v", sweep)
	}
	// Transitive: 0 beats 1 beats 2 at 75%: 0 is about twice as far above 2.
	var chain []Played
	chain = append(chain, repeat(game(0, 1, 30, 18), 750)...)
	chain = append(chain, repeat(game(1, 0, 30, 18), 250)...)
	chain = append(chain, repeat(game(1, 2, 30, 18), 750)...)
	chain = append(chain, repeat(game(2, 1, 30, 18), 250)...)
	c := Ratings(3, chain)
	if d := c[0].Elo - c[2].Elo; math.Abs(d-2*190.8) > 10 {
		t.Errorf("chain difference %.1f, want about 381.6", d)
	}
}

func TestEloDiff(t *testing.T) {
	e, err := EloDiff(75, 0, 25)
	if math.Abs(e-190.85) > 0.1 {
		t.Errorf("EloDiff(75,0,25) = %.2f, want 190.85", e)
	}
	if err <= 0 || math.IsInf(err, 0) {
		t.Errorf("error %v", err)
	}
	if e, _ := EloDiff(10, 0, 10); e != 0 {
		t.Errorf("even score %v", e)
	}
}

func TestSPRT(t *testing.T) {
	lo, hi := Bounds(0.05, 0.05)
	if math.Abs(lo+2.944) > 1e-3 || math.Abs(hi-2.944) > 1e-3 {
		t.Errorf("bounds %v %v, want ±2.944", lo, hi)
	}
	// By hand: 60 wins, 20 draws, 20 losses: mean 0.7, variance 0.16;
	// s0 = 0.5, s1 = 1/(1+10^(-20/400)) = 0.528751;
	// LLR = 100 * 0.028751 * (1.4 - 1.028751) / 0.32 = 3.3356.
	if got := LLR(60, 20, 20, 0, 20); math.Abs(got-3.3356) > 1e-3 {
		t.Errorf("LLR = %.4f, want 3.3356", got)
	}
	if got := LLR(0, 0, 0, 0, 20); got != 0 {
		t.Errorf("no games: LLR %v", got)
	}
	if got := LLR(20, 20, 60, 0, 20); got >= 0 {
		t.Errorf("losing: LLR %v not negative", got)
	}
	if got := LLR(5, 0, 0, 0, 20); math.IsInf(got, 0) || math.IsNaN(got) || got <= 0 {
		t.Errorf("all wins: LLR %v", got)
	}
	cfg := SPRTConfig{Elo0: 0, Elo1: 20, Alpha: 0.05, Beta: 0.05, MaxGames: 1000}
	tests := []struct {
		w, d, l int
		want    Verdict
	}{
		{60, 20, 20, AcceptH1},
		{20, 20, 60, AcceptH0},
		{10, 10, 10, Undecided},
	}
	for _, tt := range tests {
		st := Evaluate(cfg, "a", "b", tt.w, tt.d, tt.l)
		if st.Verdict != tt.want {
			t.Errorf("%d/%d/%d: verdict %s (LLR %.2f), want %s", tt.w, tt.d, tt.l, st.Verdict, st.LLR, tt.want)
		}
		if st.Statement == "" {
			t.Errorf("no statement")
		}
	}
	if st := Evaluate(cfg, "a", "b", 500, 0, 500); !st.Exhausted {
		t.Errorf("1000 even games not exhausted: %+v", st)
	}
}

func TestPairUp(t *testing.T) {
	met := map[[2]int]bool{pairKey(0, 1): true, pairKey(2, 3): true}
	// Greedy 0-2 would leave 1-3 free: fine. Make greedy fail: 0-2 met too.
	met[pairKey(0, 2)] = true
	got := pairUp([]int{0, 1, 2, 3}, met)
	want := [][2]int{{0, 3}, {1, 2}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("pairs (-want +got):\n%s", diff)
	}
	// Order 4, 1, 3, 2 after 1-0 and 2-3 met: 4-1 first would force 3-2.
	met = map[[2]int]bool{pairKey(0, 1): true, pairKey(2, 3): true}
	got = pairUp([]int{4, 1, 3, 2}, met)
	for _, p := range got {
		if met[pairKey(p[0], p[1])] {
			t.Errorf("rematch %v in %v", p, got)
		}
	}
	// Everyone has met everyone: neighbours in rank order.
	all := map[[2]int]bool{pairKey(0, 1): true, pairKey(0, 2): true, pairKey(0, 3): true, pairKey(1, 2): true, pairKey(1, 3): true, pairKey(2, 3): true}
	if diff := cmp.Diff([][2]int{{0, 1}, {2, 3}}, pairUp([]int{0, 1, 2, 3}, all)); diff != "" {
		t.Errorf("fallback (-want +got):\n%s", diff)
	}
}

func TestPresetClock(t *testing.T) {
	thesis, _ := kalah.PresetRules("thesis")
	man, _ := kalah.PresetRules("manchester")
	tests := []struct {
		name  string
		rules kalah.Rules
		want  Clock
		err   bool
	}{
		{"thesis", kalah.Standard(), Clock{PerMove: 30 * time.Second}, false},
		{"rules", thesis, Clock{PerMove: 30 * time.Second}, false},
		{"rules", man, Clock{Budget: time.Hour}, false},
		{"rules", kalah.Standard(), Clock{}, false},
		{"NONE", kalah.Standard(), Clock{}, false},
		{"blitz", kalah.Standard(), Clock{}, true},
	}
	for _, tt := range tests {
		got, err := PresetClock(tt.name, tt.rules)
		if (err != nil) != tt.err || got != tt.want {
			t.Errorf("PresetClock(%q, %s) = %+v, %v", tt.name, tt.rules, got, err)
		}
	}
}

func TestSplitLabel(t *testing.T) {
	tests := []struct{ in, name, spec string }{
		{"random", "", "random"},
		{"alphabeta:depth=3", "", "alphabeta:depth=3"},
		{"alice=exec:python3 alice.py --x=1", "alice", "exec:python3 alice.py --x=1"},
		{"bob=random:seed=5", "bob", "random:seed=5"},
		{" carol = greedy ", "carol", "greedy"},
		{"=greedy", "", "=greedy"},
	}
	for _, tt := range tests {
		n, s := SplitLabel(tt.in)
		if n != tt.name || s != tt.spec {
			t.Errorf("SplitLabel(%q) = %q, %q; want %q, %q", tt.in, n, s, tt.name, tt.spec)
		}
	}
}
