package book

import (
	"context"
	"fmt"
	"slices"
	"time"

	"kalah"
)

// BuildOptions configure Build.
type BuildOptions struct {
	// Solve returns the value of each of the mover's houses in p (index
	// house-1), in the engine's units: exact for every optimal move, exact
	// or Unknown for the others, NoMove for an empty house. Build calls it
	// once for each position first reached at the last ply (the frontier),
	// one at a time, so an engine's table helps from one to the next.
	Solve func(ctx context.Context, p kalah.Position) ([]int, error)
	// Known, if not nil, holds values already computed (a checkpoint, or an
	// earlier book of the same variant): positions found there are not
	// analysed again.
	Known *Book
	// Checkpoint, if not nil, is called every CheckpointEvery with a book
	// of the positions analysed so far (not a complete book: keep it apart
	// from the result and pass it back as Known to resume).
	Checkpoint      func(*Book) error
	CheckpointEvery time.Duration
	// Progress, if not nil, is called after each analysed position.
	Progress func(BuildProgress)
}

// BuildProgress is where a build stands.
type BuildProgress struct {
	Done, Total int // positions at the frontier analysed, of all
	Reused      int // of Done, taken from Known
	Elapsed     time.Duration
}

// Count returns the number of distinct positions in play reachable from
// the start of rules r by at most plies moves, by the number of moves of
// the shortest way there.
func Count(r kalah.Rules, plies int) ([]int, error) {
	v, err := VariantOf(r)
	if err != nil {
		return nil, err
	}
	levels := enumerate(v, plies)
	out := make([]int, len(levels))
	for i, l := range levels {
		out[i] = len(l)
	}
	return out, nil
}

// enumerate returns the positions in play within plies moves of the start,
// by the length of their shortest way there, each once (by key).
func enumerate(v Variant, plies int) [][]kalah.Position {
	r := v.Rules()
	seen := map[uint64]bool{}
	start := r.Start()
	levels := [][]kalah.Position{{start}}
	seen[Key(&start)] = true
	for d := 0; d < plies; d++ {
		var next []kalah.Position
		for _, p := range levels[d] {
			for _, m := range p.Moves() {
				q := p
				if q.Play(&r, int(m))&kalah.End != 0 {
					continue
				}
				k := Key(&q)
				if !seen[k] {
					seen[k] = true
					next = append(next, q)
				}
			}
		}
		if len(next) == 0 {
			break
		}
		levels = append(levels, next)
	}
	return levels
}

func diff(p *kalah.Position, s kalah.Side) int { return p.Store(s) - p.Store(s.Other()) }

