package book_test

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

	"kalah"
	"kalah/book"
	"kalah/egdb"
	"kalah/engine"
)

// small is a variant solved in no time: Kalah(4,3).
func small() kalah.Rules {
	r := kalah.Standard()
	r.Houses, r.Seeds = 4, 3
	return r.Canonical()
}

// solver returns a Solve function for Build backed by an engine without a
// book, and the engine. On six houses it probes an endgame database: the
// file KALAH_BOOK_EGDB names, else one of 12 seeds built in memory.
func solver(t testing.TB, r kalah.Rules) (func(context.Context, kalah.Position) ([]int, error), *engine.Engine) {
	t.Helper()
	var db *egdb.DB
	var err error
	switch path := os.Getenv("KALAH_BOOK_EGDB"); {
	case r.Houses != 6:
	case path != "":
		if db, err = egdb.Open(path, true); err == nil {
			err = db.Check(r)
		}
	default:
		db, err = egdb.Build(context.Background(), r, 12, egdb.BuildOptions{})
	}
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.New(r, engine.Options{TableMB: 256, Threads: 1, NoBook: true, DB: db})
	if err != nil {
		t.Fatal(err)
	}
	return func(ctx context.Context, p kalah.Position) ([]int, error) {
		res, err := e.Solve(ctx, p)
		if err != nil {
			return nil, err
		}
		out := make([]int, r.Houses)
		for i := range out {
			out[i] = book.NoMove
		}
		for _, m := range p.Moves() {
			out[m-1] = book.Unknown
		}
		for _, m := range res.Best {
			out[m-1] = res.Value
		}
		return out, nil
	}, e
}

