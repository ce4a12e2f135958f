package egdb

import (
	"context"
	"encoding/binary"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"kalah"
	kboard "kalah/internal/board"
	"kalah/internal/cores"
	"kalah/internal/hugemem"
	"kalah/internal/prefetch"
)

// MaxSeeds is the largest K a database may be built for.
const MaxSeeds = 64

// maxEntries bounds the size of a database (16 GiB of values).
const maxEntries = 1 << 34

// Progress is told how many configurations are done out of the total.
type Progress func(done, total uint64)

// BuildOptions tune Build.
type BuildOptions struct {
	// Workers is the number of goroutines; zero means GOMAXPROCS.
	Workers int
	// Progress, if set, is called from the building goroutine as the work
	// advances (first, in a build that resumes, with the work its
	// checkpoints held).
	Progress Progress
	// Checkpoints, if set, names the build's checkpoints (PartPath): a
	// part file for each seed count, written once it is done, within one
	// every CheckpointEvery (none within if zero), and where the build
	// stops (its context ended). A build given the same name resumes from
	// the parts it finds, so a build stopped or killed goes on where it
	// was; its database is the same, byte for byte. The parts take as
	// much disk as the database: RemoveCheckpoints once it is written. A
	// part that cannot be written is skipped (Saved is told), the build
	// going on.
	Checkpoints     string
	CheckpointEvery time.Duration
	// Resumed, if set, is told the work a build found done in its
	// checkpoints, before Progress is, if it found any.
	Resumed Progress
	// Saved, if set, is told of every checkpoint written: the seeds of
	// its part, the work done, and the error if it could not be written.
	Saved func(seeds int, done uint64, err error)
}

// Supported reports whether databases can be built for rules r: any board of
// the rules library except the early end (KGP), where the stores decide when
// the game ends, so the houses alone do not determine a value.
func Supported(r kalah.Rules) error {
	if err := r.Validate(); err != nil {
		return err
	}
	if r.EarlyEnd {
		return fmt.Errorf("%w: the early end makes values depend on the stores", ErrUnsupported)
	}
	return nil
}

// Size returns the number of entries (bytes of payload) of a database for
// boards of n houses a side and up to k seeds: C(k+2n, 2n).
func Size(n, k int) uint64 {
	return Count(k, 2*n+1)
}

