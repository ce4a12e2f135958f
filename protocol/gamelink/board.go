package gamelink

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"kalah"
)

// ErrSyntax is returned for a message that does not read as GameLink.
var ErrSyntax = errors.New("gamelink: syntax error")

// MaxHouses is the largest board GameLink can play: a move travels as a
// single digit.
const MaxHouses = 9

// engine is the board as GameLink's engine keeps it, in absolute terms: the
// pits in sowing order (South's houses from its left, South's store,
// North's houses, North's store). Unlike kalah.Position it does not sweep
// the houses when the game ends, since GameLink sends the unswept board
// with the last move.
type engine struct {
	n    int
	pits []int
}

func newEngine(houses, seeds int) *engine {
	e := &engine{n: houses, pits: make([]int, 2*houses+2)}
	for i := range houses {
		e.pits[i] = seeds
		e.pits[houses+1+i] = seeds
	}
	return e
}

func (e *engine) clone() *engine {
	return &engine{n: e.n, pits: append([]int(nil), e.pits...)}
}

func (e *engine) store(s kalah.Side) int { return int(s)*(e.n+1) + e.n }

// legal reports whether side s may sow its house h (1..n).
func (e *engine) legal(s kalah.Side, h int) bool {
	return h >= 1 && h <= e.n && e.pits[int(s)*(e.n+1)+h-1] > 0
}

// sow plays house h for side s as GameLink does: seeds go round every pit,
// both stores included; a last seed in the mover's store earns another
// move; a last seed in an empty own house opposite a non-empty one captures
// both. It returns whether the mover moves again.
func (e *engine) sow(s kalah.Side, h int) (again bool) {
	i := int(s)*(e.n+1) + h - 1
	seeds := e.pits[i]
	e.pits[i] = 0
	for ; seeds > 0; seeds-- {
		i = (i + 1) % len(e.pits)
		e.pits[i]++
	}
	own := e.store(s)
	if i == own {
		return true
	}
	base := int(s) * (e.n + 1)
	if i >= base && i < own && e.pits[i] == 1 {
		opp := 2*e.n - i
		if e.pits[opp] > 0 {
			e.pits[own] += e.pits[opp] + 1
			e.pits[opp], e.pits[i] = 0, 0
		}
	}
	return false
}

// over reports whether either side's houses are empty.
func (e *engine) over() bool {
	for s := range 2 {
		sum := 0
		for h := range e.n {
			sum += e.pits[s*(e.n+1)+h]
		}
		if sum == 0 {
			return true
		}
	}
	return false
}

// Board is GameLink's board as one player sees it, two rows of houses+1
// cells: row 1 holds the player's houses 1..n (sowing left to right) and
// then its store; row 0 holds the opponent's store and then the opponent's
// houses n..1, so that the opponent's house n+1-i, above house i, faces it.
type Board [2][]int

// view returns e as seen by side s.
func (e *engine) view(s kalah.Side) Board {
	n := e.n
	b := Board{make([]int, n+1), make([]int, n+1)}
	own, opp := int(s)*(n+1), int(s.Other())*(n+1)
	copy(b[1], e.pits[own:own+n+1])
	b[0][0] = e.pits[opp+n]
	for m := 1; m <= n; m++ {
		b[0][n+1-m] = e.pits[opp+m-1]
	}
	return b
}

// String writes the board as GameLink sends it: each row as Java's
// Arrays.toString, "[3, 3, 0]", the rows joined by "|".
func (b Board) String() string {
	var sb strings.Builder
	for y, row := range b {
		if y > 0 {
			sb.WriteByte('|')
		}
		sb.WriteByte('[')
		for x, v := range row {
			if x > 0 {
				sb.WriteString(", ")
			}
			sb.WriteString(strconv.Itoa(v))
		}
		sb.WriteByte(']')
	}
	return sb.String()
}

// Equal reports whether two boards hold the same counts.
func (b Board) Equal(c Board) bool {
	for y := range 2 {
		if len(b[y]) != len(c[y]) {
			return false
		}
		for x := range b[y] {
			if b[y][x] != c[y][x] {
				return false
			}
		}
	}
	return true
}

// ParseBoard reads a board of houses+1 cells a row in the form Board.String
// writes, strictly.
func ParseBoard(s string, houses int) (Board, error) {
	rows := strings.Split(s, "|")
	if len(rows) != 2 {
		return Board{}, fmt.Errorf("%w: board %q: want two rows separated by |", ErrSyntax, clip(s))
	}
	var b Board
	for y, r := range rows {
		inner, ok := strings.CutPrefix(r, "[")
		if ok {
			inner, ok = strings.CutSuffix(inner, "]")
		}
		if !ok {
			return Board{}, fmt.Errorf("%w: board row %q: want [a, b, ...]", ErrSyntax, clip(r))
		}
		cells := strings.Split(inner, ", ")
		if len(cells) != houses+1 {
			return Board{}, fmt.Errorf("%w: board row %q: want %d cells", ErrSyntax, clip(r), houses+1)
		}
		b[y] = make([]int, len(cells))
		for x, c := range cells {
			v, err := strconv.Atoi(c)
			if err != nil || v < 0 || v > 1<<16 || c != strconv.Itoa(v) {
				return Board{}, fmt.Errorf("%w: board cell %q", ErrSyntax, clip(c))
			}
			b[y][x] = v
		}
	}
	return b, nil
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

// Move is a move message: the house, the boards before and after it (in
// the receiver's orientation), the player number to move next (1 or 2) and
// whether the game is over.
type Move struct {
	House    int
	Old, New Board
	Turn     int
	Over     bool
}

// String writes the message: move:old:new:turn:gameOver.
func (m Move) String() string {
	return fmt.Sprintf("%d:%s:%s:%d:%t", m.House, m.Old, m.New, m.Turn, m.Over)
}

// ParseMove reads a move message for a board of the given houses.
func ParseMove(s string, houses int) (Move, error) {
	f := strings.Split(s, ":")
	if len(f) != 5 {
		return Move{}, fmt.Errorf("%w: move message %q: want move:old:new:turn:gameOver", ErrSyntax, clip(s))
	}
	var m Move
	if len(f[0]) != 1 || f[0][0] < '1' || f[0][0] > '9' {
		return Move{}, fmt.Errorf("%w: move %q: want one digit", ErrSyntax, clip(f[0]))
	}
	m.House = int(f[0][0] - '0')
	var err error
	if m.Old, err = ParseBoard(f[1], houses); err != nil {
		return Move{}, err
	}
	if m.New, err = ParseBoard(f[2], houses); err != nil {
		return Move{}, err
	}
	switch f[3] {
	case "1", "2":
		m.Turn = int(f[3][0] - '0')
	default:
		return Move{}, fmt.Errorf("%w: turn %q: want 1 or 2", ErrSyntax, clip(f[3]))
	}
	switch strings.ToLower(f[4]) {
	case "true":
		m.Over = true
	case "false":
	default:
		return Move{}, fmt.Errorf("%w: game-over flag %q: want true or false", ErrSyntax, clip(f[4]))
	}
	return m, nil
}
