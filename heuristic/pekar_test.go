package heuristic

import (
	"context"
	"testing"

	"kalah"
	"kalah/player"
)

func pos(t *testing.T, s string) kalah.Position {
	t.Helper()
	p, err := kalah.ParsePosition(s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// In these positions South moves; South's house h is the h-th number, house
// 6 next to its store; North's house j faces South's house 7-j.
func TestPekarHierarchy(t *testing.T) {
	r := kalah.Standard()
	tests := []struct {
		name string
		pos  string
		move kalah.Move
		rule Rule
	}{
		// House 6 (1 seed) ends in the store; house 1 (1 seed) would capture
		// North's 5 seeds in house 5 opposite South's empty house 2.
		{"store beats capture", "1,0,0,0,0,1/4,4,4,4,5,4 0-0 S", 6, RuleStore},
		// Houses 5 (2 seeds) and 6 (1 seed) both end in the store: the one
		// nearest the store first, so the other still does after it.
		{"store nearest the store", "0,0,0,0,2,1/4,4,4,4,4,4 0-0 S", 6, RuleStore},
		// No move ends in the store; house 1 captures North's 5 (via empty
		// house 2), house 3 captures North's 9 (via empty house 4): the
		// bigger capture wins, though North threatens South's house 1
		// (TestThreats), so the defence rule had a move too.
		{"biggest capture", "1,0,1,0,0,3/4,4,9,4,5,0 0-0 S", 3, RuleCapture},
		// 13 seeds from house 1 go round the board and land in house 1
		// itself, now holding only that seed: a capture of North's house 6.
		{"round the board capture", "13,8,8,8,8,8/4,4,4,4,4,4 0-0 S", 1, RuleCapture},
		// Nothing ends in the store or captures; North's house 1 (1 seed)
		// would land in its empty house 2 and take South's house 5 (8 seeds).
		{"defence", "2,2,2,2,8,2/1,0,4,4,4,4 0-0 S", 5, RuleDefence},
		// Nothing ends in the store, captures or is threatened.
		{"fallback", "7,7,7,7,7,7/7,7,7,7,7,7 0-0 S", 6, RuleFallback},
		{"fallback skips empty houses", "7,7,7,7,7,0/7,7,7,7,7,7 0-0 S", 5, RuleFallback},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := pos(t, tc.pos)
			m, rule, err := PekarChoice(&r, &p)
			if err != nil {
				t.Fatal(err)
			}
			if m != tc.move || rule != tc.rule {
				t.Errorf("PekarChoice(%s) = %s by %s, want %s by %s", tc.pos, m, rule, tc.move, tc.rule)
			}
		})
	}
}

// The simulated sowing agrees with the rules' own: whenever captureOf
// reports a capture, playing the move captures, and the opposite house
// held the seeds reported.
func TestCaptureOfAgreesWithPlay(t *testing.T) {
	for _, name := range []string{"kalah", "thesis", "gamelink", "egyptian", "manchester", "kgp"} {
		r, err := kalah.PresetRules(name)
		if err != nil {
			t.Fatal(err)
		}
		r.Pie = false
		g, _ := kalah.NewGame(r)
		rng := NewRandom(7)
		for i := 0; i < 400 && !g.Over(); i++ {
			p := g.Position()
			me := p.ToMove()
			for h := 1; h <= r.Houses; h++ {
				if p.House(me, h) == 0 {
					continue
				}
				c := captureOf(&r, &p, me, h)
				q := p
				eff := q.Play(&r, h)
				if c > 0 && eff&kalah.Capture == 0 {
					t.Fatalf("%s: %s house %d: captureOf says %d, Play captures nothing", name, p, h, c)
				}
				if c == 0 && eff&kalah.Capture != 0 && !r.EmptyCapture {
					t.Fatalf("%s: %s house %d: Play captures, captureOf says none", name, p, h)
				}
			}
			m, _ := rng.Move(context.Background(), g, player.Clock{})
			g.Play(m)
		}
	}
}

func TestPekarTreeStrictlyPositive(t *testing.T) {
	r := kalah.Standard()
	tests := []struct {
		name string
		pos  string
		move kalah.Move
		rule Rule
	}{
		{"extra turn first", "1,0,0,0,0,1/4,4,4,4,5,4 0-0 S", 6, RuleStore},
		// House 1 captures North's 5; North cannot capture anything back.
		{"safe capture", "1,0,8,8,8,8/4,4,4,4,5,4 0-0 S", 1, RuleCapture},
		// House 1 captures North's single seed in house 5, but then North's
		// house 1 (1 seed) lands in its empty house 2 and takes South's 9
		// seeds in house 5: not safe, so the tree search decides.
		{"unsafe capture goes to the tree", "1,0,8,8,9,8/1,0,4,4,1,4 0-0 S", 0, RuleTree},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := pos(t, tc.pos)
			m, rule, _, _, err := NewPekarTree(2).Choose(&r, &p)
			if err != nil {
				t.Fatal(err)
			}
			if (tc.move != 0 && m != tc.move) || rule != tc.rule {
				t.Errorf("Choose(%s) = %s by %s, want %s by %s", tc.pos, m, rule, tc.move, tc.rule)
			}
		})
	}
}

