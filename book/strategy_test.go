package book_test

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"kalah"
	"kalah/book"
	"kalah/engine"
)

// strategyLimit makes Kalah(4,3)'s strategy book a few dozen positions
// deep: its start takes the search some 20,000 nodes.
const strategyLimit = 2000

// fastFunc returns a Fast function for BuildStrategy: the player's search
// on one thread with a fresh table within limit nodes.
func fastFunc(t testing.TB, r kalah.Rules, limit uint64) func(context.Context, kalah.Position) (bool, error) {
	t.Helper()
	e, err := engine.New(r, engine.Options{TableMB: 4, Threads: 1, NoBook: true, NodeLimit: limit})
	if err != nil {
		t.Fatal(err)
	}
	return func(ctx context.Context, p kalah.Position) (bool, error) {
		e.Clear()
		_, err := e.Best(ctx, p)
		if errors.Is(err, engine.ErrNodeLimit) {
			return false, nil
		}
		return err == nil, err
	}
}

func buildStrategy(t testing.TB, plies int, o book.StrategyOptions) *book.Book {
	t.Helper()
	solve, _ := solver(t, small())
	if o.Solve == nil {
		o.Solve = solve
	}
	if o.Fast == nil {
		o.Fast = fastFunc(t, small(), strategyLimit)
	}
	o.Plies, o.NodeLimit = plies, strategyLimit
	b, err := book.BuildStrategy(context.Background(), small(), o)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestStrategyCovers plays every line the strategy book promises: from
// every position within its plies, the player follows the books (the
// optimal move nearest the store) and the opponent plays every move. Every
// position the player is to move in must be in the book with the solver's
// value and optimal moves, or fast for the player's search; and the book
// holds no other position.
func TestStrategyCovers(t *testing.T) {
	const plies = 2
	b := buildStrategy(t, plies, book.StrategyOptions{})
	t.Logf("%s", b.Describe())
	if b.Kind() != book.Strategy || b.Plies() != plies || b.Len() < 10 {
		t.Fatalf("strategy book: %s", b.Describe())
	}
	if _, n := b.Frontier(); n != strategyLimit {
		t.Errorf("frontier %d nodes, want %d", n, strategyLimit)
	}
	r := small()
	fast := fastFunc(t, r, strategyLimit)
	_, e := solver(t, r)
	met := map[uint64]bool{}
	opp := map[uint64]bool{}
	inBook := 0
	var player, opponent func(p kalah.Position)
	player = func(p kalah.Position) {
		if met[book.Key(&p)] {
			return
		}
		met[book.Key(&p)] = true
		vals, ok := b.Lookup(&p)
		if !ok {
			if f, err := fast(context.Background(), p); err != nil || !f {
				t.Fatalf("%s: neither in the book nor fast (%v)", p, err)
			}
			return
		}
		inBook++
		check(t, e, b, p)
		q := p
		if q.Play(&r, book.Choice(vals))&kalah.End != 0 {
			return
		}
		if q.ToMove() == p.ToMove() {
			player(q)
		} else {
			opponent(q)
		}
	}
	opponent = func(p kalah.Position) {
		if opp[book.Key(&p)] {
			return
		}
		opp[book.Key(&p)] = true
		for _, m := range p.Moves() {
			q := p
			if q.Play(&r, int(m))&kalah.End != 0 {
				continue
			}
			if q.ToMove() == p.ToMove() {
				opponent(q)
			} else {
				player(q)
			}
		}
	}
	for _, p := range positions(r, plies) {
		player(p)
		opponent(p)
	}
	if inBook != b.Len() {
		t.Errorf("the book holds %d positions, the lines meet %d of them", b.Len(), inBook)
	}
}

// TestStrategyFile: a strategy book survives the file format with its
// kind and frontier, and every changed byte, truncation or padding is
// refused.
func TestStrategyFile(t *testing.T) {
	b := buildStrategy(t, 1, book.StrategyOptions{DBSeeds: 7})
	data := b.Marshal()
	c, err := book.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	k, n := c.Frontier()
	if !bytes.Equal(c.Marshal(), data) || c.Kind() != book.Strategy || c.Len() != b.Len() || k != 7 || n != strategyLimit {
		t.Fatalf("round trip changed the book: %s, then %s", b.Describe(), c.Describe())
	}
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

// TestStrategyResume: a strategy build interrupted after some solves
// resumes from its checkpoint without solving them again, and gives the
// same book.
func TestStrategyResume(t *testing.T) {
	const plies = 2
	want := buildStrategy(t, plies, book.StrategyOptions{})
	solve, _ := solver(t, small())
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	var saved *book.Book
	_, err := book.BuildStrategy(ctx, small(), book.StrategyOptions{
		Plies: plies, NodeLimit: strategyLimit, Fast: fastFunc(t, small(), strategyLimit),
		Solve: func(ctx context.Context, p kalah.Position) ([]int, error) {
			if calls++; calls > 5 {
				cancel()
				return nil, ctx.Err()
			}
			return solve(ctx, p)
		},
		Checkpoint: func(b *book.Book) error { saved = b; return nil },
	})
	if !errors.Is(err, context.Canceled) || saved == nil || saved.Len() != 5 {
		t.Fatalf("interrupted build: %v, checkpoint %v", err, saved)
	}
	// A resumed build's checkpoint, saved before it has met every known
	// position again, holds them all the same.
	ctx, cancel = context.WithCancel(context.Background())
	var early *book.Book
	reused := 0
	_, err = book.BuildStrategy(ctx, small(), book.StrategyOptions{
		Plies: plies, NodeLimit: strategyLimit, Known: saved, Solve: solve,
		Fast: func(ctx context.Context, p kalah.Position) (bool, error) {
			cancel() // stop at the first position not known
			return false, ctx.Err()
		},
		Checkpoint:      func(b *book.Book) error { early = b; return nil },
		CheckpointEvery: time.Nanosecond,
		Progress:        func(pr book.StrategyProgress) { reused = pr.Reused },
	})
	if !errors.Is(err, context.Canceled) || reused >= 5 || early == nil || early.Len() != 5 {
		t.Fatalf("resumption stopped after meeting %d known positions again: %v, checkpoint %v", reused, err, early)
	}
	// A resumed build stopped again, after one more solve, saves every
	// position.
	calls = 0
	ctx, cancel = context.WithCancel(context.Background())
	var again *book.Book
	_, err = book.BuildStrategy(ctx, small(), book.StrategyOptions{
		Plies: plies, NodeLimit: strategyLimit, Fast: fastFunc(t, small(), strategyLimit), Known: saved,
		Solve: func(ctx context.Context, p kalah.Position) ([]int, error) {
			if calls++; calls > 1 {
				cancel()
				return nil, ctx.Err()
			}
			return solve(ctx, p)
		},
		Checkpoint: func(b *book.Book) error { again = b; return nil },
	})
	if !errors.Is(err, context.Canceled) || again == nil || again.Len() != 6 {
		t.Fatalf("interrupted resumption: %v, checkpoint %v", err, again)
	}
	calls = 0
	got := buildStrategy(t, plies, book.StrategyOptions{
		Solve: func(ctx context.Context, p kalah.Position) ([]int, error) { calls++; return solve(ctx, p) },
		Known: again,
	})
	if calls != want.Len()-6 {
		t.Errorf("resumed build solved %d positions, want %d", calls, want.Len()-6)
	}
	if !bytes.Equal(got.Marshal(), want.Marshal()) {
		t.Error("the resumed build differs")
	}
}

// TestStrategyFollowsOpening: positions of the opening book are followed,
// not solved or copied.
func TestStrategyFollowsOpening(t *testing.T) {
	const plies = 2
	opening := buildSmall(t, 3)
	solve, _ := solver(t, small())
	solved := 0
	b := buildStrategy(t, plies, book.StrategyOptions{
		Opening: opening,
		Solve: func(ctx context.Context, p kalah.Position) ([]int, error) {
			if _, ok := opening.Lookup(&p); ok {
				t.Errorf("%s: solved, but in the opening book", p)
			}
			solved++
			return solve(ctx, p)
		},
	})
	if solved != b.Len() {
		t.Errorf("%d solves for %d positions", solved, b.Len())
	}
	for _, p := range positions(small(), 3) {
		if _, ok := b.Lookup(&p); ok {
			t.Errorf("%s: copied from the opening book", p)
		}
	}
}

// TestEmbeddedStrategy checks each embedded strategy book against the
// lines it promises (the player following the books, the opponent playing
// everything, from every position within its plies): each of its
// positions is met on those lines. Then
// the engine, searching, solves a sample of them: by default three of each
// Kalah(6,3) book (a second or two each) and none of Kalah(6,4) (seconds
// to minutes each); KALAH_BOOK_SAMPLE=N solves N of every book, and
// KALAH_BOOK_EGDB names an endgame database file for the solver (else one
// of 12 seeds is built).
func TestEmbeddedStrategy(t *testing.T) {
	books, err := book.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	sample := -1
	if s := os.Getenv("KALAH_BOOK_SAMPLE"); s != "" {
		if sample, err = strconv.Atoi(s); err != nil || sample < 0 {
			t.Fatalf("KALAH_BOOK_SAMPLE=%q: want a count", s)
		}
	}
	n := 0
	for _, b := range books {
		if b.Kind() != book.Strategy {
			continue
		}
		n++
		t.Run(book.StrategyFileName(b.Variant()), func(t *testing.T) {
			r := b.Variant().Rules()
			var kept []kalah.Position
			left := 0
			met := map[uint64]bool{}
			opp := map[uint64]bool{}
			var player, opponent func(p kalah.Position)
			player = func(p kalah.Position) {
				if met[book.Key(&p)] {
					return
				}
				met[book.Key(&p)] = true
				if _, ok := b.Lookup(&p); ok {
					kept = append(kept, p)
				}
				var vals []int8
				for _, c := range book.For(r) {
					if v, ok := c.Lookup(&p); ok {
						vals = v // the books agree: their values are exact
						break
					}
				}
				if vals == nil {
					left++ // left to the search
					return
				}
				q := p
				if q.Play(&r, book.Choice(vals))&kalah.End != 0 {
					return
				}
				if q.ToMove() == p.ToMove() {
					player(q)
				} else {
					opponent(q)
				}
			}
			opponent = func(p kalah.Position) {
				if opp[book.Key(&p)] {
					return
				}
				opp[book.Key(&p)] = true
				for _, m := range p.Moves() {
					q := p
					if q.Play(&r, int(m))&kalah.End != 0 {
						continue
					}
					if q.ToMove() == p.ToMove() {
						opponent(q)
					} else {
						player(q)
					}
				}
			}
			for _, p := range positions(r, b.Plies()) {
				player(p)
				opponent(p)
			}
			if len(kept) != b.Len() {
				t.Fatalf("%s: its lines meet %d of its positions", b.Describe(), len(kept))
			}
			t.Logf("%s: %d positions met, %d left to the search", b.Describe(), len(met), left)
			draws := sample
			if draws < 0 {
				draws = 0
				if r.Seeds <= 3 {
					draws = 3
				}
			}
			if draws == 0 {
				return
			}
			_, e := solver(t, r)
			rng := rand.New(rand.NewPCG(27, uint64(r.Seeds)))
			for range draws {
				p := kept[rng.IntN(len(kept))]
				start := time.Now()
				check(t, e, b, p)
				t.Logf("%s: the solver agrees with the book (%v)", p, time.Since(start).Round(time.Millisecond))
			}
		})
	}
	if n == 0 {
		t.Fatal("no embedded strategy book")
	}
}

// TestStrategyFastAhead: with FastWorkers the fast checks run several at
// once, ahead of the build, each position checked once, and the book is
// byte for byte the one built a check at a time.
func TestStrategyFastAhead(t *testing.T) {
	const plies = 2
	want := buildStrategy(t, plies, book.StrategyOptions{})
	r := small()
	var mu sync.Mutex
	checked := map[uint64]int{}
	running, most := 0, 0
	engines := make(chan func(context.Context, kalah.Position) (bool, error), 2)
	for range 2 {
		engines <- fastFunc(t, r, strategyLimit)
	}
	got := buildStrategy(t, plies, book.StrategyOptions{
		FastWorkers: 2,
		Fast: func(ctx context.Context, p kalah.Position) (bool, error) {
			mu.Lock()
			checked[book.Key(&p)]++
			running++
			most = max(most, running)
			mu.Unlock()
			time.Sleep(time.Millisecond) // long enough for the other to start
			fast := <-engines
			defer func() { engines <- fast }()
			ok, err := fast(ctx, p)
			mu.Lock()
			running--
			mu.Unlock()
			return ok, err
		},
	})
	if !bytes.Equal(got.Marshal(), want.Marshal()) {
		t.Errorf("with two fast workers: %s; one at a time: %s", got.Describe(), want.Describe())
	}
	if most < 2 {
		t.Errorf("at most %d fast checks ran at once", most)
	}
	for k, n := range checked {
		if n > 1 {
			t.Errorf("position %x checked %d times", k, n)
		}
	}
}
