package engine

import (
	"context"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"kalah"
	"kalah/book"
	"kalah/player"
)

// perfectReplyNodes bounds the search of one reply of the perfect player
// where no book holds the position, with the database its strategy books
// were built for (PerfectDBSeeds): the books leave it positions its search
// answers within PerfectNodes on one thread with a fresh table; its table,
// warm from the game's moves before, may shift a count a little either way.
const perfectReplyNodes = 2 * PerfectNodes

// perfectReplyTime is the promise: a reply within 100 ms once the books
// and the endgame database exist.
const perfectReplyTime = 100 * time.Millisecond

// smallDBSeeds is the endgame database of the default run, built in memory
// in a few seconds where KALAH_EGDB_DIR holds no larger one; and
// smallDBReplyNodes bounds a reply of Kalah(6,3) with it. The counts repeat
// run to run (one thread, the opponents seeded, searches that end long
// before the player's time): the most measured was 1,233,427 nodes, at the
// fourth ply of Kalah(6,3) with empty capture, which has no book (the
// standard rules' most: 421,342). Solving the start of Kalah(6,3) takes
// 280,000 nodes, so the bound catches a search gone wrong (no database, a
// table that does not keep its entries), not a missed book: the books are
// checked apart (every position a book holds is answered from it).
const (
	smallDBSeeds      = 16
	smallDBReplyNodes = 2_000_000
)

// replies collects the perfect player's replies.
type replies struct {
	n, book     int
	times       []time.Duration // of every reply, from a book or not
	searched    []time.Duration // of the replies searched
	maxNodes    uint64
	maxNodesPos string
}

func (s *replies) String() string {
	return fmt.Sprintf("%d replies, %d from the books; every reply: %s; the %d searched: %s; most nodes %d (%s)",
		s.n, s.book, quantiles(s.times), len(s.searched), quantiles(s.searched), s.maxNodes, s.maxNodesPos)
}

// quantiles sums durations up: median, 99th percentile, max and mean.
func quantiles(ds []time.Duration) string {
	if len(ds) == 0 {
		return "none"
	}
	ts := slices.Clone(ds)
	slices.Sort(ts)
	var sum time.Duration
	for _, d := range ts {
		sum += d
	}
	q := func(f float64) time.Duration { return ts[int(f*float64(len(ts)-1)+0.5)].Round(time.Microsecond) }
	return fmt.Sprintf("median %v, 99th percentile %v, max %v, mean %v", q(0.5), q(0.99), q(1), (sum / time.Duration(len(ts))).Round(time.Microsecond))
}

// TestPerfectFromOpenings is the perfect player's promise: against random
// and greedy, from every opening of two plies (both moves forced), on
// either side, every move it plays is optimal, as the solver (an engine of
// its own, searching without books) finds, and every reply comes from a
// book or from a short search.
//
// By default it plays Kalah(6,3), standard and with empty capture (every
// opening: 2 x 2 x 2 x 35 games, 43 s on the shared 2-core machine), with
// KALAH_EGDB_DIR's largest database or one of smallDBSeeds built in
// memory, each search within smallDBReplyNodes: a fresh machine has
// neither the 24-seed database nor the time for Kalah(6,4)'s solver checks.
//
// KALAH_PERFECT_ALL=1 plays the test: Kalah(6,4), standard and with
// empty capture (and Kalah(6,3) again), every opening, with the databases
// the books were built for (PerfectDBSeeds: KALAH_EGDB_DIR's, or built,
// minutes each), each search within perfectReplyNodes and each reply within
// perfectReplyTime, and logs the reply times; docs/PERFORMANCE.md records
// the run. Run it on a quiet machine. A Kalah(6,4) variant without its
// embedded strategy book is skipped: its replies reach seconds
// (book/data/README.md says how to build it).
func TestPerfectFromOpenings(t *testing.T) {
	all := os.Getenv("KALAH_PERFECT_ALL") != ""
	seeds := []int{3}
	if all {
		seeds = []int{3, 4}
	}
	for _, s := range seeds {
		for _, ecap := range []bool{false, true} {
			r := kalah.Standard()
			r.Seeds, r.EmptyCapture = s, ecap
			r = r.Canonical()
			name := fmt.Sprintf("Kalah(6,%d)", s)
			if ecap {
				name += "-empty-capture"
			}
			t.Run(name, func(t *testing.T) {
				k, budget := smallDBSeeds, uint64(smallDBReplyNodes)
				if all {
					k, budget = PerfectDBSeeds, perfectReplyNodes
					if s == 4 && !book.HasStrategy(r) {
						t.Skipf("no strategy book of %s is embedded: its replies are not bounded (book/data/README.md)", name)
					}
				}
				perfectFrom(t, r, kalah.Openings(r, 2), k, budget, all)
			})
		}
	}
}