// Build computes the exact value of every configuration of up to k seeds on
// the board under rules r. Configurations of k seeds depend only on those of
// fewer seeds and on those of k seeds with a lower potential (the sum over
// seeds of the distance to the next store), since a sowing that reaches no
// store moves seeds strictly towards it; so each k is computed level by level
// of potential, and each level in parallel.
func Build(ctx context.Context, r kalah.Rules, k int, o BuildOptions) (*DB, error) {
	if err := Supported(r); err != nil {
		return nil, err
	}
	if k < 0 || k > MaxSeeds {
		return nil, fmt.Errorf("%w: %d seeds (want 0 to %d)", ErrUnsupported, k, MaxSeeds)
	}
	if 2*r.Houses+k > maxBinom || Size(r.Houses, k) > maxEntries {
		return nil, fmt.Errorf("%w: a database of %d seeds on %d houses a side is too large", ErrUnsupported, k, r.Houses)
	}
	db := &DB{v: newVariant(r), k: k, off: make([]uint64, k+2)}
	m := 2 * r.Houses
	for j := 0; j <= k; j++ {
		db.off[j+1] = db.off[j] + Count(j, m)
	}
	db.setVals(db.off[k+1])
	workers := o.Workers
	if workers <= 0 {
		workers = cores.N()
	}
	b := &builder{db: db, v: db.v, g: db.v.game(), m: m}
	total := db.off[k+1]
	var done atomic.Uint64
	// Where a build that resumes starts: the first seed count its parts
	// do not hold whole, and the first level of it not done.
	from, fromPot := 0, 0
	var cp *checkpointer
	if o.Checkpoints != "" {
		cp = &checkpointer{db: db, prefix: o.Checkpoints, every: o.CheckpointEvery, last: time.Now(), saved: o.Saved}
		for ; from <= k; from++ {
			levels, n, ok := cp.load(from)
			if !ok {
				break
			}
			done.Add(n)
			if levels <= from*r.Houses {
				fromPot = levels
				break
			}
		}
		if done.Load() > 0 && o.Resumed != nil {
			o.Resumed(done.Load(), total)
		}
		if done.Load() > 0 && o.Progress != nil {
			o.Progress(done.Load(), total)
		}
	}
	for seeds := from; seeds <= k; seeds++ {
		pot := 0
		if seeds == from {
			pot = fromPot
		}
		saved := pot // the levels of this seed count its part holds
		// The work of this seed count: the counts before it are whole.
		own := func() uint64 { return done.Load() - db.off[seeds] }
		for ; pot <= seeds*r.Houses; pot++ {
			before := own()
			if ctx.Err() != nil || !b.level(ctx, seeds, pot, workers, &done) {
				if cp != nil && pot > saved {
					cp.save(seeds, pot, before)
				}
				return nil, ctx.Err()
			}
			if o.Progress != nil {
				o.Progress(done.Load(), total)
			}
			if cp != nil && pot < seeds*r.Houses && cp.due() {
				cp.save(seeds, pot+1, own())
				saved = pot + 1
			}
		}
		if cp != nil {
			cp.save(seeds, seeds*r.Houses+1, own())
		}
	}
	if got := done.Load(); got != total {
		return nil, fmt.Errorf("egdb: internal error: built %d of %d entries", got, total)
	}
	db.crc = checksum(payload(db.vals))
	return db, nil
}

type builder struct {
	db *DB
	v  variant
	g  kboard.Game
	m  int
}

// weight is the distance from house j to the next store.
func (b *builder) weight(j int) int {
	if j < b.v.n {
		return b.v.n - j
	}
	return 2*b.v.n - j
}

