package engine

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"testing"
	"time"

	"kalah"
	"kalah/egdb"
)

// allRules lists rule variants of n houses and s seeds with every switch
// that changes play.
func allRules(n, s int) []kalah.Rules {
	var out []kalah.Rules
	for _, end := range []kalah.EndRule{kalah.EitherEmpty, kalah.MoverStuck, kalah.MoverEmpty} {
		for _, ec := range []bool{false, true} {
			for _, so := range []bool{false, true} {
				for _, ee := range []bool{false, true} {
					out = append(out, kalah.Rules{Houses: n, Seeds: s, End: end, EmptyCapture: ec, SowOpponentStore: so, EarlyEnd: ee})
				}
			}
		}
	}
	return out
}

// brute is an independent naive minimax with its own sowing over the
// absolute pit layout (South houses 0..n-1, South store n, North houses
// n+1..2n, North store 2n+1): no table, no pruning. It returns the final
// store difference for the side to move minus the current one.
func brute(r *kalah.Rules, pits []int, toMove int) int {
	return bruteMemo(r, pits, toMove, nil)
}

// bruteMemo is brute with an optional memo of whole states (stores
// included), for boards too big to search plainly.
func bruteMemo(r *kalah.Rules, pits []int, toMove int, memo map[string]int) int {
	var key string
	if memo != nil {
		b := make([]byte, 0, len(pits)+1)
		for i, x := range pits {
			if r.EarlyEnd || (i != r.Houses && i != 2*r.Houses+1) {
				b = append(b, byte(x)) // the stores matter only to the early end
			}
		}
		key = string(append(b, byte(toMove)))
		if v, ok := memo[key]; ok {
			return v
		}
	}
	n := r.Houses
	storeOf := func(s int) int { return s*(n+1) + n }
	d0 := pits[storeOf(toMove)] - pits[storeOf(1-toMove)]
	best := -1 << 30
	for h := 0; h < n; h++ {
		from := toMove*(n+1) + h
		if pits[from] == 0 {
			continue
		}
		q := slices.Clone(pits)
		seeds := q[from]
		q[from] = 0
		pos := from
		for seeds > 0 {
			pos = (pos + 1) % (2*n + 2)
			if pos == storeOf(1-toMove) && !r.SowOpponentStore {
				continue
			}
			q[pos]++
			seeds--
		}
		next := 1 - toMove
		if pos == storeOf(toMove) {
			next = toMove
		} else if pos/(n+1) == toMove && pos != storeOf(toMove) && q[pos] == 1 {
			opp := 2*n - pos
			if q[opp] > 0 || r.EmptyCapture {
				q[storeOf(toMove)] += q[opp] + 1
				q[opp], q[pos] = 0, 0
			}
		}
		over := false
		switch r.End {
		case kalah.EitherEmpty:
			over = sideSumOf(q, n, 0) == 0 || sideSumOf(q, n, 1) == 0
		case kalah.MoverStuck:
			over = sideSumOf(q, n, next) == 0
		case kalah.MoverEmpty:
			over = sideSumOf(q, n, toMove) == 0 || sideSumOf(q, n, next) == 0
		}
		total := 0
		for _, x := range q {
			total += x
		}
		if r.EarlyEnd && (2*q[storeOf(0)] > total || 2*q[storeOf(1)] > total) {
			over = true
		}
		var fin int
		if over {
			fin = q[storeOf(toMove)] + sideSumOf(q, n, toMove) - q[storeOf(1-toMove)] - sideSumOf(q, n, 1-toMove)
		} else {
			v := bruteMemo(r, q, next, memo) + q[storeOf(next)] - q[storeOf(1-next)]
			if next == toMove {
				fin = v
			} else {
				fin = -v
			}
		}
		best = max(best, fin-d0)
	}
	if memo != nil {
		memo[key] = best
	}
	return best
}

func sideSumOf(q []int, n, s int) int {
	t := 0
	for i := 0; i < n; i++ {
		t += q[s*(n+1)+i]
	}
	return t
}

func pitsOf(p *kalah.Position) []int {
	n := p.Houses()
	out := make([]int, 2*n+2)
	for i := range out {
		out[i] = p.Pit(i)
	}
	return out
}