// perfectFrom plays the games of TestPerfectFromOpenings for rules r, with
// an endgame database of at least k seeds, each search within budget nodes
// and, if timed, each reply within perfectReplyTime.
func perfectFrom(t *testing.T, r kalah.Rules, opens [][]kalah.Move, k int, budget uint64, timed bool) {
	dir, db := testDB(t, r, k)
	t.Cleanup(func() { db.Close() }) // loaded outside the Go heap: 1.25 GB with 24 seeds
	t.Setenv("KALAH_EGDB_DIR", dir)  // where the perfect player finds it
	solver, err := New(r, Options{TableMB: 256, Threads: 2, DB: db, NoBook: true})
	if err != nil {
		t.Fatal(err)
	}
	var stats replies
	start := time.Now()
	games := 0
	for _, opp := range []string{"random", "greedy"} {
		for i, open := range opens {
			for _, side := range []kalah.Side{kalah.South, kalah.North} {
				games++
				o := player.Options{Rules: r, Seed: uint64(i)}
				perfect, err := player.New("perfect", o)
				if err != nil {
					t.Fatal(err)
				}
				other, err := player.New(opp, o)
				if err != nil {
					t.Fatal(err)
				}
				g, err := kalah.NewGame(r)
				if err != nil {
					t.Fatal(err)
				}
				for _, m := range open {
					if _, err := g.Play(m); err != nil {
						t.Fatal(err)
					}
				}
				for !g.Over() {
					p := g.Position()
					pl := other
					if p.ToMove() == side {
						pl = perfect
					}
					t0 := time.Now()
					m, err := pl.Move(context.Background(), g, player.Clock{})
					took := time.Since(t0)
					if err != nil {
						t.Fatal(err)
					}
					if pl == perfect {
						rep := perfect.(player.Reporter).LastReport()
						stats.n++
						stats.times = append(stats.times, took)
						if rep.Book {
							stats.book++
						} else {
							stats.searched = append(stats.searched, took)
							if rep.Nodes > stats.maxNodes {
								stats.maxNodes, stats.maxNodesPos = rep.Nodes, p.String()
							}
						}
						res, err := solver.Solve(context.Background(), p)
						if err != nil {
							t.Fatal(err)
						}
						if !slices.Contains(res.Best, m) {
							t.Errorf("opening %v, perfect %s against %s: at %s it played %s; optimal %v (value %+d)", open, side, opp, p, m, res.Best, res.Value)
						}
						if _, inBook := lookupBooks(book.For(r), &p); inBook && !rep.Book {
							t.Errorf("opening %v, perfect %s against %s: at %s it searched (%d nodes) where a book holds the position", open, side, opp, p, rep.Nodes)
						}
						if !rep.Book && rep.Nodes > budget {
							t.Errorf("opening %v, perfect %s against %s: the reply at %s searched %d nodes (at most %d)", open, side, opp, p, rep.Nodes, budget)
						}
						if timed && took > perfectReplyTime {
							t.Errorf("opening %v, perfect %s against %s: the reply at %s took %v", open, side, opp, p, took)
						}
					}
					if _, err := g.Play(m); err != nil {
						t.Fatal(err)
					}
				}
				if timed { // the long run: say how far it is
					t.Logf("game %d of %d (opening %v, perfect %s against %s) done, %v", games, 4*len(opens), open, side, opp, time.Since(start).Round(time.Second))
				}
			}
		}
	}
	t.Logf("%s, %d openings, %d games, the %d-seed database: %s (%v in all with the checks)",
		r, len(opens), games, db.Seeds(), &stats, time.Since(start).Round(time.Second))
}
