package kalah

import (
	"fmt"
	"math/bits"
	"strconv"
	"strings"
)

const maxPits = 2*MaxHouses + 2

// Phase tracks the opening under the pie rule. Without the pie rule every
// position is in PhasePlay.
type Phase uint8

// The phases.
const (
	// PhasePlay is ordinary play.
	PhasePlay Phase = iota
	// PhaseFirst: no move has been made; the first move earns no extra turn.
	PhaseFirst
	// PhaseSwap: the second player, to move for the first time, may swap.
	PhaseSwap
)

// Effect describes what a sowing did, as a set of flags.
type Effect uint8

// The effects of a sowing.
const (
	Extra   Effect = 1 << iota // the last seed fell in the mover's store: the mover moves again
	Capture                    // the last seed captured
	End                        // the game is over
)

// Position is a board, the side to move and the opening phase: a small value
// that copies cheaply and changes without allocating. Pits are laid out in
// sowing order: South's houses from South's left (index 0 to n-1), South's
// store (n), North's houses from North's left (n+1 to 2n), North's store
// (2n+1). North's house i faces South's house n+1-i.
//
// The zero Position is empty and has no houses; make one with Rules.Start,
// NewPosition or ParsePosition.
type Position struct {
	pits   [maxPits]uint16
	seeds  [2]uint16 // seeds in each side's houses, kept in step with pits
	n      uint8
	toMove Side
	phase  Phase
}

// Start returns the starting position of the rules. The rules must be valid.
func (r Rules) Start() Position {
	var p Position
	if r.Validate() != nil {
		return p
	}
	p.n = uint8(r.Houses)
	for i := 0; i < r.Houses; i++ {
		p.pits[i] = uint16(r.Seeds)
		p.pits[r.Houses+1+i] = uint16(r.Seeds)
	}
	p.seeds[South] = uint16(r.Houses * r.Seeds)
	p.seeds[North] = p.seeds[South]
	p.toMove = r.First
	if r.Pie {
		p.phase = PhaseFirst
	}
	return p
}

// NewPosition builds a position from each side's houses, counted from that
// side's left, the two stores and the side to move.
func NewPosition(south, north []int, southStore, northStore int, toMove Side) (Position, error) {
	var p Position
	n := len(south)
	if n < 1 || n > MaxHouses || len(north) != n {
		return p, fmt.Errorf("%w: %d and %d houses (want the same number on each side, 1 to %d)", ErrBadPosition, len(south), len(north), MaxHouses)
	}
	if toMove > North {
		return p, fmt.Errorf("%w: side %d", ErrBadPosition, toMove)
	}
	p.n = uint8(n)
	p.toMove = toMove
	total := 0
	put := func(i, v int) error {
		if v < 0 || v > 0xffff {
			return fmt.Errorf("%w: %d seeds in a pit", ErrBadPosition, v)
		}
		total += v
		p.pits[i] = uint16(v)
		return nil
	}
	for i := range n {
		if err := put(i, south[i]); err != nil {
			return Position{}, err
		}
		if err := put(n+1+i, north[i]); err != nil {
			return Position{}, err
		}
	}
	if err := put(n, southStore); err != nil {
		return Position{}, err
	}
	if err := put(2*n+1, northStore); err != nil {
		return Position{}, err
	}
	if total > 0xffff {
		return Position{}, fmt.Errorf("%w: %d seeds in all (at most 65535)", ErrBadPosition, total)
	}
	p.recount()
	return p, nil
}

// Houses returns the number of houses a side.
func (p *Position) Houses() int { return int(p.n) }

// ToMove returns the side to move.
func (p *Position) ToMove() Side { return p.toMove }

// Phase returns the opening phase (always PhasePlay without the pie rule).
func (p *Position) Phase() Phase { return p.phase }

// Store returns the seeds in a side's store.
func (p *Position) Store(s Side) int { return int(p.pits[int(s)*(int(p.n)+1)+int(p.n)]) }

// House returns the seeds in a side's house h, counted 1..n from that
// side's left.
func (p *Position) House(s Side, h int) int { return int(p.pits[int(s)*(int(p.n)+1)+h-1]) }

// Pit returns the seeds in pit i of the sowing-order layout (0..2n+1).
func (p *Position) Pit(i int) int { return int(p.pits[i]) }

// Seeds returns the seeds in a side's houses, its store excluded.
func (p *Position) Seeds(s Side) int { return int(p.seeds[s&1]) }

