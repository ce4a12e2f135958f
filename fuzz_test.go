package kalah

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
)

// refPlay is a plain, slow sowing written straight from the rules text, to
// check the fast Play against: it sows seed by seed, applies the end rules
// as the sources word them, and returns the position and effect.
func refPlay(r *Rules, p Position, h int) (Position, Effect) {
	n := int(p.n)
	me := p.toMove
	myStore := int(me)*(n+1) + n
	oppStore := int(me.Other())*(n+1) + n
	mine := func(i int) bool { return i >= int(me)*(n+1) && i < myStore }
	i := int(me)*(n+1) + h - 1
	seeds := int(p.pits[i])
	p.pits[i] = 0
	for seeds > 0 {
		i = (i + 1) % (2*n + 2)
		if i == oppStore && !r.SowOpponentStore {
			continue
		}
		p.pits[i]++
		seeds--
	}
	var eff Effect
	next := me.Other()
	if i == myStore {
		if p.phase != PhaseFirst {
			eff, next = Extra, me
		}
	} else if mine(i) && p.pits[i] == 1 {
		opp := 2*n - i
		if p.pits[opp] > 0 || r.EmptyCapture {
			p.pits[myStore] += 1 + p.pits[opp]
			p.pits[opp], p.pits[i] = 0, 0
			eff = Capture
		}
	}
	switch p.phase {
	case PhaseFirst:
		p.phase = PhaseSwap
	case PhaseSwap:
		p.phase = PhasePlay
	}
	p.toMove = next
	houses := func(s Side) int {
		t := 0
		for k := 0; k < n; k++ {
			t += int(p.pits[int(s)*(n+1)+k])
		}
		return t
	}
	total := 0
	for k := 0; k < 2*n+2; k++ {
		total += int(p.pits[k])
	}
	over := false
	switch r.End {
	case EitherEmpty:
		over = houses(South) == 0 || houses(North) == 0
	case MoverStuck:
		over = houses(next) == 0
	case MoverEmpty:
		over = houses(me) == 0 || houses(next) == 0
	}
	if r.EarlyEnd && (2*p.Store(South) > total || 2*p.Store(North) > total) {
		over = true
	}
	if over {
		for s := range 2 {
			for k := 0; k < n; k++ {
				p.pits[s*(n+1)+n] += p.pits[s*(n+1)+k]
				p.pits[s*(n+1)+k] = 0
			}
		}
		eff |= End
	}
	p.recount()
	return p, eff
}

// randomRules draws a rule set: mostly up to 12 houses of up to 12 seeds,
// sometimes up to the limits (many laps), any switch.
func randomRules(rng *rand.Rand) Rules {
	r := Rules{
		Houses:           1 + rng.IntN(12),
		Seeds:            1 + rng.IntN(12),
		First:            Side(rng.IntN(2)),
		EmptyCapture:     rng.IntN(2) == 0,
		End:              EndRule(rng.IntN(3)),
		EarlyEnd:         rng.IntN(3) == 0,
		Pie:              rng.IntN(3) == 0,
		SowOpponentStore: rng.IntN(3) == 0,
	}
	if rng.IntN(8) == 0 {
		r.Seeds = 13 + rng.IntN(MaxSeeds-12)
	}
	if rng.IntN(8) == 0 {
		r.Houses = 13 + rng.IntN(MaxHouses-12)
	}
	return r
}

// checkCounts fails unless the position's seeds add up and the per-side
// counts match the pits.
func checkCounts(t *testing.T, p Position, total int, where string) {
	t.Helper()
	q := p
	q.recount()
	if q != p {
		t.Fatalf("%s: per-side counts %v out of step with the pits %s", where, p.seeds, p)
	}
	if p.Total() != total {
		t.Fatalf("%s: %d seeds, want %d (a pit went negative or seeds were lost): %s", where, p.Total(), total, p)
	}
	for i := 0; i < 2*p.Houses()+2; i++ {
		if p.Pit(i) > total {
			t.Fatalf("%s: pit %d holds %d of %d seeds (underflow): %s", where, i, p.Pit(i), total, p)
		}
	}
}

