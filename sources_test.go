package kalah

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// longestChain searches every chain of extra turns from p and returns the
// longest (as houses played).
func longestChain(r *Rules, p Position) []int {
	var best []int
	var walk func(p Position, chain []int)
	walk = func(p Position, chain []int) {
		if len(chain) > len(best) {
			best = slices.Clone(chain)
		}
		for m := p.Mask(); m != 0; m &= m - 1 {
			h := 1
			for m>>(h-1)&1 == 0 {
				h++
			}
			q := p
			if eff := q.Play(r, h); eff&Extra != 0 && eff&End == 0 {
				walk(q, append(chain, h))
			}
		}
	}
	walk(p, nil)
	return best
}

// TestPekarChain checks the chain of repeated moves in Pekař, Andrla and
// Dolinay (2018), section 2.2: own houses 6,5,4,3,2,1 from the left give a
// turn of 17 sowings, every one ending in the store, leaving 17 seeds
// stored and 4 on the board. What holds exactly:
//   - the longest chain from that position is 17 sowings, and it is unique;
//   - it starts as the paper says with house 6 (one seed), then the house
//     holding two seeds, which is house 5 from the left: the paper's "hole 2"
//     is counted from the right there, since its hole 2 from the left holds
//     five; then house 6 again;
//   - after it the store holds 17 and the mover's houses 4 (one seed in
//     house 2, two in house 3, one in house 5), and no house gives a
//     further extra turn.
func TestPekarChain(t *testing.T) {
	r := mustPreset(t, "pekar")
	p := mustPos(t, "6,5,4,3,2,1/4,4,4,4,4,4 0-0 S")
	chain := longestChain(&r, p)
	if len(chain) != 17 {
		t.Fatalf("longest chain %v: %d sowings, the paper says 17", chain, len(chain))
	}
	if !slices.Equal(chain[:3], []int{6, 5, 6}) {
		t.Errorf("chain starts %v, the paper starts with holes 6, 2 (from the right: 5), 6", chain[:3])
	}
	q := p
	for i, h := range chain {
		if eff := q.Play(&r, h); eff != Extra {
			t.Fatalf("sowing %d (house %d) gave %v, want an extra turn", i+1, h, eff)
		}
	}
	if q.Store(South) != 17 || q.Seeds(South) != 4 || q.String() != "0,1,2,0,1,0/4,4,4,4,4,4 17-0 S" {
		t.Errorf("after the chain: %s; the paper says 17 stored and 4 left", q)
	}
	// The chain is unique: no other order of 17 sowings works.
	count := 0
	var walk func(p Position, n int)
	walk = func(p Position, n int) {
		if n == 17 {
			count++
		}
		for h := 1; h <= 6; h++ {
			if p.Legal(Move(h)) {
				q := p
				if q.Play(&r, h) == Extra {
					walk(q, n+1)
				}
			}
		}
	}
	walk(p, 0)
	if count != 1 {
		t.Errorf("%d chains of 17 sowings, want 1", count)
	}
	// The whole chain is one turn in the game text.
	g, err := NewGameFrom(r, p)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range chain {
		if _, err := g.Play(Move(h)); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := g.MoveText(), "1. "+joinPlus(chain)+"+"; got != want {
		t.Errorf("move text %q, want %q", got, want)
	}
}

func joinPlus(hs []int) string {
	s := ""
	for i, h := range hs {
		if i > 0 {
			s += "+"
		}
		s += fmt.Sprint(h)
	}
	return s
}

// openSpielActions is the game of OpenSpiel's mancala playthrough
// (open_spiel/integration_tests/playthroughs/mancala.txt).
const openSpielActions = "6, 11, 4, 12, 1, 5, 10, 1, 9, 3, 10, 1, 9, 5, 13, 3, 8, 4, 13, 10, 2, 9, 1, 11, 6, 8, 1, 11, 4, 13, 5, 8, 3, 8, 2, 9, 13, 12, 6, 10, 1, 9, 5, 8, 3, 6, 10, 4, 12, 5, 6, 2, 13, 2, 8, 4, 11, 1, 12, 3, 13"

// TestOpenSpielPlaythrough replays the playthrough and checks the states it
// records. OpenSpiel draws North's houses 13..8 left to right on top (North's
// houses 6..1 from North's left), so the top rows below are reversed into
// our order; state k is the position after k actions.
func TestOpenSpielPlaythrough(t *testing.T) {
	acts, err := ParseOpenSpielActions(openSpielActions)
	if err != nil || len(acts) != 61 {
		t.Fatalf("%d actions, %v", len(acts), err)
	}
	g, err := ReplayOpenSpiel(mustPreset(t, "kalah"), acts)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range []struct {
		k    int
		top  [6]int // as OpenSpiel draws it: pits 13..8
		n, s int    // stores
		bot  [6]int // pits 1..6
		side Side
	}{
		{20, [6]int{0, 3, 6, 0, 1, 0}, 10, 5, [6]int{2, 11, 1, 0, 2, 7}, South},
		{21, [6]int{1, 4, 7, 1, 2, 1}, 10, 6, [6]int{2, 0, 2, 1, 3, 8}, North},
		{39, [6]int{1, 0, 2, 7, 1, 1}, 15, 10, [6]int{2, 1, 2, 3, 3, 0}, North},
		{42, [6]int{2, 1, 3, 0, 0, 1}, 21, 10, [6]int{0, 3, 4, 0, 3, 0}, South},
		{59, [6]int{2, 0, 0, 0, 0, 0}, 23, 19, [6]int{0, 1, 3, 0, 0, 0}, South},
	} {
		north := st.top
		slices.Reverse(north[:])
		want, err := NewPosition(st.bot[:], north[:], st.s, st.n, st.side)
		if err != nil {
			t.Fatal(err)
		}
		if got := g.PositionAt(st.k); got != want {
			t.Errorf("state %d: %s, OpenSpiel has %s", st.k, got, want)
		}
	}
	// State 61 is terminal. OpenSpiel leaves South's last 5 seeds in the
	// houses with the stores at 19-24; we sweep them: 24-24, a draw.
	if !g.Over() || g.Termination() != Normal || g.Result() != Draw {
		t.Fatalf("end: over %v, %v %v", g.Over(), g.Result(), g.Termination())
	}
	if s, n := g.Score(); s != 24 || n != 24 {
		t.Errorf("final %d-%d, want 24-24", s, n)
	}
	// Before the last action North's two seeds in house 6 go to its store
	// and South's house 1, emptying North's side.
	last := g.PositionAt(60)
	if last.String() != "0,1,0,1,1,1/0,0,0,0,0,2 19-23 N" {
		t.Errorf("before the last action: %s", last)
	}
	// Action 13 is North's house 6; an action for the side not to move, or
	// a store, is refused.
	if _, err := ReplayOpenSpiel(Standard(), []int{6, 4}); err == nil {
		t.Errorf("South's action 4 accepted with North to move")
	}
	if _, err := ReplayOpenSpiel(Standard(), []int{7}); err == nil {
		t.Errorf("action 7 (a store) accepted")
	}
}

// TestImporters checks the Manchester state string and KGP board literal
// against positions written by hand from the protocol descriptions.
func TestImporters(t *testing.T) {
	// Manchester: North houses 1..n, North store, South houses 1..n, South
	// store. After South's first move, house 1, in Kalah(7,7) the referee
	// sends North this state:
	m := "7,7,7,7,7,7,7,0,0,8,8,8,8,8,8,1"
	p, err := ParseManchesterState(m, North)
	if err != nil {
		t.Fatal(err)
	}
	r := mustPreset(t, "manchester")
	q, _ := play(t, r, r.Start(), 1)
	q.phase = PhasePlay // the state string does not carry the pie phase
	if p != q || ManchesterState(q) != m {
		t.Errorf("Manchester %q = %s, play gives %s", m, p, q)
	}
	p, _ = ParseManchesterState("1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16", South)
	if p.String() != "9,10,11,12,13,14,15/1,2,3,4,5,6,7 16-8 S" {
		t.Errorf("Manchester order: %s", p)
	}
	// KGP: <n,S,N,s1..sn,n1..nn>, always from the receiver's view as South.
	k := "<3,1,2,0,4,4,3,3,3>"
	p, err = ParseKGPBoard(k)
	if err != nil {
		t.Fatal(err)
	}
	if p.String() != "0,4,4/3,3,3 1-2 S" || KGPBoard(p) != k {
		t.Errorf("KGP %q = %s", k, p)
	}
	if got := KGPBoard(p.Mirror()); got != "<3,2,1,3,3,3,0,4,4>" {
		t.Errorf("KGP for North: %s", got)
	}
	for _, bad := range []string{"", "<>", "<3,0,0,1,1,1,1,1>", "3,0,0,1,1,1,1,1,1", "<0>", "<2,0,0,1,1,1,x>", "<2,-1,0,1,1,1,1>"} {
		if _, err := ParseKGPBoard(bad); err == nil {
			t.Errorf("KGP %q accepted", bad)
		}
	}
	for _, bad := range []string{"", "1,2,3", "1,2,3,4,5", "a,b,c,d", "1,,2,3"} {
		if _, err := ParseManchesterState(bad, South); err == nil {
			t.Errorf("Manchester %q accepted", bad)
		}
	}
	if a, err := ParseOpenSpielActions("[6 11, 4]"); err != nil || !slices.Equal(a, []int{6, 11, 4}) {
		t.Errorf("OpenSpiel list: %v %v", a, err)
	}
	if _, err := ParseOpenSpielActions("6, x"); err == nil {
		t.Errorf("bad OpenSpiel list accepted")
	}
}

// TestPositionText checks the position text form and its errors.
func TestPositionText(t *testing.T) {
	for _, s := range []string{
		"4,4,4,4,4,4/4,4,4,4,4,4 0-0 S",
		"0,1/2,0 10-11 N",
		"7,7,7,7,7,7,7/7,7,7,7,7,7,7 0-0 S first",
		"0,8,8,8,8,8,8/8,7,7,7,7,7,7 1-0 N swap",
	} {
		p, err := ParsePosition(s)
		if err != nil || p.String() != s {
			t.Errorf("ParsePosition(%q) = %s, %v", s, p, err)
		}
	}
	for _, bad := range []string{
		"", "4,4/4,4", "4,4/4 0-0 S", "4,4/4,4 0-0 X", "4,4/4,4 0 S", "4,4/4,4 0-0 S pie",
		"4,-4/4,4 0-0 S", "04,4/4,4 0-0 S", "+4,4/4,4 0-0 S", "4,4/4,4 0-0 south",
		"4,4,4/4,4,4/4,4,4 0-0 S", "/ 0-0 S", "70000,1/1,1 0-0 S", "40000,40000/1,1 0-0 S",
	} {
		if _, err := ParsePosition(bad); err == nil {
			t.Errorf("ParsePosition(%q) accepted", bad)
		}
	}
	p := mustPos(t, "1,2,3/4,5,6 7-8 N")
	if m := p.Mirror(); m.String() != "4,5,6/1,2,3 8-7 S" || m.Mirror() != p {
		t.Errorf("Mirror: %s", m)
	}
	if p.House(North, 1) != 4 || p.House(South, 3) != 3 || p.Store(North) != 8 || p.Seeds(North) != 15 || p.Total() != 36 {
		t.Errorf("accessors on %s", p)
	}
	if got := p.Moves(); !slices.Equal(got, []Move{1, 2, 3}) || p.Mask() != 7 {
		t.Errorf("moves %v", got)
	}
	if err := p.CheckRules(&Rules{Houses: 6, Seeds: 4}); err == nil {
		t.Errorf("3-house position accepted under 6-house rules")
	}
}

// TestThesisThirteen checks the Kalaha thesis's remark that a house of 13
// counters "allows the current player to place the last counter in a
// guaranteed empty hole on the player's side and therefore always win at
// least three counters": 13 seeds go once round the 13 pits a sowing uses,
// so the last lands in the emptied house and captures itself and the
// opposite house (which got a seed on the way), and one seed passed the
// store. It holds for every house and any board.
func TestThesisThirteen(t *testing.T) {
	r := mustPreset(t, "thesis")
	rng := rand.New(rand.NewPCG(13, 13))
	for trial := range 200 {
		south, north := make([]int, 6), make([]int, 6)
		for i := range 6 {
			south[i], north[i] = rng.IntN(4), rng.IntN(4)
		}
		h := 1 + trial%6
		south[h-1] = 13
		p, err := NewPosition(south, north, 0, 0, South)
		if err != nil {
			t.Fatal(err)
		}
		eff := p.Play(&r, h)
		if eff&Capture == 0 || p.Store(South) < 3 || p.House(South, h) != 0 {
			t.Fatalf("13 seeds from house %d of %v/%v: %s %v", h, south, north, p, eff)
		}
	}
}

// TestPekarTwoInStore checks Pekař et al.'s remark that "if the emptied hole
// includes more than 14 counters, two of them land to the store". What
// holds exactly: skipping the opponent's store a lap is 13 pits, so house h
// (from the left of six) reaches the store with its (7-h)th seed and again
// with its (20-h)th: 14 seeds are enough from house 6, 19 are needed from
// house 1. More than 14 is enough only from houses 5 and 6.
func TestPekarTwoInStore(t *testing.T) {
	r := mustPreset(t, "pekar")
	checked := map[[2]int]bool{}
	for h := 1; h <= 6; h++ {
		for seeds := 1; seeds <= 30; seeds++ {
			south := []int{0, 0, 0, 0, 0, 0}
			south[h-1] = seeds
			p, err := NewPosition(south, []int{1, 1, 1, 1, 1, 1}, 0, 0, South)
			if err != nil {
				t.Fatal(err)
			}
			if eff := p.Play(&r, h); eff&(Capture|End) != 0 {
				continue // a capture or the end adds to the store besides the sowing
			}
			sown := 0
			if seeds >= 7-h {
				sown = 1 + (seeds-(7-h))/13
			}
			if p.Store(South) != sown {
				t.Errorf("house %d, %d seeds: %d in the store, want %d", h, seeds, p.Store(South), sown)
			}
			checked[[2]int{h, seeds}] = true
		}
	}
	// The first sowings to put two seeds in the store, and the last to put one.
	for _, c := range [][2]int{{6, 14}, {5, 15}, {1, 19}, {2, 17}, {2, 18}} {
		if !checked[c] {
			t.Errorf("house %d with %d seeds was not checked", c[0], c[1])
		}
	}
}