// recount sets the per-side counts from the pits.
func (p *Position) recount() {
	n := int(p.n)
	for s := range 2 {
		base := s * (n + 1)
		t := uint16(0)
		for _, v := range p.pits[base : base+n] {
			t += v
		}
		p.seeds[s] = t
	}
}

// Total returns every seed on the board and in the stores.
func (p *Position) Total() int {
	t := 0
	for _, v := range p.pits[:2*int(p.n)+2] {
		t += int(v)
	}
	return t
}

// Mask returns the mover's legal houses as a bit set: bit h-1 for house h.
func (p *Position) Mask() uint32 {
	base := int(p.toMove) * (int(p.n) + 1)
	var m uint32
	for i, v := range p.pits[base : base+int(p.n)] {
		// (v + 0xffff) >> 16 is 1 for a non-empty house, 0 for an empty one:
		// no branch to mispredict.
		m |= (uint32(v) + 0xffff) >> 16 << i
	}
	return m
}

// CanSwap reports whether the mover may swap sides now (pie rule).
func (p *Position) CanSwap() bool { return p.phase == PhaseSwap }

// Legal reports whether m is a legal move for the side to move, ignoring
// whether the game is over (see Over).
func (p *Position) Legal(m Move) bool {
	if m == Swap {
		return p.phase == PhaseSwap
	}
	return m >= 1 && int(m) <= int(p.n) && p.House(p.toMove, int(m)) > 0
}

// Moves returns the legal moves in order: houses 1..n, then Swap.
func (p *Position) Moves() []Move {
	var ms []Move
	for mask := p.Mask(); mask != 0; mask &= mask - 1 {
		ms = append(ms, Move(bits.TrailingZeros32(mask)+1))
	}
	if p.phase == PhaseSwap {
		ms = append(ms, Swap)
	}
	return ms
}

// Play sows the mover's house h (1..n from the mover's left) under rules r
// and reports what happened. The move must be legal: h in range and the
// house not empty. If the game ends, the seeds left go to their owners'
// stores, so a finished position has empty houses.
func (p *Position) Play(r *Rules, h int) Effect {
	n := int(p.n)
	me := p.toMove
	base, store := 0, n
	if me == North {
		base, store = n+1, 2*n+1
	}
	i := base + h - 1
	seeds := int(p.pits[i])
	p.pits[i] = 0
	last := i + seeds
	if last <= store {
		// Most sowings stay on the mover's side and store.
		for j := i + 1; j <= last; j++ {
			p.pits[j]++
		}
		if last == store {
			p.seeds[me]--
		}
	} else if k := last - store; k <= n {
		// Past the store, ending in the opponent's houses: k seeds there.
		for j := i + 1; j <= store; j++ {
			p.pits[j]++
		}
		obase := (n + 1) - base
		for j := obase; j < obase+k; j++ {
			p.pits[j]++
		}
		p.seeds[me] -= uint16(k + 1)
		p.seeds[me^1] += uint16(k)
		last = obase + k - 1
	} else {
		last = p.sowAround(r, h, seeds)
	}

	var eff Effect
	switch {
	case last == store:
		if p.phase != PhaseFirst {
			eff = Extra
		}
	case last >= base && last < store && p.pits[last] == 1:
		opp := 2*n - last
		if c := p.pits[opp]; c != 0 || r.EmptyCapture {
			p.pits[store] += c + 1
			p.pits[opp] = 0
			p.pits[last] = 0
			p.seeds[me]--
			p.seeds[me^1] -= c
			eff = Capture
		}
	}
	if p.phase != PhasePlay {
		if p.phase == PhaseFirst {
			p.phase = PhaseSwap
		} else {
			p.phase = PhasePlay
		}
	}
	if eff != Extra {
		p.toMove = me ^ 1
	}
	// Every end rule needs an empty side, bar the early end.
	if (p.seeds[0] == 0 || p.seeds[1] == 0 || r.EarlyEnd) && p.ended(r, me) {
		p.sweep()
		eff |= End
	}
	return eff
}