// level computes every configuration of k seeds and potential pot; false
// if ctx ended first (some of them left undone).
func (b *builder) level(ctx context.Context, k, pot, workers int, done *atomic.Uint64) bool {
	// Tasks fix the first house (and the second, when there are more than
	// two), so the workers share a level between them.
	type task struct{ c0, c1 int }
	two := b.m > 2
	var tasks []task
	for c0 := 0; c0 <= k; c0++ {
		if !two {
			tasks = append(tasks, task{c0, -1})
			continue
		}
		for c1 := 0; c0+c1 <= k; c1++ {
			if c0*b.weight(0)+c1*b.weight(1) <= pot {
				tasks = append(tasks, task{c0, c1})
			}
		}
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	var stopped atomic.Bool
	for range workers {
		wg.Go(func() {
			w := &worker{b: b, k: k}
			count := uint64(0)
			for {
				t := int(next.Add(1) - 1)
				if t >= len(tasks) {
					break
				}
				if ctx.Err() != nil { // a stop within a level of the largest counts (seconds each)
					stopped.Store(true)
					break
				}
				c0, c1 := tasks[t].c0, tasks[t].c1
				w.set(0, c0)
				r := kboard.Choose(c0, 1) // bar 0 sits after the seeds of house 0
				if !two {
					count += w.fill(1, k-c0, pot-c0*b.weight(0), c0, r)
					continue
				}
				w.set(1, c1)
				r += kboard.Choose(c0+c1+1, 2)
				count += w.fill(2, k-c0-c1, pot-c0*b.weight(0)-c1*b.weight(1), c0+c1, r)
			}
			w.drain()
			done.Add(count)
		})
	}
	wg.Wait()
	return !stopped.Load()
}

// fill enumerates houses j.. with seeds left to place and potential pot
// left to reach; prefix is the seeds in houses before j and r the rank so
// far. It returns the number of configurations computed.
func (w *worker) fill(j, seeds, pot, prefix int, r uint64) uint64 {
	b := w.b
	m, n := b.m, b.v.n
	if j == m-1 {
		if seeds*b.weight(j) != pot {
			return 0
		}
		w.set(j, seeds)
		w.add(b.db.off[w.k] + r)
		return 1
	}
	if j == m-3 && n >= 3 {
		return w.tail3(seeds, pot, prefix, r)
	}
	if j == m-2 && n >= 2 {
		// The last two houses weigh 2 and 1 (with two houses a side or more):
		// c*2 + (seeds-c) = pot.
		c := pot - seeds
		if c < 0 || c > seeds {
			return 0
		}
		w.set(j, c)
		return w.fill(j+1, seeds-c, pot-2*c, prefix+c, r+kboard.Choose(prefix+c+j, j+1))
	}
	// c seeds in house j leave seeds-c for the houses after it, whose
	// weights run from 1 to maxW, every one of them there: the potential
	// left, pot-c*wt, can be made of them if and only if it lies between
	// seeds-c and (seeds-c)*maxW. Those two bounds on c, worked out here,
	// spare the loop the counts that cannot be completed.
	wt := b.weight(j)
	maxW := n - max(0, j+1-n)
	lo, hi := 0, seeds
	if wt > 1 {
		hi = min(hi, floorDiv(pot-seeds, wt-1))
	} else if pot < seeds {
		return 0
	}
	switch d := maxW - wt; {
	case d > 0:
		hi = min(hi, floorDiv(seeds*maxW-pot, d))
	case d < 0:
		lo = -floorDiv(seeds*maxW-pot, -d)
	case pot > seeds*maxW:
		return 0
	}
	var count uint64
	for c := max(lo, 0); c <= hi; c++ {
		w.set(j, c)
		count += w.fill(j+1, seeds-c, pot-c*wt, prefix+c, r+kboard.Choose(prefix+c+j, j+1))
	}
	return count
}

// tail3 enumerates the last three houses (weights 3, 2 and 1, with three
// houses a side or more) in one loop, where fill would recurse twice for
// every configuration: the seeds c of the first fix the other two (c2 + c1
// = seeds - c and 2*c2 + c1 = pot - 3*c), so every c from pot - 2*seeds to
// (pot - seeds)/2 is one configuration.
func (w *worker) tail3(seeds, pot, prefix int, r uint64) uint64 {
	j := w.b.m - 3
	lo, hi := max(0, pot-2*seeds), min(seeds, floorDiv(pot-seeds, 2))
	base := w.b.db.off[w.k] + r
	for c := lo; c <= hi; c++ {
		c2 := pot - seeds - 2*c
		w.set(j, c)
		w.set(j+1, c2)
		w.set(j+2, seeds-c-c2)
		w.add(base + kboard.Choose(prefix+c+j, j+1) + kboard.Choose(prefix+c+c2+j+1, j+2))
	}
	return uint64(max(0, hi-lo+1))
}

// floorDiv is a/b rounded down, for b > 0.
func floorDiv(a, b int) int {
	if a < 0 {
		return -((-a + b - 1) / b)
	}
	return a / b
}

// ahead is how many configurations a worker has sown, their children's
// entries prefetched, before it reads those entries: the cache misses of
// several configurations overlap, not only those of one configuration's
// moves.
const ahead = 8

// worker computes configurations of one level (all independent of each
// other) through a ring of pending ones.
type worker struct {
	b       *builder
	k       int          // seeds of the level
	cur     kboard.Board // the configuration being enumerated (empty stores)
	n, head int          // pending configurations, the oldest's slot
	ring    [ahead]pending
}

// pending is a configuration sown but not yet valued: its moves' gains,
// and the entries they lead to.
type pending struct {
	dst   uint64 // where its value goes
	n     int    // moves
	over  bool   // terminal: its value is val[0]
	val   [16]int
	sign  [16]int8   // +1 extra turn, -1 the opponent's turn, 0 over
	child [17]uint64 // and the value's own index after them
}

// set puts c seeds in house j of the configuration being enumerated, by a
// read-modify-write of the word that holds it: the sowing reads the houses
// as words, and a load of a word into which a byte was just stored cannot
// take it from the store buffer; it waits for the store to leave the core
// (the 17-seed build took 0.955 of its time once the enumeration stored no
// bytes: docs/PERFORMANCE.md).
func (w *worker) set(j, c int) {
	o := j & 24
	x := binary.LittleEndian.Uint64(w.cur.H[o : o+8])
	sh := uint(8*j) & 63
	x = x&^(0xFF<<sh) | uint64(c)<<sh
	binary.LittleEndian.PutUint64(w.cur.H[o:o+8], x)
}

// add sows every move of the configuration being enumerated and prefetches
// their entries; its value is computed ahead configurations later.
func (w *worker) add(dst uint64) {
	if w.n == ahead {
		w.finish()
	}
	b := w.b
	p := &w.ring[(w.head+w.n)%ahead]
	w.n++
	p.dst = dst
	start := &w.cur
	if v, ok := b.g.Terminal(start); ok {
		p.over, p.val[0] = true, v
		// The value's line too: a store that misses holds back the
		// stores after it.
		prefetch.Line(unsafe.Pointer(&b.db.vals[dst]))
		return
	}
	p.over = false
	n := 0
	for i := 0; i < b.g.N; i++ {
		if start.H[i] == 0 {
			continue
		}
		var c kboard.Board
		d, extra, over := b.g.PlayFrom(&c, start, i)
		p.val[n] = d
		switch {
		case over:
			p.sign[n] = 0
			p.child[n] = dst // never read; keeps the prefetch list whole
		default:
			// The stores started empty: what they hold left the houses.
			kk := w.k - int(c.Store[0]+c.Store[1])
			p.child[n] = b.db.off[kk] + Rank(c.H[:b.m])
			p.sign[n] = -1
			if extra {
				p.sign[n] = 1
			}
		}
		n++
	}
	p.n = n
	// The children's entries, and the value's own line (a store that
	// misses holds back the stores after it), in one call.
	p.child[n] = dst
	prefetch.Offsets(unsafe.Pointer(unsafe.SliceData(b.db.vals)), p.child[:n+1])
}

// finish values the oldest pending configuration from its children's
// entries: the best of its moves.
func (w *worker) finish() {
	p := &w.ring[w.head]
	w.head = (w.head + 1) % ahead
	w.n--
	vals := w.b.db.vals
	if p.over {
		vals[p.dst] = int8(p.val[0])
		return
	}
	best := -1 << 30
	for j := 0; j < p.n; j++ {
		v := p.val[j]
		if p.sign[j] != 0 {
			v += int(p.sign[j]) * int(vals[p.child[j]])
		}
		best = max(best, v)
	}
	vals[p.dst] = int8(best)
}

// drain values every pending configuration.
func (w *worker) drain() {
	for w.n > 0 {
		w.finish()
	}
}

// setVals allocates the values of n configurations, in huge pages when
// large: the build's reads of the children and the search's probes fall at
// random over them.
func (db *DB) setVals(n uint64) {
	mem, release := hugemem.Alloc(int(n))
	db.vals = unsafe.Slice((*int8)(unsafe.Pointer(unsafe.SliceData(mem))), n)
	if release != nil {
		db.own(release)
	}
}

// own makes release free the values: Close runs it, or the garbage
// collector once the DB is unreachable, whichever comes first (once).
func (db *DB) own(release func()) {
	once := sync.OnceFunc(release)
	db.release = once
	runtime.AddCleanup(db, func(f func()) { f() }, once)
}