func buildSmall(t testing.TB, plies int) *book.Book {
	t.Helper()
	solve, _ := solver(t, small())
	b, err := book.Build(context.Background(), small(), plies, book.BuildOptions{Solve: solve})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// positions returns every position in play within plies moves of the
// start, each once.
func positions(r kalah.Rules, plies int) []kalah.Position {
	seen := map[uint64]bool{}
	level := []kalah.Position{r.Start()}
	var all []kalah.Position
	for d := 0; d <= plies && len(level) > 0; d++ {
		var next []kalah.Position
		for _, p := range level {
			if seen[book.Key(&p)] {
				continue
			}
			seen[book.Key(&p)] = true
			all = append(all, p)
			for _, m := range p.Moves() {
				q := p
				if q.Play(&r, int(m))&kalah.End == 0 {
					next = append(next, q)
				}
			}
		}
		level = next
	}
	return all
}

// check compares a book entry of p with the solver: the value always; the
// value of every move where the entry knows it; and every optimal move.
func check(t *testing.T, e *engine.Engine, b *book.Book, p kalah.Position) {
	t.Helper()
	vals, ok := b.Lookup(&p)
	if !ok {
		t.Fatalf("%s: not in the book", p)
	}
	res, err := e.Solve(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if res.Book {
		t.Fatal("the solver answered from a book")
	}
	if got := book.Best(vals); got != res.Value {
		t.Errorf("%s: book value %d, solver %d", p, got, res.Value)
	}
	best := map[kalah.Move]bool{}
	for _, m := range res.Best {
		best[m] = true
	}
	for i, v := range vals {
		if (int(v) == res.Value) != best[kalah.Move(i+1)] {
			t.Errorf("%s: book values %v, solver's best moves %v", p, vals, res.Best)
		}
	}
	if !book.Complete(vals) {
		return
	}
	mvs, err := e.Analyze(context.Background(), p, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, mv := range mvs {
		if int(vals[mv.Move-1]) != mv.Value {
			t.Errorf("%s: move %d: book %d, solver %d", p, mv.Move, vals[mv.Move-1], mv.Value)
		}
	}
}

// crossPly counts the moves, from positions before the last of plies,
// that lead to a position first reached at their own ply or before (a
// transposition an extra turn shifts): the values of such positions must be
// derived before their parents'.
func crossPly(r kalah.Rules, plies int) int {
	first := map[uint64]int{}
	level := []kalah.Position{r.Start()}
	first[book.Key(&level[0])] = 0
	n := 0
	for d := 0; d < plies; d++ {
		var next []kalah.Position
		for _, p := range level {
			for _, m := range p.Moves() {
				q := p
				if q.Play(&r, int(m))&kalah.End != 0 {
					continue
				}
				if l, ok := first[book.Key(&q)]; !ok {
					first[book.Key(&q)] = d + 1
					next = append(next, q)
				} else if l <= d {
					n++
				}
			}
		}
		level = next
	}
	return n
}

// TestBuildMatchesSolver builds a whole small book and checks every entry
// against the solver. Its plies include positions whose children were
// first reached at the same ply or before.
func TestBuildMatchesSolver(t *testing.T) {
	const plies = 6
	if n := crossPly(small(), plies); n == 0 {
		t.Fatalf("no transposition across plies within %d plies: the test needs one", plies)
	}
	b := buildSmall(t, plies)
	all := positions(small(), plies)
	if b.Len() != len(all) {
		t.Fatalf("book of %d positions, want %d", b.Len(), len(all))
	}
	counts, err := book.Count(small(), plies)
	if err != nil {
		t.Fatal(err)
	}
	sum := 0
	for _, c := range counts {
		sum += c
	}
	if sum != len(all) {
		t.Errorf("Count gives %d positions, want %d", sum, len(all))
	}
	_, e := solver(t, small())
	for _, p := range all {
		check(t, e, b, p)
	}
	// North first: the same boards from the mover's view.
	q := small().Start().Mirror()
	if _, ok := b.Lookup(&q); !ok {
		t.Error("the start with North to move is not in the book")
	}
}

// TestEmbeddedMatchesSolver checks every entry of each embedded book
// against its children, and solves a sample of its positions with the
// engine searching (NoBook): the value and the optimal moves must be the
// book's, and every move's value where the book knows them all. By default
// it solves three positions of Kalah(6,3), two of its last ply and one of
// the ply before (a second or two each), and none of Kalah(6,4)
// (seconds to minutes each); KALAH_BOOK_SAMPLE=N draws N positions from
// the whole of every book instead, and KALAH_BOOK_EGDB names an endgame
// database file for the solver (else one of 12 seeds is built).
func TestEmbeddedMatchesSolver(t *testing.T) {
	books, err := book.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	if len(books) == 0 {
		t.Fatal("no embedded book")
	}
	sample := -1
	if s := os.Getenv("KALAH_BOOK_SAMPLE"); s != "" {
		if sample, err = strconv.Atoi(s); err != nil || sample < 0 {
			t.Fatalf("KALAH_BOOK_SAMPLE=%q: want a count", s)
		}
	}
	for _, b := range books {
		if b.Kind() != book.Opening {
			continue // TestEmbeddedStrategy
		}
		t.Run(book.FileName(b.Variant()), func(t *testing.T) {
			r := b.Variant().Rules()
			all := positions(r, b.Plies())
			if len(all) != b.Len() {
				t.Fatalf("book of %d positions, the rules reach %d within %d plies", b.Len(), len(all), b.Plies())
			}
			consistent(t, b, r, all)
			counts, err := book.Count(r, b.Plies())
			if err != nil {
				t.Fatal(err)
			}
			// positions lists the plies in order: the last two are at the end.
			last := all[len(all)-counts[len(counts)-1]:]
			var before []kalah.Position // the ply before the last, if any
			if len(counts) >= 2 {
				before = all[len(all)-len(last)-counts[len(counts)-2] : len(all)-len(last)]
			}
			var draws [][]kalah.Position
			switch {
			case sample >= 0:
				for range sample {
					draws = append(draws, all)
				}
			case r.Seeds <= 3:
				draws = [][]kalah.Position{last, last, before}
			}
			if len(draws) == 0 {
				t.Skipf("no position solved (seconds to minutes each); set KALAH_BOOK_SAMPLE=N to solve N")
			}
			_, e := solver(t, r)
			rng := rand.New(rand.NewPCG(16, uint64(r.Seeds)))
			for _, from := range draws {
				p := from[rng.IntN(len(from))]
				start := time.Now()
				check(t, e, b, p)
				t.Logf("%s: the solver agrees with the book (%v)", p, time.Since(start).Round(time.Millisecond))
			}
		})
	}
}

// consistent checks every entry against its children in the book: each
// move's known value is the sowing's gain plus (or, when the turn passes,
// minus) the child's value, and a move of unknown value is worse.
func consistent(t *testing.T, b *book.Book, r kalah.Rules, all []kalah.Position) {
	t.Helper()
	for _, p := range all {
		vals, ok := b.Lookup(&p)
		if !ok {
			t.Fatalf("%s: not in the book", p)
		}
		me := p.ToMove()
		d0 := p.Store(me) - p.Store(me.Other())
		for i, v := range vals {
			if (v == book.NoMove) != (p.House(me, i+1) == 0) {
				t.Fatalf("%s: house %d: value %d", p, i+1, v)
			}
			if v == book.NoMove {
				continue
			}
			q := p
			end := q.Play(&r, i+1)&kalah.End != 0
			fin := q.Store(me) - q.Store(me.Other())
			if !end {
				cv, ok := b.Lookup(&q)
				if !ok {
					continue // beyond the book
				}
				if q.ToMove() == me {
					fin += book.Best(cv)
				} else {
					fin -= book.Best(cv)
				}
			}
			switch {
			case v == book.Unknown && fin-d0 >= book.Best(vals):
				t.Fatalf("%s: house %d unknown, but worth %d, the best", p, i+1, fin-d0)
			case v != book.Unknown && int(v) != fin-d0:
				t.Fatalf("%s: house %d: %d in the book, %d from its child", p, i+1, v, fin-d0)
			}
		}
	}
}

func TestRoundTrip(t *testing.T) {
	b := buildSmall(t, 3)
	data := b.Marshal()
	c, err := book.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(c.Marshal(), data) || c.Len() != b.Len() || c.Plies() != 3 || c.Variant() != b.Variant() {
		t.Fatalf("round trip changed the book: %s, then %s", b.Describe(), c.Describe())
	}
	path := t.TempDir() + "/x.kbook"
	if err := b.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	d, err := book.ReadFile(path)
	if err != nil || !bytes.Equal(d.Marshal(), data) {
		t.Fatalf("file round trip: %v", err)
	}
	for _, p := range positions(small(), 3) {
		v1, ok1 := b.Lookup(&p)
		v2, ok2 := d.Lookup(&p)
		if !ok1 || !ok2 || !bytes.Equal(i8(v1), i8(v2)) {
			t.Fatalf("%s: %v %v, %v %v", p, v1, ok1, v2, ok2)
		}
	}
}

func i8(v []int8) []byte {
	b := make([]byte, len(v))
	for i, x := range v {
		b[i] = byte(x)
	}
	return b
}

// TestCorruptRefused: every single changed byte, every truncation and any
// padding is refused with ErrCorrupt.
func TestCorruptRefused(t *testing.T) {
	data := buildSmall(t, 3).Marshal()
	for i := range data {
		bad := bytes.Clone(data)
		bad[i] ^= 0x10
		if _, err := book.Parse(bad); !errors.Is(err, book.ErrCorrupt) {
			t.Fatalf("byte %d changed: %v", i, err)
		}
	}
	for n := range len(data) {
		if _, err := book.Parse(data[:n]); !errors.Is(err, book.ErrCorrupt) {
			t.Fatalf("truncated to %d bytes: %v", n, err)
		}
	}
	if _, err := book.Parse(append(bytes.Clone(data), 0)); !errors.Is(err, book.ErrCorrupt) {
		t.Fatalf("padded: %v", err)
	}
}

func TestMismatch(t *testing.T) {
	b := buildSmall(t, 2)
	other := small()
	other.EmptyCapture = true
	if b.Fits(other) || !b.Fits(small()) {
		t.Error("Fits ignores the empty capture")
	}
	north := small()
	north.First = kalah.North
	if !b.Fits(north) {
		t.Error("the first side changes no value")
	}
	solve, _ := solver(t, other)
	if _, err := book.Build(context.Background(), other, 2, book.BuildOptions{Solve: solve, Known: b}); !errors.Is(err, book.ErrMismatch) {
		t.Errorf("known values of other rules: %v", err)
	}
	for _, r := range []kalah.Rules{mustPreset(t, "kgp"), mustPreset(t, "manchester")} {
		if _, err := book.VariantOf(r); !errors.Is(err, book.ErrUnsupported) {
			t.Errorf("%s: %v", r, err)
		}
	}
}

func mustPreset(t *testing.T, name string) kalah.Rules {
	r, err := kalah.PresetRules(name)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestResume: a build interrupted after some positions resumes from its
// checkpoint without solving them again, and gives the same book.
func TestResume(t *testing.T) {
	const plies = 4
	want := buildSmall(t, plies)
	solve, _ := solver(t, small())
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	var saved *book.Book
	_, err := book.Build(ctx, small(), plies, book.BuildOptions{
		Solve: func(ctx context.Context, p kalah.Position) ([]int, error) {
			if calls++; calls > 10 {
				cancel()
				return nil, ctx.Err()
			}
			return solve(ctx, p)
		},
		Checkpoint: func(b *book.Book) error { saved = b; return nil },
	})
	if !errors.Is(err, context.Canceled) || saved == nil || saved.Len() != 10 {
		t.Fatalf("interrupted build: %v, checkpoint %v", err, saved)
	}
	calls = 0
	got, err := book.Build(context.Background(), small(), plies, book.BuildOptions{
		Solve: func(ctx context.Context, p kalah.Position) ([]int, error) { calls++; return solve(ctx, p) },
		Known: saved,
	})
	if err != nil {
		t.Fatal(err)
	}
	counts, _ := book.Count(small(), plies)
	if calls != counts[plies]-10 {
		t.Errorf("resumed build solved %d positions, want %d", calls, counts[plies]-10)
	}
	if !bytes.Equal(got.Marshal(), want.Marshal()) {
		t.Error("the resumed build differs")
	}
}

// TestFor: the book of the rules' own seeds comes first; the book of other
// seeds fits too (a value depends on the board alone), and none fits other
// switches.
func TestFor(t *testing.T) {
	for _, seeds := range []int{3, 4, 5} {
		r := kalah.Standard()
		r.Seeds = seeds
		var bs []*book.Book
		for _, b := range book.For(r) {
			if b.Kind() == book.Opening {
				bs = append(bs, b)
			}
		}
		if len(bs) != 3 {
			t.Fatalf("%s: %d opening books fit, want all three", r, len(bs))
		}
		if bs[0].Variant().Seeds != seeds {
			t.Errorf("%s: the first book is of %d seeds", r, bs[0].Variant().Seeds)
		}
	}
	r := kalah.Standard()
	r.EmptyCapture = true
	for _, b := range book.For(r) {
		if !b.Variant().EmptyCapture || b.Kind() != book.Strategy {
			t.Errorf("%s: %s fits", r, b.Describe())
		}
	}
}

// TestHasStrategy names the variants whose own strategy book is embedded:
// Kalah(6,5) has none though Kalah(6,4)'s fits its later boards.
func TestHasStrategy(t *testing.T) {
	for _, c := range []struct {
		seeds        int
		emptyCapture bool
		want         bool
	}{{3, false, true}, {4, false, true}, {4, true, true}, {5, false, false}, {3, true, false}} {
		r := kalah.Standard()
		r.Seeds, r.EmptyCapture = c.seeds, c.emptyCapture
		if got := book.HasStrategy(r); got != c.want {
			t.Errorf("HasStrategy(%s) = %v, want %v", r, got, c.want)
		}
	}
}
