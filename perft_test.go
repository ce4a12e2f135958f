package kalah

import (
	"math/bits"
	"os"
	"testing"
	"unsafe"
)

// naive is an independent, deliberately plain implementation of the rules
// for checking Perft: its own board and sowing, no Position. Pits are 0..n-1
// South's houses, n South's store, n+1..2n North's houses, 2n+1 North's
// store; side 0 is South.
type naive struct {
	r     Rules
	board []int
	turn  int
	plies int  // sowings so far, for the pie rule's first move
	swap  bool // the pie rule's swap may be played now
}

func newNaive(r Rules) *naive {
	g := &naive{r: r, board: make([]int, 2*r.Houses+2), turn: int(r.First)}
	for i := range g.board {
		if i != r.Houses && i != 2*r.Houses+1 {
			g.board[i] = r.Seeds
		}
	}
	return g
}

func (g *naive) clone() *naive {
	c := *g
	c.board = append([]int(nil), g.board...)
	return &c
}

func (g *naive) store(side int) int { return side*(g.r.Houses+1) + g.r.Houses }

func (g *naive) housesOf(side int) int {
	t := 0
	for h := 0; h < g.r.Houses; h++ {
		t += g.board[side*(g.r.Houses+1)+h]
	}
	return t
}

// moves lists the legal moves: houses 1..n with seeds, and 0 for a swap.
func (g *naive) moves() []int {
	var ms []int
	for h := 1; h <= g.r.Houses; h++ {
		if g.board[g.turn*(g.r.Houses+1)+h-1] > 0 {
			ms = append(ms, h)
		}
	}
	if g.swap {
		ms = append(ms, 0)
	}
	return ms
}

// play makes move m and reports whether the mover moves again and whether
// the game ended.
func (g *naive) play(m int) (again, over bool) {
	if m == 0 { // the swap: board and side to move stay, players exchange
		g.swap = false
		return false, false
	}
	n := g.r.Houses
	me := g.turn
	pos := me*(n+1) + m - 1
	hand := g.board[pos]
	g.board[pos] = 0
	for hand > 0 {
		pos = (pos + 1) % len(g.board)
		if pos == g.store(1-me) && !g.r.SowOpponentStore {
			continue
		}
		g.board[pos]++
		hand--
	}
	g.swap = g.r.Pie && g.plies == 0
	first := g.r.Pie && g.plies == 0
	g.plies++
	ownHouse := pos >= me*(n+1) && pos < g.store(me)
	switch {
	case pos == g.store(me) && !first:
		again = true
	case ownHouse && g.board[pos] == 1:
		across := 2*n - pos
		if g.board[across] > 0 || g.r.EmptyCapture {
			g.board[g.store(me)] += g.board[across] + 1
			g.board[across], g.board[pos] = 0, 0
		}
	}
	if !again {
		g.turn = 1 - me
	}
	switch g.r.End {
	case EitherEmpty:
		over = g.housesOf(0) == 0 || g.housesOf(1) == 0
	case MoverStuck:
		over = g.housesOf(g.turn) == 0
	case MoverEmpty:
		over = g.housesOf(me) == 0 || g.housesOf(g.turn) == 0
	}
	if g.r.EarlyEnd {
		all := 0
		for _, v := range g.board {
			all += v
		}
		if 2*g.board[g.store(0)] > all || 2*g.board[g.store(1)] > all {
			over = true
		}
	}
	return again, over
}

func naivePerft(g *naive, depth int) uint64 {
	if depth == 0 {
		return 1
	}
	var t uint64
	for _, m := range g.moves() {
		c := g.clone()
		_, over := c.play(m)
		if !over || depth == 1 {
			t += naivePerft(c, depth-1)
		}
	}
	return t
}

func naiveTurns(g *naive, depth int) uint64 {
	if depth == 0 {
		return 1
	}
	var t uint64
	for _, m := range g.moves() {
		c := g.clone()
		again, over := c.play(m)
		switch {
		case over:
			if depth == 1 {
				t++
			}
		case again:
			t += naiveTurns(c, depth)
		default:
			t += naiveTurns(c, depth-1)
		}
	}
	return t
}

// perftRules are the rule sets the perft table covers: presets, and custom
// sets for the switches the presets leave alone at shallow depth.
var perftRules = map[string]Rules{}