// playRandomGame plays a whole game at random under r, checking every
// sowing against refPlay and the invariants, and returns the game.
func playRandomGame(t *testing.T, r Rules, rng *rand.Rand) *Game {
	t.Helper()
	g, err := NewGame(r)
	if err != nil {
		t.Fatalf("NewGame(%v): %v", r, err)
	}
	total := r.TotalSeeds()
	for step := 0; !g.Over(); step++ {
		if step > 100000 {
			t.Fatalf("game under %v does not end", r)
		}
		p := g.Position()
		legal := g.Legal()
		if len(legal) == 0 {
			t.Fatalf("no legal move in an unfinished game: %s under %v", p, r)
		}
		if p.Over(&r) {
			t.Fatalf("Over is true before the game ended: %s under %v", p, r)
		}
		m := legal[rng.IntN(len(legal))]
		if m != Swap && rng.IntN(50) == 0 && len(legal) < p.Houses() {
			// Try an illegal move: it must be refused and change nothing.
			for h := 1; h <= p.Houses(); h++ {
				if !p.Legal(Move(h)) {
					if _, err := g.Play(Move(h)); err == nil {
						t.Fatalf("empty house %d accepted in %s", h, p)
					}
					break
				}
			}
			if g.Position() != p {
				t.Fatalf("a refused move changed the position")
			}
		}
		eff, err := g.Play(m)
		if err != nil {
			t.Fatalf("legal move %s refused in %s: %v", m, p, err)
		}
		after := g.Position()
		if m == Swap {
			want := p
			want.phase = PhasePlay
			if after != want || eff != 0 {
				t.Fatalf("swap changed the board or side: %s -> %s", p, after)
			}
			continue
		}
		want, weff := refPlay(&r, p, int(m))
		if after != want || eff != weff {
			t.Fatalf("Play(%s) in %s under %v = %s %v; the reference gives %s %v", m, p, r, after, eff, want, weff)
		}
		checkCounts(t, after, total, "after "+m.String())
		if eff&End != 0 {
			if after.Seeds(South) != 0 || after.Seeds(North) != 0 || !after.Over(&r) {
				t.Fatalf("the game ended with seeds in the houses: %s", after)
			}
		} else if after.Mask() == 0 {
			t.Fatalf("the game goes on but %s has no move: %s", after.ToMove(), after)
		}
	}
	if end := g.Position(); g.Result() != end.Outcome() {
		t.Fatalf("result %v, stores say %v", g.Result(), end.Outcome())
	}
	return g
}

// checkRoundTrips checks the position, game text and JSON forms of g.
func checkRoundTrips(t *testing.T, g *Game) {
	t.Helper()
	for i := 0; i <= g.Len(); i++ {
		p := g.PositionAt(i)
		q, err := ParsePosition(p.String())
		if err != nil || q != p {
			t.Fatalf("ParsePosition(%q) = %v, %v", p.String(), q, err)
		}
	}
	text := g.String()
	g2, err := ParseGame(text)
	if err != nil {
		t.Fatalf("ParseGame: %v\n%s", err, text)
	}
	if text2 := g2.String(); text2 != text {
		t.Fatalf("game text does not round-trip:\n%s\n---\n%s", text, text2)
	}
	if g2.Position() != g.Position() || g2.Result() != g.Result() || g2.Termination() != g.Termination() || g2.Swapped() != g.Swapped() {
		t.Fatalf("game text replays to a different game")
	}
	js, err := json.Marshal(g)
	if err != nil {
		t.Fatal(err)
	}
	var g3 Game
	if err := json.Unmarshal(js, &g3); err != nil {
		t.Fatalf("json: %v\n%s", err, js)
	}
	js2, _ := json.Marshal(&g3)
	if string(js) != string(js2) || g3.String() != text {
		t.Fatalf("JSON does not round-trip:\n%s\n%s", js, js2)
	}
}