// TestSolveMatchesBrute solves every small start position under every rule
// variant and compares with the brute-force minimax.
func TestSolveMatchesBrute(t *testing.T) {
	sizes := [][2]int{{1, 1}, {1, 4}, {2, 1}, {2, 2}, {2, 3}, {3, 1}, {3, 2}, {4, 1}, {3, 3}, {4, 2}, {2, 6}}
	if os.Getenv("KALAH_LONG") != "" {
		sizes = append(sizes, [2]int{4, 3}, [2]int{5, 2})
	}
	for _, sz := range sizes {
		for _, r := range allRules(sz[0], sz[1]) {
			p := r.Start()
			memo := map[string]int{}
			want := bruteMemo(&r, pitsOf(&p), int(p.ToMove()), memo)
			e, err := New(r, Options{TableMB: 1, Threads: 2})
			if err != nil {
				t.Fatal(err)
			}
			res, err := e.Solve(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			if res.Value != want {
				t.Errorf("%s: solve %d, brute force %d", r, res.Value, want)
			}
			checkBest(t, &r, p, res, memo)
		}
	}
}

// checkBest checks that each best move reaches the value and the others
// fall short, and that each move of the principal variation is a best
// move of its position, by brute force.
func checkBest(t *testing.T, r *kalah.Rules, p kalah.Position, res Result, memo map[string]int) {
	t.Helper()
	for _, m := range p.Moves() {
		val := bruteMove(r, p, m, memo)
		if slices.Contains(res.Best, m) != (val == res.Value) {
			t.Errorf("%s %s: move %s has value %d; solve says best %v of value %d", r, p, m, val, res.Best, res.Value)
		}
	}
	if len(res.PV) == 0 || !slices.Contains(res.Best, res.PV[0]) {
		t.Errorf("%s %s: pv %v does not start with a best move %v", r, p, res.PV, res.Best)
	}
	q := p
	for i, m := range res.PV {
		if q.Over(r) {
			t.Fatalf("%s %s: pv %v goes on after the game ends (move %d)", r, p, res.PV, i+1)
		}
		best := -1 << 20
		for _, mm := range q.Moves() {
			best = max(best, bruteMove(r, q, mm, memo))
		}
		if !slices.Contains(q.Moves(), m) || bruteMove(r, q, m, memo) != best {
			t.Fatalf("%s %s: pv %v: move %d (%s) is not a best move of %s", r, p, res.PV, i+1, m, q)
		}
		q.Play(r, int(m))
	}
}

// bruteMove is the value of move m in p for the side to move, by brute
// force: the final store difference it leads to less the present one.
func bruteMove(r *kalah.Rules, p kalah.Position, m kalah.Move, memo map[string]int) int {
	me := p.ToMove()
	q := p
	eff := q.Play(r, int(m))
	fin := diff(&q, me)
	if eff&kalah.End == 0 {
		v := bruteMemo(r, pitsOf(&q), int(q.ToMove()), memo) + diff(&q, q.ToMove())
		if q.ToMove() == me {
			fin = v
		} else {
			fin = -v
		}
	}
	return fin - diff(&p, me)
}

// TestSolveRandomPositions solves positions from random games of bigger
// boards once few seeds are left, with and without a database.
func TestSolveRandomPositions(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, r := range allRules(6, 4) {
		var db *egdb.DB
		if !r.EarlyEnd {
			var err error
			db, err = egdb.Build(context.Background(), r, 5, egdb.BuildOptions{Workers: 1})
			if err != nil {
				t.Fatal(err)
			}
		}
		plain, _ := New(r, Options{TableMB: 1, Threads: 1})
		withDB, err := New(r, Options{TableMB: 1, Threads: 2, DB: db})
		if err != nil {
			t.Fatal(err)
		}
		for game := 0; game < 4; game++ {
			p := r.Start()
			for !p.Over(&r) && p.Seeds(kalah.South)+p.Seeds(kalah.North) > 10 {
				ms := p.Moves()
				p.Play(&r, int(ms[rng.IntN(len(ms))]))
			}
			if p.Over(&r) {
				continue
			}
			memo := map[string]int{}
			want := bruteMemo(&r, pitsOf(&p), int(p.ToMove()), memo)
			for name, e := range map[string]*Engine{"plain": plain, "egdb": withDB} {
				res, err := e.Solve(context.Background(), p)
				if err != nil {
					t.Fatal(err)
				}
				if res.Value != want {
					t.Errorf("%s %s (%s): solve %d, brute force %d", r, p, name, res.Value, want)
				}
				checkBest(t, &r, p, res, memo)
			}
		}
	}
}

// piePosition checks the pie opening, where values are by player.
func TestSolvePie(t *testing.T) {
	for _, r := range []kalah.Rules{{Houses: 2, Seeds: 2, Pie: true}, {Houses: 3, Seeds: 2, Pie: true, EmptyCapture: true}, {Houses: 2, Seeds: 3, Pie: true, End: kalah.MoverEmpty}} {
		p := r.Start()
		want := piePlayer(&r, p) - diff(&p, p.ToMove())
		e, _ := New(r, Options{TableMB: 1})
		res, err := e.Solve(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		if res.Value != want {
			t.Errorf("%s: solve %d, want %d", r, res.Value, want)
		}
	}
}

// piePlayer is the final store difference the player to move can force,
// for whichever side it ends up playing, by plain minimax over positions.
func piePlayer(r *kalah.Rules, p kalah.Position) int {
	if p.Over(r) {
		q := p
		q.Settle(r)
		return diff(&q, p.ToMove())
	}
	best := -1 << 30
	for _, m := range p.Moves() {
		q := p
		var v int
		if m == kalah.Swap {
			q.Swap()
			v = -piePlayer(r, q)
		} else {
			eff := q.Play(r, int(m))
			switch {
			case eff&kalah.End != 0:
				v = diff(&q, p.ToMove())
			case q.ToMove() == p.ToMove():
				v = piePlayer(r, q)
			default:
				v = -piePlayer(r, q)
			}
		}
		best = max(best, v)
	}
	return best
}

func TestAnalyze(t *testing.T) {
	r := kalah.Rules{Houses: 4, Seeds: 2}
	e, _ := New(r, Options{TableMB: 4})
	p := r.Start()
	p.Play(&r, 2)
	res, err := e.Solve(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	vals, err := e.Analyze(context.Background(), p, 0)
	if err != nil {
		t.Fatal(err)
	}
	best := -100
	for _, mv := range vals {
		best = max(best, mv.Value)
		if !mv.Exact {
			t.Errorf("exact analysis gave an estimate: %+v", mv)
		}
	}
	if best != res.Value || len(vals) != len(p.Moves()) {
		t.Fatalf("analysis %+v, solve %+v", vals, res)
	}
	for _, mv := range vals {
		if slices.Contains(res.Best, mv.Move) != (mv.Value == best) {
			t.Errorf("move %s value %d, solve best %v", mv.Move, mv.Value, res.Best)
		}
	}
	timed, err := e.Analyze(context.Background(), p, 200*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if len(timed) != len(vals) {
		t.Fatalf("timed analysis %v", timed)
	}
	for i := range timed {
		if timed[i].Exact && timed[i].Value != vals[i].Value {
			t.Errorf("timed analysis %+v, exact %+v", timed[i], vals[i])
		}
	}
}

func TestSearchAnytime(t *testing.T) {
	r := kalah.Standard()
	e, _ := New(r, Options{TableMB: 16, NoBook: true}) // the start is in the book
	p := r.Start()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := e.Search(ctx, p, 0)
	if err != nil || len(res.Best) != 1 || !p.Legal(res.Best[0]) {
		t.Fatalf("search stopped at once: %+v, %v", res, err)
	}
	start := time.Now()
	res, err = e.Search(context.Background(), p, 100*time.Millisecond)
	if err != nil || !p.Legal(res.Best[0]) || res.Depth < 4 {
		t.Fatalf("timed search: %+v, %v", res, err)
	}
	if el := time.Since(start); el > 300*time.Millisecond {
		t.Errorf("a 100ms search took %v", el)
	}
	t.Logf("100ms: %s", fmt.Sprint(res))
}

// TestClear: a second solve finds the first one's proofs in the table; after
// Clear it searches as on a fresh engine, node for node (one thread).
func TestClear(t *testing.T) {
	r := kalah.Rules{Houses: 5, Seeds: 3}
	e, err := New(r, Options{TableMB: 4, Threads: 1, NoBook: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	first, err := e.Solve(ctx, r.Start())
	if err != nil {
		t.Fatal(err)
	}
	again, err := e.Solve(ctx, r.Start())
	if err != nil {
		t.Fatal(err)
	}
	if again.Nodes >= first.Nodes/2 || again.Value != first.Value {
		t.Fatalf("second solve: %d nodes, value %d; first: %d nodes, value %d", again.Nodes, again.Value, first.Nodes, first.Value)
	}
	e.Clear()
	cleared, err := e.Solve(ctx, r.Start())
	if err != nil {
		t.Fatal(err)
	}
	if cleared.Nodes != first.Nodes || cleared.Value != first.Value {
		t.Errorf("after Clear: %d nodes, value %d; fresh: %d nodes, value %d", cleared.Nodes, cleared.Value, first.Nodes, first.Value)
	}
}

// TestAllAheadSameSearch: sowing the rest of a node's children once the
// first fails to cut only starts their memory reads early; the search, node
// for node, is the same (one thread).
func TestAllAheadSameSearch(t *testing.T) {
	r := kalah.Rules{Houses: 5, Seeds: 3}
	var nodes [2]uint64
	var values [2]int
	for i, on := range []bool{false, true} {
		tune := DefaultTuning()
		tune.AllAhead = on
		e, err := New(r, Options{TableMB: 4, Threads: 1, NoBook: true, Tuning: &tune})
		if err != nil {
			t.Fatal(err)
		}
		res, err := e.Solve(context.Background(), r.Start())
		if err != nil {
			t.Fatal(err)
		}
		nodes[i], values[i] = res.Nodes, res.Value
	}
	if nodes[0] != nodes[1] || values[0] != values[1] {
		t.Errorf("without allAhead %d nodes, value %+d; with it %d nodes, value %+d", nodes[0], values[0], nodes[1], values[1])
	}
}

// TestProgress checks the reports of a solve: within its passes (each
// testing a bound inside the known range) and after them, the range
// narrowing to the value.
func TestProgress(t *testing.T) {
	r := kalah.Standard()
	r.Houses, r.Seeds = 4, 3
	for _, threads := range []int{1, 2} {
		var got []Progress
		e, err := New(r, Options{TableMB: 1, Threads: threads, NoBook: true, ProgressEvery: 1 << 10, Progress: func(p Progress) { got = append(got, p) }})
		if err != nil {
			t.Fatal(err)
		}
		res, err := e.Solve(context.Background(), r.Start())
		if err != nil {
			t.Fatal(err)
		}
		running := 0
		for i, p := range got {
			if p.Lo > p.Hi || (p.Running && (p.Testing <= p.Lo || p.Testing > p.Hi)) {
				t.Errorf("%d threads, report %d: %+v", threads, i, p)
			}
			if i > 0 && p.Nodes < got[i-1].Nodes {
				t.Errorf("%d threads, report %d: nodes went back: %+v after %+v", threads, i, p, got[i-1])
			}
			if p.Running {
				running++
			}
		}
		last := got[len(got)-1]
		if last.Running || last.Depth != 0 || last.Lo != res.Value || last.Hi != res.Value {
			t.Errorf("%d threads: last report %+v; value %d", threads, last, res.Value)
		}
		// On one thread the count of reports is fixed; with two the main
		// thread's share of the nodes varies.
		if threads == 1 && running == 0 {
			t.Errorf("no report within a pass in %d nodes", res.Nodes)
		}
		// Every thread's nodes, up to the last pass: most of the solve's.
		if last.Nodes > res.Nodes || last.Nodes < res.Nodes/2 {
			t.Errorf("%d threads: last report %d nodes; the solve %d", threads, last.Nodes, res.Nodes)
		}
	}
}

// TestBestMatchesBrute: Best's value is the brute force's and its move
// reaches it, on small boards of every rule switch, one and two threads.
func TestBestMatchesBrute(t *testing.T) {
	for _, sz := range [][2]int{{2, 3}, {3, 2}, {2, 4}} {
		for _, r := range allRules(sz[0], sz[1]) {
			if r.Pie {
				continue // Best of a pie position is Search's estimate; Solve handles it
			}
			p := r.Start()
			memo := map[string]int{}
			want := bruteMemo(&r, pitsOf(&p), int(p.ToMove()), memo)
			for threads := 1; threads <= 2; threads++ {
				e, err := New(r, Options{TableMB: 1, Threads: threads, NoBook: true})
				if err != nil {
					t.Fatal(err)
				}
				res, err := e.Best(context.Background(), p)
				if err != nil {
					t.Fatal(err)
				}
				if !res.Exact || res.Value != want || len(res.Best) != 1 || bruteMove(&r, p, res.Best[0], memo) != want {
					t.Errorf("%s, %d threads: best %+v; brute force %d", r, threads, res, want)
				}
			}
		}
	}
}

// TestNodeLimit: a call stops at its node limit with ErrNodeLimit, after
// as many nodes on one thread every time, and a limit above the search's
// nodes changes nothing.
func TestNodeLimit(t *testing.T) {
	r := kalah.Standard()
	r.Houses, r.Seeds = 5, 3
	free, err := New(r, Options{TableMB: 4, Threads: 1, NoBook: true})
	if err != nil {
		t.Fatal(err)
	}
	want, err := free.Best(context.Background(), r.Start())
	if err != nil {
		t.Fatal(err)
	}
	if want.Nodes < 1<<15 {
		t.Fatalf("the test needs a search of more than %d nodes: %d", 1<<15, want.Nodes)
	}
	for _, limit := range []uint64{want.Nodes / 4, want.Nodes + 4096} {
		e, err := New(r, Options{TableMB: 4, Threads: 1, NoBook: true, NodeLimit: limit})
		if err != nil {
			t.Fatal(err)
		}
		res, err := e.Best(context.Background(), r.Start())
		if limit < want.Nodes {
			if !errors.Is(err, ErrNodeLimit) {
				t.Errorf("limit %d of %d nodes: %+v, %v; want ErrNodeLimit", limit, want.Nodes, res, err)
			}
			if _, err := e.Solve(context.Background(), r.Start()); !errors.Is(err, ErrNodeLimit) {
				t.Errorf("Solve with limit %d: %v; want ErrNodeLimit", limit, err)
			}
			continue
		}
		if err != nil || res.Value != want.Value || res.Nodes != want.Nodes {
			t.Errorf("limit %d above the %d nodes: %+v, %v", limit, want.Nodes, res, err)
		}
	}
}

// TestAnalyzeGameMatchesBrute analyses random games of small boards under
// every rule switch (but the pie) and checks every position's value, its
// best move and the played move's value by brute force, and that a second
// analysis, on two threads, says the same.
func TestAnalyzeGameMatchesBrute(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, sz := range [][2]int{{3, 3}, {4, 2}, {2, 5}} {
		for _, r := range allRules(sz[0], sz[1]) {
			if r.Pie {
				continue
			}
			memo := map[string]int{}
			for game := 0; game < 3; game++ {
				p := r.Start()
				start := p
				var moves []kalah.Move
				for !p.Over(&r) {
					ms := p.Moves()
					m := ms[rng.IntN(len(ms))]
					moves = append(moves, m)
					p.Play(&r, int(m))
				}
				var runs [2][]PlyValue
				for i, threads := range []int{1, 2} {
					e, err := New(r, Options{TableMB: 1, Threads: threads, NoBook: true})
					if err != nil {
						t.Fatal(err)
					}
					if runs[i], err = e.AnalyzeGame(context.Background(), start, moves, 0); err != nil {
						t.Fatal(err)
					}
				}
				q := start
				for i, v := range runs[0] {
					w := runs[1][i]
					if v.Value != w.Value || v.Best != w.Best || v.PlayedValue != w.PlayedValue || v.Exact != w.Exact {
						t.Fatalf("%s ply %d: one thread %+v, two %+v", r, i, v, w)
					}
					if q.Over(&r) {
						if i != len(moves) || v.Value != 0 || !v.Exact {
							t.Fatalf("%s ply %d (over): %+v", r, i, v)
						}
						break
					}
					want := bruteMemo(&r, pitsOf(&q), int(q.ToMove()), memo)
					if !v.Exact || v.Value != want || bruteMove(&r, q, v.Best, memo) != want {
						t.Fatalf("%s %s (ply %d): %+v; brute force %d", r, q, i, v, want)
					}
					if pv := bruteMove(&r, q, moves[i], memo); v.Played != moves[i] || v.PlayedValue != pv {
						t.Fatalf("%s %s (ply %d): played %s worth %d, analysis %+v", r, q, i, moves[i], pv, v)
					}
					if v.PlayedValue == v.Value && v.Best != v.Played {
						t.Fatalf("%s %s (ply %d): the played move is best, the analysis names %s", r, q, i, v.Best)
					}
					q.Play(&r, int(moves[i]))
				}
			}
		}
	}
}

// TestAnalyzeGameEstimates: a game too large to prove within the limit
// gets estimates, marked so, and the last positions, small enough, exact.
func TestAnalyzeGameEstimates(t *testing.T) {
	r := kalah.Rules{Houses: 6, Seeds: 6}
	e, err := New(r, Options{TableMB: 16, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	moves := []kalah.Move{1, 2, 3}
	vals, err := e.AnalyzeGame(context.Background(), r.Start(), moves, 20*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if len(vals) != len(moves)+1 {
		t.Fatalf("%d values for %d moves", len(vals), len(moves))
	}
	for i, v := range vals {
		if v.Exact || v.Depth == 0 || v.Best == kalah.NoMove {
			t.Errorf("ply %d of Kalah(6,6): %+v, want an estimate", i, v)
		}
	}
	if _, err := e.AnalyzeGame(context.Background(), r.Start(), []kalah.Move{1, 1}, 0); err == nil {
		t.Error("an illegal move was analysed")
	}
}