func init() {
	for _, name := range []string{"kalah", "dec1961", "gamelink", "egyptian", "manchester", "kgp", "ludii", "thesis"} {
		r, err := PresetRules(name)
		if err != nil {
			panic(err)
		}
		perftRules[name] = r
	}
	perftRules["north-first"] = Rules{Houses: 6, Seeds: 4, First: North}
	perftRules["small-mover-stuck"] = Rules{Houses: 4, Seeds: 2, End: MoverStuck}
	perftRules["small-either-empty"] = Rules{Houses: 4, Seeds: 2}
	perftRules["laps-sow-opponent-store"] = Rules{Houses: 4, Seeds: 13, SowOpponentStore: true}
	perftRules["laps"] = Rules{Houses: 4, Seeds: 13}
	perftRules["small-early-end-pie"] = Rules{Houses: 3, Seeds: 3, EarlyEnd: true, Pie: true, EmptyCapture: true}
}

// perftTable holds Perft (one sowing a ply) at depths 1..9 from the start.
// Depths up to naiveDepth are confirmed by the naive implementation on every
// run; the deeper ones were computed by it once (see
// TestPerftDeepAgainstNaive) and agree with PerftPlayed.
var perftTable = map[string][9]uint64{
	"dec1961":                 {6, 35, 182, 904, 4243, 19418, 87103, 387726, 1715619},
	"egyptian":                {6, 35, 185, 942, 4685, 23169, 113959, 559885, 2743126},
	"gamelink":                {6, 35, 182, 904, 4243, 19418, 87103, 387726, 1715622},
	"kalah":                   {6, 35, 185, 942, 4690, 23233, 114430, 563055, 2763490},
	"kgp":                     {8, 63, 469, 3543, 26770, 200755, 1513247, 11284493, 84354870},
	"laps":                    {4, 16, 64, 251, 976, 3804, 14632, 55889, 212629},
	"laps-sow-opponent-store": {4, 16, 64, 252, 983, 3805, 14701, 55953, 211171},
	"ludii":                   {6, 35, 185, 942, 4690, 23233, 114430, 563055, 2763490},
	"manchester":              {7, 56, 364, 2388, 15653, 101884, 664602, 4287250, 27648341},
	"north-first":             {6, 35, 185, 942, 4690, 23233, 114430, 563055, 2763490},
	"small-early-end-pie":     {3, 12, 30, 76, 191, 446, 991, 2058, 4093},
	"small-either-empty":      {4, 15, 48, 141, 374, 933, 2342, 5639, 13264},
	"small-mover-stuck":       {4, 15, 48, 141, 374, 942, 2384, 5796, 13878},
	"thesis":                  {6, 35, 190, 1056, 5882, 32243, 177827, 962153, 5197521},
}

// turnsTable holds PerftTurns (one turn a ply) at depths 1..6.
var turnsTable = map[string][6]uint64{
	"dec1961":                 {10, 106, 818, 6834, 61241, 676098},
	"egyptian":                {10, 116, 1022, 9682, 125678, 1088432},
	"gamelink":                {10, 106, 818, 6834, 61283, 674462},
	"kalah":                   {10, 116, 1022, 9682, 125843, 1090937},
	"kgp":                     {14, 112, 839, 6529, 55948, 483029},
	"laps":                    {7, 28, 230, 1656, 10021, 56445},
	"laps-sow-opponent-store": {12, 53, 263, 1730, 10252, 61715},
	"ludii":                   {10, 116, 1022, 9682, 125843, 1090937},
	"manchester":              {7, 61, 405, 2753, 20100, 151674},
	"north-first":             {10, 116, 1022, 9682, 125843, 1090937},
	"small-early-end-pie":     {3, 13, 35, 95, 267, 716},
	"small-either-empty":      {6, 38, 150, 523, 1534, 4911},
	"small-mover-stuck":       {6, 38, 150, 526, 1643, 5291},
	"thesis":                  {10, 60, 329, 1907, 12441, 80209},
}

const naiveDepth = 6

func TestPerftTable(t *testing.T) {
	for name, want := range perftTable {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := perftRules[name]
			for d := 1; d <= 9; d++ {
				if got := Perft(&r, r.Start(), d); got != want[d-1] {
					t.Errorf("Perft(%d) = %d, want %d", d, got, want[d-1])
				}
			}
			for d := 1; d <= 6; d++ {
				if got := PerftTurns(&r, r.Start(), d); got != turnsTable[name][d-1] {
					t.Errorf("PerftTurns(%d) = %d, want %d", d, got, turnsTable[name][d-1])
				}
			}
		})
	}
}

