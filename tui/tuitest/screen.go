// Package tuitest emulates enough of a terminal for tests to read what a
// full-screen program shows: the cursor motions, erasing, insertion,
// deletion, scrolling regions and alternate screen that Bubble Tea's
// renderer sends. Styles are dropped; the screen is plain text.
//
// A renderer that redraws only what changed leaves words split across
// escape sequences in its output, so searching the raw output for text is
// unreliable; searching the emulated screen is not.
package tuitest

import (
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Screen is an emulated terminal. Write the program's output to it; read
// the screen with String. It is safe for concurrent use.
type Screen struct {
	// ONLCR makes a newline return the carriage too, as a terminal's line
	// discipline does for a program that has not turned output processing
	// off. Set it when a program writes to the Screen directly, not through
	// a pseudo-terminal, and believes it writes to a terminal.
	ONLCR bool

	mu        sync.Mutex
	w, h      int
	cells     [][]rune
	main      [][]rune // the main screen while the alternate one is shown
	x, y      int
	wrapNext  bool // the last column was written: the next rune wraps first
	top, bot  int  // the scrolling region, inclusive
	savedX    int
	savedY    int
	last      rune // the last rune printed, for REP
	pending   []byte
	state     int
	params    []byte
	private   byte
	stringEsc bool // in a string sequence, an ESC was seen (ST may follow)
	writes    int
}

const (
	ground = iota
	escape
	escapeCharset // ESC ( and friends: one more byte
	csi
	str // OSC, DCS, APC, PM, SOS: ends with BEL or ST
)

// New returns a blank screen of w columns and h rows.
func New(w, h int) *Screen {
	s := &Screen{w: w, h: h}
	s.cells = blank(w, h)
	s.bot = h - 1
	return s
}

func blank(w, h int) [][]rune {
	c := make([][]rune, h)
	for i := range c {
		c[i] = blankLine(w)
	}
	return c
}

func blankLine(w int) []rune {
	l := make([]rune, w)
	for i := range l {
		l[i] = ' '
	}
	return l
}

// String returns the screen's rows, trailing blanks trimmed, joined by
// newlines.
func (s *Screen) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	rows := make([]string, s.h)
	for i, l := range s.cells {
		rows[i] = strings.TrimRight(string(l), " ")
	}
	return strings.TrimRight(strings.Join(rows, "\n"), "\n")
}

// Writes returns how many times Write was called, so a test can wait for
// new output.
func (s *Screen) Writes() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.writes
}

// Write feeds the screen the program's output. It never fails.
func (s *Screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.writes++
	buf := append(s.pending, p...)
	for len(buf) > 0 {
		if !utf8.FullRune(buf) {
			break
		}
		r, size := utf8.DecodeRune(buf)
		buf = buf[size:]
		s.feed(r)
	}
	s.pending = append([]byte(nil), buf...)
	return len(p), nil
}

func (s *Screen) feed(r rune) {
	switch s.state {
	case escape:
		s.escape(r)
		return
	case escapeCharset:
		s.state = ground
		return
	case csi:
		switch {
		case r >= 0x40 && r <= 0x7e:
			s.state = ground
			s.csi(r)
		case r == '?' || r == '>' || r == '<' || r == '=':
			s.private = byte(r)
		case r < 0x20 || r > 0x7e:
			s.state = ground
		default:
			s.params = append(s.params, byte(r))
		}
		return
	case str:
		switch {
		case r == 0x07:
			s.state = ground
		case r == 0x1b:
			s.stringEsc = true
		case s.stringEsc && r == '\\':
			s.state = ground
		default:
			s.stringEsc = false
		}
		return
	}
	switch r {
	case 0x1b:
		s.state = escape
	case '\r':
		s.x, s.wrapNext = 0, false
	case '\n', '\v', '\f':
		if s.ONLCR && r == '\n' {
			s.x = 0
		}
		s.lineFeed()
	case '\b':
		if s.x > 0 {
			s.x--
		}
		s.wrapNext = false
	case '\t':
		s.x = min(s.w-1, (s.x/8+1)*8)
	default:
		if r < 0x20 || r == 0x7f || unicode.Is(unicode.Mn, r) {
			return // controls, and combining marks drawn over the last cell
		}
		s.print(r)
	}
}

func (s *Screen) print(r rune) {
	if s.wrapNext {
		s.x = 0
		s.lineFeed()
	}
	s.cells[s.y][s.x] = r
	s.last = r
	if s.x == s.w-1 {
		s.wrapNext = true
	} else {
		s.x++
	}
}

func (s *Screen) lineFeed() {
	s.wrapNext = false
	if s.y == s.bot {
		s.scrollUp(1)
	} else if s.y < s.h-1 {
		s.y++
	}
}

func (s *Screen) escape(r rune) {
	s.state = ground
	switch r {
	case '[':
		s.state, s.params, s.private = csi, s.params[:0], 0
	case ']', 'P', '_', '^', 'X':
		s.state, s.stringEsc = str, false
	case '(', ')', '*', '+', '-', '.', '/', '#', '%', ' ':
		s.state = escapeCharset
	case '7':
		s.savedX, s.savedY = s.x, s.y
	case '8':
		s.x, s.y, s.wrapNext = s.savedX, s.savedY, false
	case 'D':
		s.lineFeed()
	case 'E':
		s.x = 0
		s.lineFeed()
	case 'M':
		s.wrapNext = false
		if s.y == s.top {
			s.scrollDown(1)
		} else if s.y > 0 {
			s.y--
		}
	case 'c':
		s.cells, s.main = blank(s.w, s.h), nil
		s.x, s.y, s.wrapNext, s.top, s.bot = 0, 0, false, 0, s.h-1
	}
}