// FuzzPlay plays random games under random rules: seeds are conserved, no
// pit underflows, every sowing matches the reference, the game ends exactly
// when its rule says, and every notation round-trips.
func FuzzPlay(f *testing.F) {
	for i := range uint64(40) {
		f.Add(i, i*7919)
	}
	f.Fuzz(func(t *testing.T, a, b uint64) {
		rng := rand.New(rand.NewPCG(a, b))
		r := randomRules(rng)
		g := playRandomGame(t, r, rng)
		// Sometimes end with a forfeit instead, part way through.
		if n := g.Len(); n > 2 && rng.IntN(3) == 0 {
			cut := rng.IntN(n)
			for g.Len() > cut {
				if err := g.Undo(); err != nil {
					t.Fatal(err)
				}
			}
			if !g.Over() {
				loser := Side(rng.IntN(2))
				before := g.Position()
				if err := g.Forfeit(loser, Termination(IllegalMove+Termination(rng.IntN(5)))); err != nil {
					t.Fatal(err)
				}
				after := g.Position()
				if after.Seeds(South)+after.Seeds(North) != 0 ||
					after.Store(loser) != before.Store(loser) ||
					after.Store(loser.Other()) != before.Store(loser.Other())+before.Seeds(South)+before.Seeds(North) ||
					g.Result() != WinFor(loser.Other()) {
					t.Fatalf("forfeit by %s: %s -> %s, result %v", loser, before, after, g.Result())
				}
			}
		}
		// Extra tags, some of which the text form cannot carry.
		keys := []string{"Event", "Date", "Result", "my key", "Round", "Site"}
		for range rng.IntN(4) {
			if g.Tags == nil {
				g.Tags = map[string]string{}
			}
			g.Tags[keys[rng.IntN(len(keys))]] = "v\"" + keys[rng.IntN(len(keys))] + "\n]"
		}
		g.Players = [2]string{"south \"s\"", "north ]"}
		checkRoundTrips(t, g)
	})
}

// FuzzParsers feeds garbage to every parser: none may panic, and what
// parses must print back to something that parses to the same value.
func FuzzParsers(f *testing.F) {
	for _, s := range []string{
		"4,4,4,4,4,4/4,4,4,4,4,4 0-0 S",
		"0,0,1/2,0,0 10-11 N swap",
		"7,7,7,7,7,7,7,0,7,7,7,7,7,7,7,0",
		"<6,0,0,4,4,4,4,4,4,4,4,4,4,4,4>",
		"6, 11, 4, 12, 1",
		"[Rules \"kalah\"]\n\n1. 3+6 2 2. 4 *\n",
		"[Houses \"3\"]\n[Seeds \"1\"]\n1. 1 1 *",
		"[Pie \"yes\"]\n\n1. 3 swap 2. 4 *",
		"{comment} 1. 1 ; line\n*",
		"<>", "/ 0-0 S", "[", "[a \"", "1.+", "++", "\x00",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if p, err := ParsePosition(s); err == nil {
			if q, err := ParsePosition(p.String()); err != nil || q != p {
				t.Fatalf("%q parsed to %s, which reads back as %v, %v", s, p, q, err)
			}
			r := Standard()
			r.Houses = p.Houses()
			r.Pie = p.Phase() != PhasePlay
			if g, err := NewGameFrom(r, p); err == nil {
				for _, m := range g.Legal() {
					c := g.Clone()
					c.Play(m)
				}
			}
		}
		if g, err := ParseGame(s); err == nil {
			text := g.String()
			g2, err := ParseGame(text)
			if err != nil {
				t.Fatalf("%q parsed, but its text does not: %v\n%s", s, err, text)
			}
			if g2.String() != text {
				t.Fatalf("game text does not round-trip:\n%s\n%s", text, g2.String())
			}
		}
		if p, err := ParseKGPBoard(s); err == nil {
			if q, err := ParseKGPBoard(KGPBoard(p)); err != nil || q != p {
				t.Fatalf("KGP %q: %s reads back as %v, %v", s, KGPBoard(p), q, err)
			}
		}
		for _, side := range []Side{South, North} {
			if p, err := ParseManchesterState(s, side); err == nil {
				if q, err := ParseManchesterState(ManchesterState(p), side); err != nil || q != p {
					t.Fatalf("Manchester %q: reads back as %v, %v", s, q, err)
				}
			}
		}
		if acts, err := ParseOpenSpielActions(s); err == nil && len(acts) < 400 {
			ReplayOpenSpiel(Standard(), acts)
		}
		var rec Record
		if json.Unmarshal([]byte(s), &rec) == nil {
			rec.Game()
		}
		if !strings.ContainsRune(s, 0) {
			ParseMove(s)
			ParseResult(s)
			ParseEndRule(s)
			PresetRules(s)
		}
	})
}
