package kalah

import (
	"errors"
	"strings"
	"testing"
)

func mustPos(t *testing.T, s string) Position {
	t.Helper()
	p, err := ParsePosition(s)
	if err != nil {
		t.Fatalf("ParsePosition(%q): %v", s, err)
	}
	return p
}

func mustPreset(t *testing.T, name string) Rules {
	t.Helper()
	r, err := PresetRules(name)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestValidate(t *testing.T) {
	ok := Standard()
	for _, tc := range []struct {
		name string
		edit func(*Rules)
		bad  string // part of the error, or "" if valid
	}{
		{"standard", func(*Rules) {}, ""},
		{"zero houses", func(r *Rules) { r.Houses = 0 }, "0 houses"},
		{"negative houses", func(r *Rules) { r.Houses = -3 }, "-3 houses"},
		{"too many houses", func(r *Rules) { r.Houses = MaxHouses + 1 }, "houses"},
		{"zero seeds", func(r *Rules) { r.Seeds = 0 }, "0 seeds"},
		{"too many seeds", func(r *Rules) { r.Seeds = MaxSeeds + 1 }, "seeds"},
		{"bad first side", func(r *Rules) { r.First = 2 }, "first side"},
		{"bad end rule", func(r *Rules) { r.End = 3 }, "end rule"},
		{"one house one seed", func(r *Rules) { r.Houses, r.Seeds = 1, 1 }, ""},
		{"12 by 12", func(r *Rules) { r.Houses, r.Seeds = 12, 12 }, ""},
		{"largest", func(r *Rules) { r.Houses, r.Seeds = MaxHouses, MaxSeeds }, ""},
	} {
		r := ok
		tc.edit(&r)
		err := r.Validate()
		switch {
		case tc.bad == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.bad != "" && !errors.Is(err, ErrInvalidRules):
			t.Errorf("%s: err = %v, want ErrInvalidRules", tc.name, err)
		case tc.bad != "" && !strings.Contains(err.Error(), tc.bad):
			t.Errorf("%s: error %q does not mention %q", tc.name, err, tc.bad)
		}
		if _, gerr := NewGame(r); (gerr == nil) != (tc.bad == "") {
			t.Errorf("%s: NewGame error %v", tc.name, gerr)
		}
	}
	if _, err := PresetRules("chess"); !errors.Is(err, ErrInvalidRules) || !strings.Contains(err.Error(), "unknown preset \"chess\"") || !strings.Contains(err.Error(), "kalah") {
		t.Errorf("unknown preset: %v", err)
	}
	if _, err := ParseEndRule("sudden-death"); !errors.Is(err, ErrInvalidRules) {
		t.Errorf("unknown end rule: %v", err)
	}
	for _, e := range []EndRule{EitherEmpty, MoverStuck, MoverEmpty} {
		if got, err := ParseEndRule(e.String()); err != nil || got != e {
			t.Errorf("ParseEndRule(%q) = %v, %v", e, got, err)
		}
	}
}

func TestPresets(t *testing.T) {
	want := map[string]Rules{
		"kalah":      {Houses: 6, Seeds: 4},
		"dec1961":    {Houses: 6, Seeds: 3, End: MoverEmpty},
		"gamelink":   {Houses: 6, Seeds: 3, SowOpponentStore: true},
		"pekar":      {Houses: 6, Seeds: 4},
		"thesis":     {Houses: 6, Seeds: 6},
		"egyptian":   {Houses: 6, Seeds: 4, EmptyCapture: true},
		"manchester": {Houses: 7, Seeds: 7, Pie: true},
		"kgp":        {Houses: 8, Seeds: 8, EarlyEnd: true},
		"ludii":      {Houses: 6, Seeds: 4, End: MoverStuck},
	}
	ps := Presets()
	if len(ps) != len(want) || ps[0].Rules.Name != "kalah" || Standard() != ps[0].Rules {
		t.Fatalf("presets %v: want %d with kalah first", ps, len(want))
	}
	for _, p := range ps {
		w, ok := want[p.Rules.Name]
		if !ok {
			t.Errorf("unexpected preset %q", p.Rules.Name)
			continue
		}
		w.Name = p.Rules.Name
		if p.Rules != w {
			t.Errorf("%s = %+v, want %+v", w.Name, p.Rules, w)
		}
		if p.Source == "" {
			t.Errorf("%s has no source", w.Name)
		}
		if err := p.Rules.Validate(); err != nil {
			t.Errorf("%s: %v", w.Name, err)
		}
		got, err := PresetRules(strings.ToUpper(w.Name))
		if err != nil || got != p.Rules {
			t.Errorf("PresetRules(%q) = %v, %v", strings.ToUpper(w.Name), got, err)
		}
		if c := p.Rules.Canonical(); c != p.Rules {
			t.Errorf("%s: Canonical changed the preset", w.Name)
		}
		if p.Rules.String() != w.Name {
			t.Errorf("%s: String = %q", w.Name, p.Rules.String())
		}
	}
	// Changing a switch makes the rules custom; choosing who starts does not.
	r := mustPreset(t, "kalah")
	r.First = North
	if c := r.Canonical(); c.Name != "kalah" || c.String() != "kalah (North first)" {
		t.Errorf("north-first kalah: %+v %q", c, c.String())
	}
	r.EmptyCapture = true
	if c := r.Canonical(); c.Name != "" || c.String() != "Kalah(6,4) north-first empty-capture" {
		t.Errorf("changed kalah: %+v %q", c, c.String())
	}
	if got := (Rules{Houses: 5, Seeds: 2, End: MoverEmpty, EarlyEnd: true, Pie: true, SowOpponentStore: true}).String(); got != "Kalah(5,2) mover-empty early-end pie sow-opponent-store" {
		t.Errorf("custom String = %q", got)
	}
	if got := mustPreset(t, "kgp").TotalSeeds(); got != 128 {
		t.Errorf("kgp TotalSeeds = %d", got)
	}
}

// play plays houses from a position under r, failing on an illegal move,
// and returns the position and the last effect.
func play(t *testing.T, r Rules, p Position, houses ...int) (Position, Effect) {
	t.Helper()
	var eff Effect
	for _, h := range houses {
		var err error
		if eff, err = p.Apply(&r, Move(h)); err != nil {
			t.Fatalf("house %d in %s: %v", h, p, err)
		}
	}
	return p, eff
}

// TestPrinceton checks every example of the Princeton COS 217 "Egyptian
// rules". Bowls 0-5 are South's houses 1-6 from South's left, bowl 6 South's
// kalah, bowls 7-12 North's houses 1-6 from North's left, bowl 13 North's
// kalah: exactly our pit numbering (Position.Pit).
func TestPrinceton(t *testing.T) {
	r := mustPreset(t, "egyptian")
	bowls := func(p Position) []int {
		b := make([]int, 14)
		for i := range b {
			b[i] = p.Pit(i)
		}
		return b
	}
	same := func(name string, p Position, want []int) {
		t.Helper()
		if got := bowls(p); !equalInts(got, want) {
			t.Errorf("%s: bowls %v, want %v", name, got, want)
		}
	}
	// "Player #1 might begin the game by picking up and dropping the stones
	// from bowl 4": bowl 4 holds 0, bowl 5 5, bowl 6 1, bowls 7 and 8 5.
	p, eff := play(t, r, r.Start(), 5)
	same("bowl 4", p, []int{4, 4, 4, 4, 0, 5, 1, 5, 5, 4, 4, 4, 4, 0})
	if eff != 0 || p.ToMove() != North {
		t.Errorf("bowl 4: effect %v, %s to move", eff, p.ToMove())
	}
	// "...from bowl 2": bowl 2 holds 0, bowls 3-5 5, the kalah 1, and
	// Player #1 moves again.
	p, eff = play(t, r, r.Start(), 3)
	same("bowl 2", p, []int{4, 4, 0, 5, 5, 5, 1, 4, 4, 4, 4, 4, 4, 0})
	if eff != Extra || p.ToMove() != South {
		t.Errorf("bowl 2: effect %v, %s to move; want an extra turn", eff, p.ToMove())
	}
	// The last stone in empty bowl 1 takes itself and bowl 11 to the kalah.
	p, eff = play(t, r, mustPos(t, "1,0,4,4,4,4/4,4,4,4,5,4 0-0 S"), 1)
	same("capture into bowl 1", p, []int{0, 0, 4, 4, 4, 4, 6, 4, 4, 4, 4, 0, 4, 0})
	if eff != Capture {
		t.Errorf("capture: effect %v", eff)
	}
	// Egyptian rules capture the last stone even opposite an empty bowl.
	p, eff = play(t, r, mustPos(t, "1,0,4,4,4,4/4,4,4,4,0,4 0-0 S"), 1)
	same("empty capture", p, []int{0, 0, 4, 4, 4, 4, 1, 4, 4, 4, 4, 0, 4, 0})
	if eff != Capture {
		t.Errorf("empty capture: effect %v", eff)
	}
	// "The player does not drop a stone in the opponent's kalah": nine
	// stones from bowl 5 go to 6..12, skip 13, then 0 and 1, where the last
	// captures bowl 11.
	p, _ = play(t, r, mustPos(t, "0,0,0,0,0,9/1,1,1,1,1,1 0-0 S"), 6)
	same("skip kalah 13", p, []int{1, 0, 0, 0, 0, 0, 4, 2, 2, 2, 2, 0, 2, 0})
	// "Suppose that bowls 0 through 5 are empty. Then Player #2 picks up
	// all stones from bowls 7 through 12 ... The game is then over."
	p, eff = play(t, r, mustPos(t, "0,0,0,0,0,1/2,3,0,0,1,0 20-21 S"), 6)
	same("end", p, []int{0, 0, 0, 0, 0, 0, 21, 0, 0, 0, 0, 0, 0, 27})
	if eff&End == 0 || p.Outcome() != NorthWins {
		t.Errorf("end: effect %v, outcome %v", eff, p.Outcome())
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestDEC1961 checks the rules of the 1961 DEC memo M-1098. The memo numbers
// a player's pits 6..1 from his left (the cyclic order is 6a, 5a, ..., 1a,
// kalah-a), so its pit k is our house 7-k.
func TestDEC1961(t *testing.T) {
	r := mustPreset(t, "dec1961")
	start := r.Start()
	if start.String() != "3,3,3,3,3,3/3,3,3,3,3,3 0-0 S" {
		t.Fatalf("start %s: the memo has three stones a pit", start)
	}
	memo := func(k int) int { return 7 - k }
	// Rule 1: only a non-empty pit of one's own may be played.
	empty := mustPos(t, "0,3,3,3,3,3/3,3,3,3,3,3 0-0 S")
	for _, m := range []Move{1, 0, 7, Swap} {
		q := empty
		if _, err := q.Apply(&r, m); !errors.Is(err, ErrIllegalMove) || q != empty {
			t.Errorf("rule 1: move %s in %s: %v", m, empty, err)
		}
	}
	// Rule 3(b): pit 3a's three stones go to 2a, 1a and the kalah: repeat play.
	p, eff := play(t, r, start, memo(3))
	if eff != Extra || p.ToMove() != South || p.String() != "3,3,3,0,4,4/3,3,3,3,3,3 1-0 S" {
		t.Errorf("3(b): %s %v", p, eff)
	}
	// Rule 3(d): pit 6a's stones stop in 3a; the move passes.
	p, eff = play(t, r, start, memo(6))
	if eff != 0 || p.ToMove() != North || p.String() != "0,4,4,4,3,3/3,3,3,3,3,3 0-0 N" {
		t.Errorf("3(d): %s %v", p, eff)
	}
	// Rule 2: skip the opponent's kalah. B sows nine stones from 1b (North
	// house 6): kalah-b, 6a..1a, then 6b and 5b, never kalah-a.
	p, _ = play(t, r, mustPos(t, "1,1,1,1,1,1/1,1,1,1,1,9 0-0 N"), 6)
	if p.Store(South) != 0 || p.String() != "2,2,2,2,2,2/2,2,1,1,1,0 0-1 S" {
		t.Errorf("rule 2: %s", p)
	}
	// Rule 3(c): a last stone in an empty pit opposite a non-empty pit
	// captures both; opposite an empty pit it stays.
	p, eff = play(t, r, mustPos(t, "1,0,0,1,0,0/2,5,0,0,0,0 0-0 S"), 4)
	if eff != Capture || p.String() != "1,0,0,0,0,0/2,0,0,0,0,0 6-0 N" {
		t.Errorf("3(c): %s %v", p, eff)
	}
	p, eff = play(t, r, mustPos(t, "1,0,0,1,0,0/2,0,5,0,0,0 0-0 S"), 4)
	if eff&Capture != 0 || p.House(South, 5) != 1 {
		t.Errorf("3(c) opposite an empty pit: %s %v", p, eff)
	}
}

// TestEndRules plays one sowing from set-up positions where the end rules
// disagree.
func TestEndRules(t *testing.T) {
	for _, tc := range []struct {
		name string
		pos  string
		move int
		// want per rule: the position after, or "" if the game must end.
		either, stuck, empty          string
		endEither, endStuck, endEmpty string
	}{
		{
			// South's last seeds cross to North: South's pits are empty
			// after his move (rule 3(a) ends it), North still has seeds
			// (mover-stuck goes on).
			name: "mover empties his side", pos: "0,0,0,0,0,2/3,3,3,3,3,3 10-10 S", move: 6,
			stuck:     "0,0,0,0,0,0/4,3,3,3,3,3 11-10 N",
			endEither: "0,0,0,0,0,0/0,0,0,0,0,0 11-29 N",
			endEmpty:  "0,0,0,0,0,0/0,0,0,0,0,0 11-29 N",
		},
		{
			// An extra turn with the opponent's side empty (a set-up
			// position): only either-empty ends it.
			name: "extra turn, opponent empty", pos: "2,0,0,0,0,1/0,0,0,0,0,0 10-33 S", move: 6,
			stuck:     "2,0,0,0,0,0/0,0,0,0,0,0 11-33 S",
			empty:     "2,0,0,0,0,0/0,0,0,0,0,0 11-33 S",
			endEither: "0,0,0,0,0,0/0,0,0,0,0,0 13-33 S",
		},
		{
			// The mover's last seed lands in his store and his side is empty:
			// every rule ends the game (he must move and cannot).
			name: "last seed to the store", pos: "0,0,0,0,0,1/1,0,0,0,0,0 20-26 S", move: 6,
			endEither: "0,0,0,0,0,0/0,0,0,0,0,0 21-27 S",
			endStuck:  "0,0,0,0,0,0/0,0,0,0,0,0 21-27 S",
			endEmpty:  "0,0,0,0,0,0/0,0,0,0,0,0 21-27 S",
		},
		{
			// A capture of the opponent's last seeds: he is to move and
			// has none, so every rule ends it.
			name: "capture the last seeds", pos: "1,0,0,0,0,3/0,0,0,0,3,0 20-21 S", move: 1,
			endEither: "0,0,0,0,0,0/0,0,0,0,0,0 27-21 N",
			endStuck:  "0,0,0,0,0,0/0,0,0,0,0,0 27-21 N",
			endEmpty:  "0,0,0,0,0,0/0,0,0,0,0,0 27-21 N",
		},
		{
			name: "ordinary move", pos: "1,0,0,0,0,3/0,0,0,3,3,0 20-18 S", move: 6,
			either: "1,0,0,0,0,0/1,1,0,3,3,0 21-18 N",
			stuck:  "1,0,0,0,0,0/1,1,0,3,3,0 21-18 N",
			empty:  "1,0,0,0,0,0/1,1,0,3,3,0 21-18 N",
		},
	} {
		for _, rc := range []struct {
			rule       EndRule
			goOn, over string
		}{{EitherEmpty, tc.either, tc.endEither}, {MoverStuck, tc.stuck, tc.endStuck}, {MoverEmpty, tc.empty, tc.endEmpty}} {
			r := Rules{Houses: 6, Seeds: 4, End: rc.rule}
			p := mustPos(t, tc.pos)
			eff := p.Play(&r, tc.move)
			want, wantEnd := rc.goOn, rc.over != ""
			if wantEnd {
				want = rc.over
			}
			if p.String() != want || (eff&End != 0) != wantEnd {
				t.Errorf("%s under %s: %s (effect %v), want %s (end %v)", tc.name, rc.rule, p, eff, want, wantEnd)
			}
			if p.Over(&r) != wantEnd {
				t.Errorf("%s under %s: Over = %v", tc.name, rc.rule, p.Over(&r))
			}
		}
	}
	// Under mover-stuck the emptied side can be fed again: North sows into
	// South's houses and South plays on.
	r := mustPreset(t, "ludii")
	p, _ := play(t, r, mustPos(t, "0,0,0,0,0,2/3,3,3,3,3,3 10-10 S"), 6, 6)
	if p.Over(&r) || p.ToMove() != South || p.Seeds(South) != 2 {
		t.Errorf("mover-stuck: South not fed again: %s", p)
	}
}

// TestDEC1961EqualsEitherEmptyInPlay records a consequence of rule 3(a):
// a sowing never takes seeds from the opponent's houses except by a capture,
// which ends the turn, so from a start with seeds on both sides the memo's
// rule and either-empty end every game at the same move. They differ only
// on set-up positions (TestEndRules).
func TestDEC1961EqualsEitherEmptyInPlay(t *testing.T) {
	a := mustPreset(t, "dec1961")
	b := a
	b.End = EitherEmpty
	for d := 1; d <= 9; d++ {
		if x, y := Perft(&a, a.Start(), d), Perft(&b, b.Start(), d); x != y {
			t.Errorf("depth %d: mover-empty %d, either-empty %d", d, x, y)
		}
	}
}

func TestGameLink(t *testing.T) {
	r := mustPreset(t, "gamelink")
	std := r
	std.SowOpponentStore = false
	// Thirteen seeds from house 1 reach North's store under GameLink's
	// engine; the standard rule skips it and the last seed comes back to
	// the emptied house 1, capturing North's house 6.
	p, eff := play(t, r, mustPos(t, "13,0,0,0,0,0/0,0,0,0,0,1 0-0 S"), 1)
	if p.String() != "0,1,1,1,1,1/1,1,1,1,1,2 1-1 N" || eff != 0 {
		t.Errorf("gamelink 13 seeds: %s %v", p, eff)
	}
	p, eff = play(t, std, mustPos(t, "13,0,0,0,0,0/0,0,0,0,0,1 0-0 S"), 1)
	if p.String() != "0,1,1,1,1,1/1,1,1,1,1,0 4-0 N" || eff != Capture {
		t.Errorf("standard 13 seeds: %s %v", p, eff)
	}
	// From the rightmost house eight seeds are enough to reach it.
	p, _ = play(t, r, mustPos(t, "1,0,0,0,0,8/1,1,1,1,1,1 0-0 S"), 6)
	if p.String() != "1,0,0,0,0,0/2,2,2,2,2,2 1-1 N" {
		t.Errorf("gamelink 8 seeds from house 6: %s", p)
	}
	// Laps: 27 seeds from house 2 make one lap of 14 pits and 13 seeds
	// more under GameLink, and two laps of 13 pits and a seed under the
	// standard rule; the emptied house gets its share of each lap.
	p, _ = play(t, r, mustPos(t, "0,27,0,0,0,0/0,0,0,0,0,1 0-0 S"), 2)
	if p.String() != "2,1,2,2,2,2/2,2,2,2,2,3 2-2 N" {
		t.Errorf("gamelink lap: %s", p)
	}
	p, _ = play(t, std, mustPos(t, "0,27,0,0,0,0/0,0,0,0,0,1 0-0 S"), 2)
	if p.String() != "2,2,3,2,2,2/2,2,2,2,2,3 2-0 N" {
		t.Errorf("standard laps: %s", p)
	}

	// The guide's example "Player 1 makes move: 4 and gets to move again"
	// holds from the start, and its final score, 19-17, adds up to the
	// 36 seeds of Kalah(6,3).
	if p, eff := play(t, r, r.Start(), 4); eff != Extra || p.ToMove() != South {
		t.Errorf("house 4 from the start: %s %v", p, eff)
	}
	if r.TotalSeeds() != 19+17 {
		t.Errorf("GameLink plays with %d seeds", r.TotalSeeds())
	}

	// The forfeit rule: an invalid move, a timeout or an error loses at
	// once, and every seed left on the board goes to the winner's store.
	g, err := NewGame(r)
	if err != nil {
		t.Fatal(err)
	}
	g.Players = [2]string{"alice", "bob"}
	if err := g.PlayMoveText("1. 4+1 2"); err != nil {
		t.Fatal(err)
	}
	before := g.Position()
	if g.IsLegal(Move(1)) {
		t.Fatalf("house 1 should be empty in %s", before)
	}
	if err := g.Forfeit(South, Normal); err == nil {
		t.Errorf("a normal end accepted as a forfeit")
	}
	if err := g.Forfeit(Side(2), Timeout); err == nil || g.Over() {
		t.Errorf("a forfeit by side 2 accepted")
	}
	if err := g.Forfeit(g.ToMove(), IllegalMove); err != nil {
		t.Fatal(err)
	}
	after := g.Position()
	if !g.Over() || g.Result() != NorthWins || g.Termination() != IllegalMove ||
		after.Store(North) != before.Store(North)+before.Seeds(South)+before.Seeds(North) ||
		after.Store(South) != before.Store(South) || after.Seeds(South)+after.Seeds(North) != 0 {
		t.Errorf("forfeit: %s -> %s, %v %v", before, after, g.Result(), g.Termination())
	}
	if _, err := g.Play(Move(2)); !errors.Is(err, ErrGameOver) {
		t.Errorf("move after a forfeit: %v", err)
	}
	text := g.String()
	if !strings.Contains(text, `[Termination "illegal-move"]`) || !strings.Contains(text, `[Result "0-1"]`) {
		t.Errorf("forfeit text:\n%s", text)
	}
	g2, err := ParseGame(text)
	if err != nil || g2.Position() != after || g2.String() != text {
		t.Errorf("forfeit text does not round-trip: %v", err)
	}
	if err := g.Undo(); err != nil || g.Over() || g.Position() != before {
		t.Errorf("undo of a forfeit: %v, %s", err, g.Position())
	}
	for _, term := range []Termination{Timeout, Crash, Disconnect, Resign, ProtocolError} {
		c := g.Clone()
		err := c.Forfeit(North, term)
		if s, n := c.Score(); err != nil || c.Result() != SouthWins || c.Termination() != term ||
			s != before.Store(South)+before.Seeds(South)+before.Seeds(North) || n != before.Store(North) {
			t.Errorf("forfeit by %s: %v", term, err)
		}
	}
}

func TestEarlyEnd(t *testing.T) {
	r := Rules{Houses: 2, Seeds: 2, EarlyEnd: true}
	plain := r
	plain.EarlyEnd = false
	// Eight seeds: a store of five is more than half and ends the game.
	p, eff := play(t, r, mustPos(t, "1,1/1,0 4-1 S"), 2)
	if eff&End == 0 || p.String() != "0,0/0,0 6-2 S" {
		t.Errorf("early end: %s %v", p, eff)
	}
	p, eff = play(t, plain, mustPos(t, "1,1/1,0 4-1 S"), 2)
	if eff != Extra || p.String() != "1,0/1,0 5-1 S" {
		t.Errorf("without early end: %s %v", p, eff)
	}
	// Exactly half is not more than half.
	p, eff = play(t, r, mustPos(t, "1,1/1,1 3-1 S"), 2)
	if eff != Extra || p.Over(&r) {
		t.Errorf("half: %s %v", p, eff)
	}
	// A set-up position already past half is over, and a game from it ends
	// at once with the seeds swept.
	q := mustPos(t, "1,1/1,0 5-0 N")
	if !q.Over(&r) || q.Over(&plain) {
		t.Errorf("Over with early end")
	}
	g, err := NewGameFrom(r, q)
	if err != nil || !g.Over() || g.Result() != SouthWins || g.Termination() != Normal {
		t.Errorf("game from a won position: %v %v", g, err)
	}
	// KGP preset: 128 seeds, a store of 65 ends it.
	k := mustPreset(t, "kgp")
	p, eff = play(t, k, mustPos(t, "0,0,0,0,0,0,1,1/1,1,1,1,1,1,1,1 64-54 S"), 8)
	if eff&End == 0 || p.Store(South) != 66 {
		t.Errorf("kgp early end: %s %v", p, eff)
	}
}

func TestPie(t *testing.T) {
	r := mustPreset(t, "manchester")
	g, err := NewGame(r)
	if err != nil {
		t.Fatal(err)
	}
	g.Players = [2]string{"first", "second"}
	if start := g.Position(); g.IsLegal(Swap) || start.Phase() != PhaseFirst {
		t.Fatalf("swap legal before the first move")
	}
	// House 1's seven seeds end in South's store: no extra turn on the
	// first move under the pie rule.
	eff, err := g.Play(1)
	if err != nil || eff != 0 || g.ToMove() != North {
		t.Fatalf("first move: %v %v, %s to move", eff, err, g.ToMove())
	}
	noPie := r
	noPie.Pie = false
	if p, eff := play(t, noPie, noPie.Start(), 1); eff != Extra || p.ToMove() != South {
		t.Errorf("without the pie rule the same move earns an extra turn")
	}
	legal := g.Legal()
	if len(legal) != 8 || legal[7] != Swap {
		t.Fatalf("North's moves %v: want seven houses and swap", legal)
	}
	before := g.Position()
	if _, err := g.Play(Swap); err != nil {
		t.Fatal(err)
	}
	after := g.Position()
	if after.String() != strings.TrimSuffix(before.String(), " swap") || g.ToMove() != North || !g.Swapped() {
		t.Errorf("after swap: %s (before %s), swapped %v", after, before, g.Swapped())
	}
	// The player who moved first now plays North and moves now.
	if g.Player(North) != "first" || g.Player(South) != "second" || g.Seat(North) != 0 || g.PlayerSide(1) != South {
		t.Errorf("after swap North is %q, South %q", g.Player(North), g.Player(South))
	}
	if g.IsLegal(Swap) {
		t.Errorf("a second swap is legal")
	}
	if _, err := g.Play(2); err != nil {
		t.Fatal(err)
	}
	if g.IsLegal(Swap) {
		t.Errorf("swap legal later in the game")
	}
	if got := g.MoveText(); got != "1. 1 swap 2. 2" {
		t.Errorf("move text %q", got)
	}
	text := g.String()
	g2, err := ParseGame(text)
	if err != nil || !g2.Swapped() || g2.String() != text {
		t.Errorf("pie game text does not round-trip: %v\n%s", err, text)
	}
	rec := g.Record()
	if !rec.Moves[1].Swap || rec.Moves[1].Side != North || rec.Moves[1].House != 0 {
		t.Errorf("record swap move %+v", rec.Moves[1])
	}
	g.Undo()
	g.Undo()
	if g.Swapped() || !g.IsLegal(Swap) {
		t.Errorf("undo of swap: swapped %v", g.Swapped())
	}
	// Declining the swap: North simply moves, and may earn extra turns.
	c := g.Clone()
	if _, err := c.Play(7); err != nil {
		t.Fatal(err)
	}
	if c.Swapped() || c.IsLegal(Swap) {
		t.Errorf("swap still possible after North declined")
	}
}

func TestGameBasics(t *testing.T) {
	g, err := NewGame(Standard())
	if err != nil {
		t.Fatal(err)
	}
	if g.Over() || g.Result() != Ongoing || g.Termination() != NotOver || g.ToMove() != South || len(g.Legal()) != 6 {
		t.Fatalf("new game: %v %v %v", g.Over(), g.Result(), g.Legal())
	}
	if err := g.Undo(); !errors.Is(err, ErrNoUndo) {
		t.Errorf("undo at start: %v", err)
	}
	if _, err := g.Play(7); !errors.Is(err, ErrIllegalMove) {
		t.Errorf("house 7: %v", err)
	}
	if _, err := g.Play(Swap); !errors.Is(err, ErrIllegalMove) {
		t.Errorf("swap without the pie rule: %v", err)
	}
	// A move without an extra turn cannot be chained, and one with an
	// extra turn must be.
	c := g.Clone()
	if err := c.PlayMoveText("1+2"); !errors.Is(err, ErrIllegalMove) {
		t.Errorf("bad chain: %v", err)
	}
	c = g.Clone()
	if err := c.PlayMoveText("3 2"); !errors.Is(err, ErrSyntax) {
		t.Errorf("unchained extra turn: %v", err)
	}
	if err := g.PlayMoveText("1. 3+6 1"); err != nil {
		t.Fatal(err)
	}
	if g.Len() != 3 || g.ToMove() != South || len(g.Turns()) != 2 {
		t.Errorf("after 3+6 1: %d moves, %s to move, turns %v", g.Len(), g.ToMove(), g.Turns())
	}
	if last, ok := g.Last(); !ok || last.Side != North || last.Move != 1 {
		t.Errorf("last %+v", last)
	}
	want := g.PositionAt(1)
	g.Undo()
	g.Undo()
	if g.Position() != want || g.Len() != 1 || g.ToMove() != South {
		t.Errorf("undo twice: %s", g.Position())
	}
	// An unfinished chain shows a trailing "+".
	if got := g.MoveText(); got != "1. 3+" {
		t.Errorf("move text %q", got)
	}
	if got := g.String(); !strings.HasSuffix(got, "1. 3+ *\n") {
		t.Errorf("game text ends %q", got[len(got)-12:])
	}
}

func TestSideAndResultText(t *testing.T) {
	for _, s := range []string{"S", "n", "South", "NORTH"} {
		if _, err := ParseSide(s); err != nil {
			t.Errorf("ParseSide(%q): %v", s, err)
		}
	}
	if _, err := ParseSide("east"); !errors.Is(err, ErrSyntax) {
		t.Errorf("ParseSide(east): %v", err)
	}
	for _, r := range []Result{Ongoing, SouthWins, NorthWins, Draw} {
		for _, s := range []string{r.String(), r.Token()} {
			if got, err := ParseResult(s); err != nil || got != r {
				t.Errorf("ParseResult(%q) = %v, %v", s, got, err)
			}
		}
	}
	for tm := NotOver; tm <= Aborted; tm++ {
		if got, err := ParseTermination(tm.String()); err != nil || got != tm {
			t.Errorf("ParseTermination(%q) = %v, %v", tm, got, err)
		}
		if tm.IsForfeit() != (tm >= IllegalMove && tm <= ProtocolError) {
			t.Errorf("%s.IsForfeit", tm)
		}
	}
	if m, err := ParseMove(" swap "); err != nil || m != Swap {
		t.Errorf("ParseMove(swap) = %v %v", m, err)
	}
	for _, s := range []string{"0", "17", "x", "-1", ""} {
		if _, err := ParseMove(s); !errors.Is(err, ErrSyntax) {
			t.Errorf("ParseMove(%q): %v", s, err)
		}
	}
}

// TestAbort: an aborted game is over with no result ("aborted"), the board
// as it was, and its record reads back the same, in text and as a Record.
func TestAbort(t *testing.T) {
	g, _ := NewGame(Standard())
	g.Play(3)
	g.Play(1)
	before := g.Position()
	if err := g.Abort(); err != nil {
		t.Fatal(err)
	}
	if !g.Over() || g.Result() != NoResult || g.Result().String() != "aborted" || g.Termination() != Aborted || g.Position() != before {
		t.Fatalf("aborted game: over %v result %v termination %v", g.Over(), g.Result(), g.Termination())
	}
	if err := g.Abort(); !errors.Is(err, ErrGameOver) {
		t.Errorf("aborting twice: %v", err)
	}
	back, err := ParseGame(g.String())
	if err != nil || back.Termination() != Aborted || back.Result() != NoResult || back.Position() != before {
		t.Fatalf("text round trip of %q: %v", g.String(), err)
	}
	rec := g.Record()
	rg, err := rec.Game()
	if err != nil || rg.Termination() != Aborted || rg.Result() != NoResult {
		t.Fatalf("record round trip: %v", err)
	}
	// A record of an earlier release says "ongoing": it reads the same.
	rec.Result = Ongoing
	if rg, err := rec.Game(); err != nil || rg.Result() != NoResult {
		t.Fatalf("an older aborted record: %v", err)
	}
	rec.Result = SouthWins
	if _, err := rec.Game(); !errors.Is(err, ErrSyntax) {
		t.Errorf("an aborted game with a winner: %v", err)
	}
	if err := g.Undo(); err != nil || g.Over() || g.Len() != 2 {
		t.Errorf("undoing the abort: %v", err)
	}
}

// TestAgreeDraw: a draw agreed ends the game a draw with the board as it
// stands, and reads back the same, in text and as a Record; a record that
// says agreement with a winner is refused.
func TestAgreeDraw(t *testing.T) {
	g, _ := NewGame(Standard())
	g.Play(3)
	g.Play(1)
	before := g.Position()
	if err := g.AgreeDraw(); err != nil {
		t.Fatal(err)
	}
	if !g.Over() || g.Result() != Draw || g.Termination() != Agreement || g.Position() != before || g.Played() != before {
		t.Fatalf("agreed: over %v result %v termination %v", g.Over(), g.Result(), g.Termination())
	}
	back, err := ParseGame(g.String())
	if err != nil || back.Termination() != Agreement || back.Result() != Draw || back.Position() != before {
		t.Fatalf("text round trip of %q: %v", g.String(), err)
	}
	rec := g.Record()
	if rg, err := rec.Game(); err != nil || rg.Termination() != Agreement {
		t.Fatalf("record round trip: %v", err)
	}
	rec.Result = NorthWins
	if _, err := rec.Game(); !errors.Is(err, ErrSyntax) {
		t.Errorf("an agreed draw with a winner: %v", err)
	}
	if err := g.Undo(); err != nil || g.Over() || g.Len() != 2 {
		t.Errorf("undoing the agreement: %v", err)
	}
	// A forfeit's board goes to the winner; Played keeps the stores as
	// they stood.
	f, _ := NewGame(Standard())
	f.Play(3)
	stood := f.Position()
	f.Forfeit(South, Resign)
	if f.Played() != stood || f.Position() == stood {
		t.Errorf("Played after a forfeit: %v, the position %v", f.Played(), f.Position())
	}
}