// nums parses the parameters; missing ones are zero.
func (s *Screen) nums() []int {
	var out []int
	for _, f := range strings.Split(string(s.params), ";") {
		if i := strings.IndexByte(f, ':'); i >= 0 {
			f = f[:i]
		}
		n, _ := strconv.Atoi(f)
		out = append(out, n)
	}
	return out
}

// arg returns parameter i, or def if it is missing or zero.
func arg(ps []int, i, def int) int {
	if i < len(ps) && ps[i] > 0 {
		return ps[i]
	}
	return def
}

func clamp(v, lo, hi int) int { return max(lo, min(v, hi)) }

func (s *Screen) csi(final rune) {
	ps := s.nums()
	if s.private != 0 {
		if s.private == '?' && (final == 'h' || final == 'l') {
			for _, p := range ps {
				if p == 1049 || p == 1047 || p == 47 {
					s.altScreen(final == 'h')
				}
			}
		}
		return
	}
	n := arg(ps, 0, 1)
	s.wrapNext = false
	switch final {
	case 'A':
		s.y = clamp(s.y-n, 0, s.h-1)
	case 'B', 'e':
		s.y = clamp(s.y+n, 0, s.h-1)
	case 'C', 'a':
		s.x = clamp(s.x+n, 0, s.w-1)
	case 'D':
		s.x = clamp(s.x-n, 0, s.w-1)
	case 'E':
		s.x, s.y = 0, clamp(s.y+n, 0, s.h-1)
	case 'F':
		s.x, s.y = 0, clamp(s.y-n, 0, s.h-1)
	case 'G', '`':
		s.x = clamp(n-1, 0, s.w-1)
	case 'd':
		s.y = clamp(n-1, 0, s.h-1)
	case 'H', 'f':
		s.y = clamp(arg(ps, 0, 1)-1, 0, s.h-1)
		s.x = clamp(arg(ps, 1, 1)-1, 0, s.w-1)
	case 'I':
		for range n {
			s.x = min(s.w-1, (s.x/8+1)*8)
		}
	case 'Z':
		for range n {
			s.x = max(0, (s.x-1)/8*8)
		}
	case 'J':
		switch arg(ps, 0, 0) {
		case 0:
			s.erase(s.y, s.x, s.w)
			for y := s.y + 1; y < s.h; y++ {
				s.cells[y] = blankLine(s.w)
			}
		case 1:
			for y := 0; y < s.y; y++ {
				s.cells[y] = blankLine(s.w)
			}
			s.erase(s.y, 0, s.x+1)
		default:
			s.cells = blank(s.w, s.h)
		}
	case 'K':
		switch arg(ps, 0, 0) {
		case 0:
			s.erase(s.y, s.x, s.w)
		case 1:
			s.erase(s.y, 0, s.x+1)
		default:
			s.erase(s.y, 0, s.w)
		}
	case 'X':
		s.erase(s.y, s.x, s.x+n)
	case '@':
		l := s.cells[s.y]
		n = min(n, s.w-s.x)
		copy(l[s.x+n:], l[s.x:s.w-n])
		s.erase(s.y, s.x, s.x+n)
	case 'P':
		l := s.cells[s.y]
		n = min(n, s.w-s.x)
		copy(l[s.x:], l[s.x+n:])
		s.erase(s.y, s.w-n, s.w)
	case 'L':
		if s.y >= s.top && s.y <= s.bot {
			s.shift(s.y, s.bot, -n)
		}
	case 'M':
		if s.y >= s.top && s.y <= s.bot {
			s.shift(s.y, s.bot, n)
		}
	case 'S':
		s.scrollUp(n)
	case 'T':
		s.scrollDown(n)
	case 'r':
		top, bot := arg(ps, 0, 1)-1, arg(ps, 1, s.h)-1
		if top < bot && bot < s.h {
			s.top, s.bot = top, bot
		}
		s.x, s.y = 0, 0
	case 'b':
		for range n {
			s.print(s.last)
		}
	case 's':
		s.savedX, s.savedY = s.x, s.y
	case 'u':
		s.x, s.y = s.savedX, s.savedY
	}
}

func (s *Screen) erase(y, from, to int) {
	l := s.cells[y]
	for x := max(0, from); x < min(to, s.w); x++ {
		l[x] = ' '
	}
}

// shift moves rows from..to up by n (down for negative n), blanking the
// rows uncovered.
func (s *Screen) shift(from, to, n int) {
	rows := s.cells[from : to+1]
	k := len(rows)
	if n > 0 {
		n = min(n, k)
		copy(rows, rows[n:])
		for i := k - n; i < k; i++ {
			rows[i] = blankLine(s.w)
		}
	} else if n < 0 {
		n = min(-n, k)
		copy(rows[n:], rows[:k-n])
		for i := 0; i < n; i++ {
			rows[i] = blankLine(s.w)
		}
	}
}

func (s *Screen) scrollUp(n int)   { s.shift(s.top, s.bot, n) }
func (s *Screen) scrollDown(n int) { s.shift(s.top, s.bot, -n) }

func (s *Screen) altScreen(on bool) {
	switch {
	case on && s.main == nil:
		s.main = s.cells
		s.cells = blank(s.w, s.h)
	case !on && s.main != nil:
		s.cells, s.main = s.main, nil
	}
}