// sowAround sows the seeds taken from the mover's house h when they go past
// the mover's store: along the mover's side to the store, over the
// opponent's houses (and store, if the rules sow into it) and back, lap
// after lap. It keeps the per-side counts and returns the last seed's pit.
func (p *Position) sowAround(r *Rules, h, seeds int) int {
	n := int(p.n)
	me := p.toMove
	base, obase := 0, n+1 // the first house of the mover and of the opponent
	if me == North {
		base, obase = n+1, 0
	}
	cycle := 2*n + 1
	if r.SowOpponentStore {
		cycle++
	}
	own, opp := -seeds, 0
	last := base + h - 1
	if seeds >= cycle {
		laps := seeds / cycle
		seeds %= cycle
		l := uint16(laps)
		for j := range n {
			p.pits[base+j] += l
			p.pits[obase+j] += l
		}
		p.pits[base+n] += l
		if r.SowOpponentStore {
			p.pits[obase+n] += l
		}
		own += n * laps
		opp += n * laps
	}
	if seeds > 0 { // the mover's houses after h, then the store
		k := min(seeds, n+1-h)
		for j := base + h; j < base+h+k; j++ {
			p.pits[j]++
		}
		seeds -= k
		last = base + h + k - 1
		own += k
		if k == n+1-h {
			own-- // the store's seed
		}
	}
	if seeds > 0 { // the opponent's houses
		k := min(seeds, n)
		for j := obase; j < obase+k; j++ {
			p.pits[j]++
		}
		seeds -= k
		last = obase + k - 1
		opp += k
	}
	if seeds > 0 && r.SowOpponentStore {
		p.pits[obase+n]++
		seeds--
		last = obase + n
	}
	if seeds > 0 { // back on the mover's side, short of house h
		for j := base; j < base+seeds; j++ {
			p.pits[j]++
		}
		last = base + seeds - 1
		own += seeds
	}
	p.seeds[me] = uint16(int(p.seeds[me]) + own)
	p.seeds[me^1] = uint16(int(p.seeds[me^1]) + opp)
	return last
}

// Swap plays the pie rule's swap: the players exchange sides and the board
// stays as it is, so the same side is still to move (now played by the other
// player). It is legal only when CanSwap.
func (p *Position) Swap() { p.phase = PhasePlay }

// Apply plays m after checking that it is legal and the game is not over.
func (p *Position) Apply(r *Rules, m Move) (Effect, error) {
	if p.Over(r) {
		return 0, ErrGameOver
	}
	if !p.Legal(m) {
		return 0, fmt.Errorf("%w: %s by %s in %s", ErrIllegalMove, m, p.toMove, p)
	}
	if m == Swap {
		p.Swap()
		return 0, nil
	}
	return p.Play(r, int(m)), nil
}

// ended applies the end rules after a sowing by mover.
func (p *Position) ended(r *Rules, mover Side) bool {
	n := int(p.n)
	south, north := int(p.seeds[South]), int(p.seeds[North])
	if r.EarlyEnd {
		ss, ns := int(p.pits[n]), int(p.pits[2*n+1])
		half := (south + north + ss + ns) / 2
		if ss > half || ns > half {
			return true
		}
	}
	switch r.End {
	case EitherEmpty:
		return south == 0 || north == 0
	case MoverEmpty:
		if (mover == South && south == 0) || (mover == North && north == 0) {
			return true
		}
	}
	return (p.toMove == South && south == 0) || (p.toMove == North && north == 0)
}

// Over reports whether the game is over in this position: for a position
// reached by play that means every house is empty; for a position set up by
// hand it applies the rules' end conditions that do not depend on the last
// mover.
func (p *Position) Over(r *Rules) bool {
	south, north := p.Seeds(South), p.Seeds(North)
	if south == 0 && north == 0 {
		return true
	}
	if r.EarlyEnd {
		half := p.Total() / 2
		if int(p.pits[p.n]) > half || int(p.pits[2*p.n+1]) > half {
			return true
		}
	}
	if r.End == EitherEmpty && (south == 0 || north == 0) {
		return true
	}
	return (p.toMove == South && south == 0) || (p.toMove == North && north == 0)
}

// Settle ends the game if the position is over under r (see Over), moving
// the seeds left to their owners' stores. It reports whether it is over.
func (p *Position) Settle(r *Rules) bool {
	if !p.Over(r) {
		return false
	}
	p.sweep()
	return true
}

// sweep moves the seeds left in each side's houses to its own store.
func (p *Position) sweep() {
	n := int(p.n)
	for s := 0; s < 2; s++ {
		base := s * (n + 1)
		t := uint16(0)
		for i := base; i < base+n; i++ {
			t += p.pits[i]
			p.pits[i] = 0
		}
		p.pits[base+n] += t
	}
	p.seeds = [2]uint16{}
}

// Forfeit ends the game with winner taking every seed left on the board.
func (p *Position) Forfeit(winner Side) {
	n := int(p.n)
	t := uint16(0)
	for s := 0; s < 2; s++ {
		base := s * (n + 1)
		for i := base; i < base+n; i++ {
			t += p.pits[i]
			p.pits[i] = 0
		}
	}
	p.pits[int(winner)*(n+1)+n] += t
	p.seeds = [2]uint16{}
}