func TestPekarCostFunction(t *testing.T) {
	r := kalah.Standard()
	s := treeSearch{r: &r, me: kalah.South, s1: 3, s2: 5, depth: 1}
	tests := []struct {
		leaf  string
		extra int
		want  int
	}{
		// South's store +4, North's +1: a(4-1) = 30; house 6 not empty.
		{"1,1,1,1,1,1/1,1,1,1,1,1 7-6 N", 0, 30},
		// Two extra turns: + b*2.
		{"1,1,1,1,1,1/1,1,1,1,1,1 7-6 N", 2, 32},
		// House 6 (next to the store) empty: + c.
		{"1,1,1,1,1,0/1,1,1,1,1,1 7-6 N", 0, 35},
		// North's house next to its store being empty does not count.
		{"1,1,1,1,1,1/1,1,1,1,1,0 3-9 N", 1, -40 + 1},
	}
	for _, tc := range tests {
		q := pos(t, tc.leaf)
		if got := s.cost(&q, tc.extra); got != tc.want {
			t.Errorf("cost(%s, r=%d) = %d, want %d", tc.leaf, tc.extra, got, tc.want)
		}
	}
}

// With no strictly positive move, a one-ply search picks the move its cost
// function rates best: every house passes the store (+1 seed, 10), but
// only sowing house 6 leaves it empty (+5).
func TestPekarTreeUsesCost(t *testing.T) {
	r := kalah.Standard()
	p := pos(t, "7,7,7,7,7,7/7,7,7,7,7,7 0-0 S")
	m, rule, score, nodes, err := NewPekarTree(1).Choose(&r, &p)
	if err != nil {
		t.Fatal(err)
	}
	if m != 6 || rule != RuleTree || score != 15 || nodes != 6 {
		t.Errorf("Choose = %s by %s, F=%d, %d nodes; want 6 by tree, F=15, 6 nodes", m, rule, score, nodes)
	}
	// Deeper searches visit more positions and still return a legal move.
	_, _, _, n3, _ := NewPekarTree(3).Choose(&r, &p)
	if n3 <= nodes {
		t.Errorf("depth 3 searched %d positions, depth 1 %d", n3, nodes)
	}
}

// Every heuristic player returns a legal move in every position of games
// under every preset.
func TestHeuristicsLegalUnderEveryPreset(t *testing.T) {
	for _, pr := range kalah.Presets() {
		r := pr.Rules
		for _, spec := range []string{"pekar", "pekar-tree:1", "pekar-tree:3", "first", "greedy"} {
			pl, err := player.New(spec, player.Options{Rules: r, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			g, _ := kalah.NewGame(r)
			opp := NewRandom(3)
			for !g.Over() {
				var m kalah.Move
				if g.Len()%3 == 0 {
					m, err = pl.Move(context.Background(), g, player.Clock{})
				} else {
					m, err = opp.Move(context.Background(), g, player.Clock{})
				}
				if err != nil {
					t.Fatalf("%s %s: %v in %s", r.Name, spec, err, g.Position())
				}
				if _, err := g.Play(m); err != nil {
					t.Fatalf("%s %s: %v", r.Name, spec, err)
				}
			}
		}
	}
}

func TestPekarTreeSpecs(t *testing.T) {
	r := kalah.Standard()
	for _, bad := range []string{"pekar-tree:0", "pekar-tree:99", "pekar-tree:x", "pekar:3", "pekar-tree:2:3"} {
		if _, err := player.New(bad, player.Options{Rules: r}); err == nil {
			t.Errorf("player.New(%q) succeeded", bad)
		}
	}
	p, err := player.New("pekar-tree", player.Options{Rules: r})
	if err != nil || p.(*PekarTree).Depth != 3 {
		t.Errorf("pekar-tree default: %v, %v", p, err)
	}
	for _, lvl := range []string{"beginner", "easy", "medium"} {
		if _, err := player.New(lvl, player.Options{Rules: r}); err != nil {
			t.Errorf("level %s: %v", lvl, err)
		}
	}
}

func TestThreats(t *testing.T) {
	r := kalah.Standard()
	tests := []struct {
		pos  string
		want [6]int // the most North could capture from each South house
	}{
		// North's house 2 (4 seeds) ends in its empty house 6, opposite
		// South's house 1; its house 1 (4) ends in house 5, not empty.
		{"1,0,1,0,0,3/4,4,9,4,5,0 0-0 S", [6]int{1, 0, 0, 0, 0, 0}},
		// North's house 1 (1 seed) ends in its empty house 2, opposite
		// South's house 5 (8 seeds).
		{"2,2,2,2,8,2/1,0,4,4,4,4 0-0 S", [6]int{0, 0, 0, 0, 8, 0}},
		// A lap: North's house 3 (13 seeds) lands in itself, opposite
		// South's house 4, which the lap also fed (2+1).
		{"7,7,7,2,7,7/7,7,13,7,7,7 0-0 S", [6]int{0, 0, 0, 3, 0, 0}},
		{"7,7,7,7,7,7/7,7,7,7,7,7 0-0 S", [6]int{}},
	}
	for _, tc := range tests {
		p := pos(t, tc.pos)
		got := threats(&r, &p, kalah.South)
		if [6]int(got[:6]) != tc.want {
			t.Errorf("threats(%s) = %v, want %v", tc.pos, got[:6], tc.want)
		}
	}
}
