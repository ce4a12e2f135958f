package engine

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"kalah"
	"kalah/book"
	_ "kalah/heuristic"
	"kalah/player"
)

// play runs one game between two players without clocks beyond per-move
// time and returns South's store minus North's.
func play(t *testing.T, r kalah.Rules, south, north player.Player, perMove time.Duration) int {
	t.Helper()
	g, err := kalah.NewGame(r)
	if err != nil {
		t.Fatal(err)
	}
	for !g.Over() {
		pl := south
		if g.ToMove() == kalah.North {
			pl = north
		}
		m, err := pl.Move(context.Background(), g, player.Clock{PerMove: perMove})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := g.Play(m); err != nil {
			t.Fatal(err)
		}
	}
	s, n := g.Score()
	return s - n
}

// TestEngineBeatsGreedy plays the engine against greedy from both sides on
// Kalah(4,3), which the engine solves within its time: whatever greedy
// does, the engine must get at least the game's value from either side (so
// as the side the value favours, it wins), however loaded the machine. It
// used to ask the engine at 30 ms a move to win Kalah(6,4) as the second
// player of a first-player win, which only greedy's mistakes allowed.
func TestEngineBeatsGreedy(t *testing.T) {
	r := kalah.Standard()
	r.Houses, r.Seeds = 4, 3
	e, err := New(r, Options{TableMB: 8})
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.Solve(context.Background(), r.Start())
	if err != nil {
		t.Fatal(err)
	}
	v := res.Value // South's best final difference: the stores start level
	o := player.Options{Rules: r, Seed: 1}
	eng, err := player.New("engine:egdb=0:tt=16:time=5s", o)
	if err != nil {
		t.Fatal(err)
	}
	greedy, err := player.New("greedy", o)
	if err != nil {
		t.Fatal(err)
	}
	if d := play(t, r, eng, greedy, 0); d < v || d <= 0 && v > 0 {
		t.Errorf("engine as South: %+d against greedy, the game's value is %+d", d, v)
	}
	if d := play(t, r, greedy, eng, 0); d > v || d >= 0 && v < 0 {
		t.Errorf("engine as North let greedy reach %+d, the game's value is %+d", d, v)
	}
	if rep := eng.(player.Reporter).LastReport(); rep.Nodes == 0 && !rep.Exact {
		t.Errorf("no report: %+v", rep)
	}
}

// TestPerfectPlaysOptimally checks every move of the perfect player in a
// game on a small board against Solve.
func TestPerfectPlaysOptimally(t *testing.T) {
	r := kalah.Rules{Houses: 4, Seeds: 3, EmptyCapture: true}
	o := player.Options{Rules: r, Seed: 1}
	perfect, err := player.New("perfect:time=2s", o)
	if err != nil {
		t.Fatal(err)
	}
	random, _ := player.New("random", o)
	e, _ := New(r, Options{TableMB: 8})
	g, _ := kalah.NewGame(r)
	for !g.Over() {
		pl := random
		if g.ToMove() == kalah.South {
			pl = perfect
		}
		m, err := pl.Move(context.Background(), g, player.Clock{})
		if err != nil {
			t.Fatal(err)
		}
		if pl == perfect {
			res, err := e.Solve(context.Background(), g.Position())
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(res.Best, m) {
				t.Fatalf("%s: perfect played %s, optimal %v", g.Position(), m, res.Best)
			}
			if rep := perfect.(player.Reporter).LastReport(); !rep.Exact || rep.Score != res.Value {
				t.Errorf("report %+v, value %d", rep, res.Value)
			}
		}
		if _, err := g.Play(m); err != nil {
			t.Fatal(err)
		}
	}
}

func TestPlayerSpecs(t *testing.T) {
	o := player.Options{Rules: kalah.Standard()}
	for _, bad := range []string{"engine:time=x", "engine:tt=0", "engine:foo=1", "perfect:egdb=x", "engine:3"} {
		if _, err := player.New(bad, o); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
	big := kalah.Rules{Houses: 16, Seeds: 10}
	if _, err := player.New("engine", player.Options{Rules: big}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("engine with 320 seeds: %v, want ErrTooLarge", err)
	}
	kgp, _ := kalah.PresetRules("kgp")
	if _, err := player.New("engine", player.Options{Rules: kgp}); err != nil {
		t.Errorf("engine under KGP rules (no database): %v", err)
	}
}

// TestPiePlayers plays whole games under the pie rule, where the first two
// moves are chosen above the board search.
func TestPiePlayers(t *testing.T) {
	r := kalah.Rules{Houses: 4, Seeds: 3, Pie: true}
	o := player.Options{Rules: r, Seed: 2}
	for _, spec := range []string{"engine:time=20ms:tt=4", "perfect:time=200ms:tt=4"} {
		p, err := player.New(spec, o)
		if err != nil {
			t.Fatal(err)
		}
		random, _ := player.New("random", o)
		play(t, r, p, random, 0)
		play(t, r, random, p, 0)
	}
	// The second player's first decision includes the swap.
	r = kalah.Rules{Houses: 3, Seeds: 2, Pie: true}
	e, _ := New(r, Options{TableMB: 4})
	p := r.Start()
	p.Play(&r, 2)
	vals, err := e.Analyze(context.Background(), p, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(vals) != len(p.Moves()) || vals[len(vals)-1].Move != kalah.Swap {
		t.Fatalf("analysis of the swap decision: %+v", vals)
	}
	res, err := e.Solve(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	want := piePlayer(&r, p) - diff(&p, p.ToMove())
	if res.Value != want {
		t.Errorf("swap decision: solve %d, brute force %d", res.Value, want)
	}
}

// TestExpertHasNoStrategyBook: the strategy books are the perfect player's
// replies; the engine player (expert) plays its own search beyond the
// opening books, or the two levels would play the same moves. A position
// of Kalah(6,4) that only the strategy book holds: perfect answers from the
// book, engine searches.
func TestExpertHasNoStrategyBook(t *testing.T) {
	r := kalah.Standard()
	var strategy, opening []*book.Book
	for _, b := range book.For(r) {
		if b.Kind() == book.Strategy {
			strategy = append(strategy, b)
		} else {
			opening = append(opening, b)
		}
	}
	if len(strategy) == 0 {
		t.Skip("no strategy book of Kalah(6,4) embedded")
	}
	// A game along the strategy book until a position beyond the
	// opening book that the strategy book holds.
	g, err := kalah.NewGame(r)
	if err != nil {
		t.Fatal(err)
	}
	for {
		p := g.Position()
		_, inOpening := lookupBooks(opening, &p)
		vals, inStrategy := lookupBooks(strategy, &p)
		if inStrategy && !inOpening {
			break
		}
		if !inOpening && !inStrategy || g.Over() {
			t.Fatalf("the books' line ends at %s", &p)
		}
		if !inOpening {
			if _, err := g.Play(kalah.Move(book.Choice(vals))); err != nil {
				t.Fatal(err)
			}
			continue
		}
		ov, _ := lookupBooks(opening, &p)
		if _, err := g.Play(kalah.Move(book.Choice(ov))); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		spec string
		book bool
	}{{"perfect:egdb=0", true}, {"engine:time=50ms:egdb=0", false}} {
		pl, err := player.New(c.spec, player.Options{Rules: r})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := pl.Move(context.Background(), g, player.Clock{}); err != nil {
			t.Fatal(err)
		}
		if rep := pl.(player.Reporter).LastReport(); rep.Book != c.book {
			t.Errorf("%s at %s: from a book %v, want %v", c.spec, g.Position(), rep.Book, c.book)
		}
	}
}