// TestPerftAgainstNaive confirms the table at shallow depths with the
// naive implementation, and the bulk count with PerftPlayed.
func TestPerftAgainstNaive(t *testing.T) {
	for name, want := range perftTable {
		r := perftRules[name]
		for d := 1; d <= naiveDepth; d++ {
			if got := naivePerft(newNaive(r), d); got != want[d-1] {
				t.Errorf("%s: naive perft(%d) = %d, the table says %d", name, d, got, want[d-1])
			}
			if got := PerftPlayed(&r, r.Start(), d); got != want[d-1] {
				t.Errorf("%s: PerftPlayed(%d) = %d, the table says %d", name, d, got, want[d-1])
			}
		}
		for d := 1; d <= 4; d++ {
			if got := naiveTurns(newNaive(r), d); got != turnsTable[name][d-1] {
				t.Errorf("%s: naive turns(%d) = %d, the table says %d", name, d, got, turnsTable[name][d-1])
			}
		}
	}
}

// TestPerftDeepAgainstNaive runs the naive implementation to the table's
// full depth (minutes; KALAH_LONG=1).
func TestPerftDeepAgainstNaive(t *testing.T) {
	if os.Getenv("KALAH_LONG") == "" {
		t.Skip("set KALAH_LONG=1 to run the naive perft to depth 9")
	}
	for name, want := range perftTable {
		r := perftRules[name]
		for d := naiveDepth + 1; d <= 9; d++ {
			if got := naivePerft(newNaive(r), d); got != want[d-1] {
				t.Errorf("%s: naive perft(%d) = %d, the table says %d", name, d, got, want[d-1])
			}
		}
		for d := 5; d <= 6; d++ {
			if got := naiveTurns(newNaive(r), d); got != turnsTable[name][d-1] {
				t.Errorf("%s: naive turns(%d) = %d, the table says %d", name, d, got, turnsTable[name][d-1])
			}
		}
	}
}

// TestPerftEdges covers depth 0, a finished position, and agreement of the
// bulk count with played leaves from a mid-game position.
func TestPerftEdges(t *testing.T) {
	r := Standard()
	if got := Perft(&r, r.Start(), 0); got != 1 {
		t.Errorf("Perft(0) = %d, want 1", got)
	}
	done, err := ParsePosition("0,0,0,0,0,0/0,0,0,0,0,0 20-28 S")
	if err != nil {
		t.Fatal(err)
	}
	if got := Perft(&r, done, 3); got != 0 {
		t.Errorf("Perft of a finished game = %d, want 0", got)
	}
	if got := PerftTurns(&r, done, 2); got != 0 {
		t.Errorf("PerftTurns of a finished game = %d, want 0", got)
	}
	mid, err := ParsePosition("0,1,0,2,0,9/3,0,1,0,0,13 10-9 S")
	if err != nil {
		t.Fatal(err)
	}
	for d := 1; d <= 7; d++ {
		if a, b := Perft(&r, mid, d), PerftPlayed(&r, mid, d); a != b {
			t.Errorf("mid-game depth %d: bulk %d, played %d", d, a, b)
		}
	}
}

// TestPlayDoesNotAllocate keeps the hot path free of allocation and the
// position small enough to copy cheaply.
func TestPlayDoesNotAllocate(t *testing.T) {
	r := mustPreset(t, "gamelink")
	start := mustPos(t, "13,1,2,3,4,5/6,0,8,0,2,1 3-4 S")
	var sink Effect
	allocs := testing.AllocsPerRun(1000, func() {
		p := start
		for p.Mask() != 0 && sink&End == 0 {
			sink = p.Play(&r, bits.TrailingZeros32(p.Mask())+1)
		}
		sink = 0
	})
	if allocs != 0 {
		t.Errorf("Play allocates %.1f times a game", allocs)
	}
	if size := unsafe.Sizeof(Position{}); size > 80 {
		t.Errorf("Position is %d bytes", size)
	}
	if n := testing.AllocsPerRun(10, func() { Perft(&r, r.Start(), 5) }); n != 0 {
		t.Errorf("Perft allocates %.1f times", n)
	}
}