// Outcome compares the stores: the result if the game ended here.
func (p *Position) Outcome() Result {
	s, n := p.Store(South), p.Store(North)
	switch {
	case s > n:
		return SouthWins
	case n > s:
		return NorthWins
	}
	return Draw
}

// Mirror returns the position seen from the other side: South and North
// exchange houses and stores, and the side to move flips with them.
func (p Position) Mirror() Position {
	q := p
	n := int(p.n)
	copy(q.pits[:n+1], p.pits[n+1:2*n+2])
	copy(q.pits[n+1:2*n+2], p.pits[:n+1])
	q.seeds[South], q.seeds[North] = p.seeds[North], p.seeds[South]
	q.toMove = p.toMove.Other()
	return q
}

// String returns the position in the text form documented in
// docs/NOTATION.md, for example "4,4,4,4,4,4/4,4,4,4,4,4 0-0 S".
func (p Position) String() string {
	var b strings.Builder
	n := int(p.n)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(int(p.pits[i])))
	}
	b.WriteByte('/')
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(int(p.pits[n+1+i])))
	}
	fmt.Fprintf(&b, " %d-%d %s", p.pits[n], p.pits[2*n+1], p.toMove.Letter())
	switch p.phase {
	case PhaseFirst:
		b.WriteString(" first")
	case PhaseSwap:
		b.WriteString(" swap")
	}
	return b.String()
}

// ParsePosition reads the text form written by Position.String.
func ParsePosition(s string) (Position, error) {
	f := strings.Fields(s)
	if len(f) < 3 || len(f) > 4 {
		return Position{}, fmt.Errorf("%w: position %q: want \"<south houses>/<north houses> <south store>-<north store> <S|N> [first|swap]\"", ErrSyntax, s)
	}
	sides := strings.Split(f[0], "/")
	if len(sides) != 2 {
		return Position{}, fmt.Errorf("%w: position %q: houses must be two lists separated by /", ErrSyntax, s)
	}
	south, err := parseInts(sides[0], ",")
	if err != nil {
		return Position{}, fmt.Errorf("%w: position %q: %v", ErrSyntax, s, err)
	}
	north, err := parseInts(sides[1], ",")
	if err != nil {
		return Position{}, fmt.Errorf("%w: position %q: %v", ErrSyntax, s, err)
	}
	stores, err := parseInts(f[1], "-")
	if err != nil || len(stores) != 2 {
		return Position{}, fmt.Errorf("%w: position %q: stores must read like 3-5", ErrSyntax, s)
	}
	side, err := ParseSide(f[2])
	if err != nil || len(f[2]) != 1 {
		return Position{}, fmt.Errorf("%w: position %q: side to move must be S or N", ErrSyntax, s)
	}
	p, err := NewPosition(south, north, stores[0], stores[1], side)
	if err != nil {
		return Position{}, err
	}
	if len(f) == 4 {
		switch f[3] {
		case "first":
			p.phase = PhaseFirst
		case "swap":
			p.phase = PhaseSwap
		default:
			return Position{}, fmt.Errorf("%w: position %q: unknown phase %q (want first or swap)", ErrSyntax, s, f[3])
		}
	}
	return p, nil
}

// CheckRules reports whether the position can be played under r: the same
// number of houses, and a pie phase only under the pie rule.
func (p *Position) CheckRules(r *Rules) error {
	if int(p.n) != r.Houses {
		return fmt.Errorf("%w: %d houses a side, the rules have %d", ErrBadPosition, p.n, r.Houses)
	}
	if p.phase != PhasePlay && !r.Pie {
		return fmt.Errorf("%w: a pie-rule phase without the pie rule", ErrBadPosition)
	}
	if p.phase == PhaseFirst && p.toMove != r.First {
		return fmt.Errorf("%w: the first move belongs to %s", ErrBadPosition, r.First)
	}
	if p.phase == PhaseSwap && p.toMove == r.First {
		return fmt.Errorf("%w: only the second player may swap", ErrBadPosition)
	}
	return nil
}

func parseInts(s, sep string) ([]int, error) {
	parts := strings.Split(s, sep)
	out := make([]int, len(parts))
	for i, x := range parts {
		v, err := strconv.Atoi(x)
		if err != nil || v < 0 || (len(x) > 1 && x[0] == '0') || x[0] == '+' {
			return nil, fmt.Errorf("bad count %q", x)
		}
		out[i] = v
	}
	return out, nil
}
