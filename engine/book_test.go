package engine

import (
	"context"
	"slices"
	"testing"
	"time"

	"kalah"
	"kalah/player"
)

// TestBookAnswers: the start of Kalah(6,4) is answered from the embedded
// book (told by the Book flags, not by timing): +8, only move 3.
func TestBookAnswers(t *testing.T) {
	ctx := context.Background()
	e, err := New(kalah.Standard(), Options{TableMB: 1, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(e.books) == 0 {
		t.Fatal("no embedded book for Kalah(6,4)")
	}
	p := kalah.Standard().Start()
	for _, limit := range []time.Duration{0, 50 * time.Millisecond} {
		vals, err := e.Analyze(ctx, p, limit)
		if err != nil {
			t.Fatal(err)
		}
		if len(vals) != 6 {
			t.Fatalf("analysis of the start: %v", vals)
		}
		for _, mv := range vals {
			if !mv.Book || !mv.Exact || mv.Depth != 0 {
				t.Errorf("limit %v: move %v: %+v, want exact from the book", limit, mv.Move, mv)
			}
			if (mv.Value == 8) != (mv.Move == 3) || mv.Value > 8 {
				t.Errorf("limit %v: move %v worth %d; only 3 wins by 8", limit, mv.Move, mv.Value)
			}
		}
	}
	res, err := e.Solve(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Book || !res.Exact || res.Value != 8 || !slices.Equal(res.Best, []kalah.Move{3}) || res.Nodes != 0 {
		t.Fatalf("solve of the start: %+v", res)
	}
	if len(res.PV) < e.books[0].Plies() || res.PV[0] != 3 {
		t.Errorf("pv %v: want one through the book (%d plies) from 3", res.PV, e.books[0].Plies())
	}
	// Each move of the PV is an optimal one of its position in the book.
	q := p
	for i, m := range res.PV {
		vals, ok := e.bookMoves(&q)
		if !ok {
			t.Fatalf("pv %v leaves the book after %d moves", res.PV, i)
		}
		if int(vals[m-1]) != bestOf(vals) {
			t.Fatalf("pv %v: move %d (%v) is not optimal in %s: %v", res.PV, i, m, q, vals)
		}
		if q.Play(&e.rules, int(m))&kalah.End != 0 {
			break
		}
	}
	sr, err := e.Search(ctx, p, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if !sr.Book || !sr.Exact || sr.Value != 8 || !slices.Equal(sr.Best, []kalah.Move{3}) {
		t.Errorf("search of the start: %+v", sr)
	}
}

// TestPlayersFromBook: the perfect and engine players move from the book
// where it holds the position, saying so in their report, even with a
// budget far too short for a search to prove anything.
func TestPlayersFromBook(t *testing.T) {
	r := kalah.Standard()
	r.Seeds = 3
	e, err := New(r, Options{TableMB: 1, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, spec := range []string{"perfect:egdb=0:tt=1", "engine:egdb=0:tt=1"} {
		pl, err := player.New(spec, player.Options{Rules: r, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		g, err := kalah.NewGame(r)
		if err != nil {
			t.Fatal(err)
		}
		for ply := 0; ply < 4 && !g.Over(); ply++ {
			p := g.Position()
			res, err := e.Solve(context.Background(), p)
			if err != nil || !res.Book {
				t.Fatalf("%s: not in the book: %+v %v", p, res, err)
			}
			m, err := pl.Move(context.Background(), g, player.Clock{PerMove: time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			rep := pl.(player.Reporter).LastReport()
			if !slices.Contains(res.Best, m) || !rep.Book || !rep.Exact || rep.Score != res.Value || rep.Nodes != 0 {
				t.Fatalf("%s at %s: played %s (report %+v); the book's best %v, worth %+d", spec, p, m, rep, res.Best, res.Value)
			}
			if _, err := g.Play(m); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func bestOf(vals []int8) int {
	b := -128
	for _, v := range vals {
		b = max(b, int(v))
	}
	return b
}

// TestNoBook: with NoBook the engine searches, and finds what the book
// says.
func TestNoBook(t *testing.T) {
	r := kalah.Standard()
	r.Seeds = 3
	ctx := context.Background()
	with, err := New(r, Options{TableMB: 1, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	without, err := New(r, Options{TableMB: 16, Threads: 1, NoBook: true})
	if err != nil {
		t.Fatal(err)
	}
	p := r.Start()
	for range 5 { // a position five plies in, quick to search
		p.Play(&r, int(p.Moves()[0]))
	}
	a, err := with.Solve(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	b, err := without.Solve(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if !a.Book || b.Book || b.Nodes == 0 {
		t.Fatalf("book %v (%d nodes), no book %v (%d nodes)", a.Book, a.Nodes, b.Book, b.Nodes)
	}
	if a.Value != b.Value || !slices.Equal(a.Best, b.Best) {
		t.Errorf("%s: book %+d %v, search %+d %v", p, a.Value, a.Best, b.Value, b.Best)
	}
}

// BenchmarkAnalyzeStartFromBook analyses the start of Kalah(6,4), every
// move's exact value, from the embedded book.
func BenchmarkAnalyzeStartFromBook(b *testing.B) {
	e, err := New(kalah.Standard(), Options{TableMB: 1, Threads: 1})
	if err != nil {
		b.Fatal(err)
	}
	p := kalah.Standard().Start()
	for b.Loop() {
		vals, err := e.Analyze(context.Background(), p, 0)
		if err != nil || len(vals) != 6 || !vals[0].Book {
			b.Fatalf("%v %v", vals, err)
		}
	}
}

// BenchmarkSolveStartFromBook solves the start of Kalah(6,4) from the
// embedded book: the value, every optimal move and a PV through the book.
func BenchmarkSolveStartFromBook(b *testing.B) {
	e, err := New(kalah.Standard(), Options{TableMB: 1, Threads: 1})
	if err != nil {
		b.Fatal(err)
	}
	p := kalah.Standard().Start()
	for b.Loop() {
		res, err := e.Solve(context.Background(), p)
		if err != nil || !res.Book {
			b.Fatalf("%+v %v", res, err)
		}
	}
}

// TestBookStarts: the start of each standard preset with a built-in book is
// answered from it, without a node, with the published value and optimal
// opening (Kalah(6,3) +2; (6,4) +8, only 3; (6,5) +10, only 2: Irving,
// Donkers and Uiterwijk 2000, Rawlings 2015; the optimal moves of (6,3) and
// (6,5) are ours, proven by the search in TestPublished and
// docs/PERFORMANCE.md).
func TestBookStarts(t *testing.T) {
	for _, tc := range []struct {
		seeds, value int
		best         []kalah.Move
	}{
		{3, 2, nil},
		{4, 8, []kalah.Move{3}},
		{5, 10, []kalah.Move{2}},
	} {
		r := kalah.Standard()
		r.Seeds = tc.seeds
		e, err := New(r, Options{TableMB: 1, Threads: 1})
		if err != nil {
			t.Fatal(err)
		}
		res, err := e.Solve(context.Background(), r.Start())
		if err != nil {
			t.Fatal(err)
		}
		if !res.Book || res.Nodes != 0 || res.Value != tc.value || (tc.best != nil && !slices.Equal(res.Best, tc.best)) {
			t.Errorf("Kalah(6,%d) from the start: %+v, want %+d best %v from the book", tc.seeds, res, tc.value, tc.best)
		}
	}
}

// TestBookAnswersWithoutSearch: the start of Kalah(6,5) is answered (its book has the
// value and best move) but not analysed (no other move's value), and so is
// the start of Kalah(6,4) with empty capture (from its strategy book); the
// start of Kalah(6,4) both; a middle game neither, nor any position under
// rules with no book.
func TestBookAnswersWithoutSearch(t *testing.T) {
	r5 := kalah.Standard()
	r5.Seeds = 5
	r4 := kalah.Standard()
	mid, err := kalah.ParsePosition("2,0,3,5,1,2/1,4,0,2,0,4 12-12 S")
	if err != nil {
		t.Fatal(err)
	}
	egypt := kalah.Standard()
	egypt.EmptyCapture = true
	r55 := kalah.Standard()
	r55.Houses = 5
	for _, tc := range []struct {
		name            string
		r               kalah.Rules
		p               kalah.Position
		solve, analysis bool
	}{
		{"Kalah(6,5) start", r5, r5.Start(), true, true}, // every first move's value (book/data: 1 ply)
		{"Kalah(6,4) start", r4, r4.Start(), true, true},
		{"middle game", r4, mid, false, false},
		{"empty capture", egypt, egypt.Start(), true, false},
		{"five houses", r55, r55.Start(), false, false},
	} {
		if got := BookAnswers(tc.r, &tc.p, false); got != tc.solve {
			t.Errorf("%s: BookAnswers(solve) = %v", tc.name, got)
		}
		if got := BookAnswers(tc.r, &tc.p, true); got != tc.analysis {
			t.Errorf("%s: BookAnswers(analysis) = %v", tc.name, got)
		}
	}
}