// Build computes the book of rules r to plies moves: it solves every
// position first reached at the last ply (the frontier) with o.Solve and
// derives every move's value in the positions before it, ply by ply back to
// the start, from their children's values.
func Build(ctx context.Context, r kalah.Rules, plies int, o BuildOptions) (*Book, error) {
	v, err := VariantOf(r)
	if err != nil {
		return nil, err
	}
	if plies < 0 || plies > MaxPlies {
		return nil, fmt.Errorf("book: %d plies (want 0 to %d)", plies, MaxPlies)
	}
	if o.Solve == nil {
		return nil, fmt.Errorf("book: no Solve function")
	}
	if o.Known != nil && !o.Known.v.sameValues(v) {
		return nil, fmt.Errorf("%w: the known values are for %s, not %s", ErrMismatch, o.Known.v, v)
	}
	rules := v.Rules()
	n := v.Houses
	levels := enumerate(v, plies)
	values := map[uint64][]int8{}
	start := time.Now()
	lastCheck := start
	frontier := levels[len(levels)-1]
	if len(levels)-1 < plies {
		frontier = nil // the game cannot last that long: no frontier
	}
	pr := BuildProgress{Total: len(frontier)}
	checkpoint := func() error {
		if o.Checkpoint == nil {
			return nil
		}
		lastCheck = time.Now()
		return o.Checkpoint(fromMap(v, plies, values))
	}
	for _, p := range frontier {
		k := Key(&p)
		vals, ok := []int8(nil), false
		if o.Known != nil {
			vals, ok = o.Known.lookupKey(k)
		}
		if ok {
			pr.Reused++
		} else {
			got, err := o.Solve(ctx, p)
			if err != nil {
				if o.Checkpoint != nil && len(values) > 0 {
					if cerr := checkpoint(); cerr != nil {
						return nil, fmt.Errorf("%w (and saving a checkpoint: %v)", err, cerr)
					}
				}
				return nil, err
			}
			if vals, err = moveBytes(&p, got, n); err != nil {
				return nil, err
			}
		}
		values[k] = vals
		pr.Done++
		pr.Elapsed = time.Since(start)
		if o.Progress != nil {
			o.Progress(pr)
		}
		if o.Checkpoint != nil && o.CheckpointEvery > 0 && time.Since(lastCheck) >= o.CheckpointEvery {
			if err := checkpoint(); err != nil {
				return nil, err
			}
		}
	}
	// Save the frontier's values before deriving the rest, so that a
	// failure there loses no solve.
	if o.Checkpoint != nil && pr.Done > pr.Reused {
		if err := checkpoint(); err != nil {
			return nil, err
		}
	}
	// Derive the positions before the frontier from their children. Every
	// child of such a position is in play within plies moves, so it is in
	// the book, but it may have been first reached at the same ply or an
	// earlier one (an extra turn shifts the plies of a transposition), so
	// the positions are taken in an order where children come first: by
	// progress (see progress), which every move strictly lowers.
	inner := len(levels) - 1
	if frontier == nil {
		inner = len(levels)
	}
	var before []kalah.Position
	for _, l := range levels[:inner] {
		before = append(before, l...)
	}
	slices.SortStableFunc(before, func(a, b kalah.Position) int { return progress(&a).cmp(progress(&b)) })
	for _, p := range before {
		me := p.ToMove()
		d0 := diff(&p, me)
		vals := make([]int8, n)
		for i := range vals {
			vals[i] = NoMove
		}
		for _, m := range p.Moves() {
			q := p
			fin := 0
			if q.Play(&rules, int(m))&kalah.End != 0 {
				fin = diff(&q, me)
			} else {
				cv, ok := values[Key(&q)]
				if !ok {
					return nil, fmt.Errorf("book: internal error: child %s of %s not valued", q, p)
				}
				if q.ToMove() == me {
					fin = diff(&q, me) + Best(cv)
				} else {
					fin = diff(&q, me) - Best(cv)
				}
			}
			vals[int(m)-1] = int8(fin - d0)
		}
		values[Key(&p)] = vals
	}
	return fromMap(v, plies, values), nil
}

// rank orders positions so that a move always leads to a lower one: by
// the seeds left on the board, then by how far they are from the stores.
type rank struct{ seeds, distance int }

func (a rank) cmp(b rank) int {
	if a.seeds != b.seeds {
		return a.seeds - b.seeds
	}
	return a.distance - b.distance
}

// progress returns the rank of p. A move that puts no seed in a store and
// captures nothing leaves the seeds on the board, but moves each sown seed
// to a house nearer the mover's store; any other move takes seeds off the
// board. Either way the child ranks lower, so the positions of a game,
// keyed by their boards, never repeat.
func progress(p *kalah.Position) rank {
	n := p.Houses()
	var r rank
	for _, s := range []kalah.Side{kalah.South, kalah.North} {
		for h := 1; h <= n; h++ {
			x := p.House(s, h)
			r.seeds += x
			r.distance += x * (n + 1 - h)
		}
	}
	return r
}

// moveBytes checks an analysis of p against its legal moves and packs it.
func moveBytes(p *kalah.Position, got []int, n int) ([]int8, error) {
	if len(got) != n {
		return nil, fmt.Errorf("book: analysis of %s has %d values, want %d", p, len(got), n)
	}
	vals := make([]int8, n)
	total := p.Total()
	for i, x := range got {
		legal := p.House(p.ToMove(), i+1) > 0
		switch {
		case !legal && x != NoMove, legal && x != Unknown && (x < -total || x > total):
			return nil, fmt.Errorf("book: analysis of %s: house %d has value %d", p, i+1, x)
		}
		vals[i] = int8(x)
	}
	if Best(vals) <= Unknown {
		return nil, fmt.Errorf("book: analysis of %s: no move of known value", p)
	}
	return vals, nil
}

// fromMap returns the book of the values, sorted by key.
func fromMap(v Variant, plies int, values map[uint64][]int8) *Book {
	b := &Book{v: v, plies: plies, keys: make([]uint64, 0, len(values))}
	for k := range values {
		b.keys = append(b.keys, k)
	}
	slices.Sort(b.keys)
	b.vals = make([]int8, 0, len(b.keys)*v.Houses)
	for _, k := range b.keys {
		b.vals = append(b.vals, values[k]...)
	}
	return b
}
