// Package line is kalah's own bot protocol: UTF-8 text, one message a line
// (LF, CRLF accepted), the same over TCP, WebSocket (one text message a
// line) and a bot process's stdin and stdout. docs/PROTOCOL.md describes the
// whole protocol; this package parses and formats its messages and reads
// lines with a length limit, for the server, the exec: player and clients.
//
// A message is a command word followed by arguments separated by spaces:
//
//	go 5000 0 4,4,4,4,4,4/4,4,4,4,4,4 0-0 S
//	move 3
//	error syntax move wants a house number
package line

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"kalah"
)

// Version is the protocol version the greeting announces ("kalah 1").
const Version = 1

// MaxLine is the default limit on a line's length in bytes, without its
// line ending.
const MaxLine = 4096

// Errors returned by this package, matched with errors.Is.
var (
	// ErrSyntax is a line that is not a well-formed message.
	ErrSyntax = errors.New("syntax error")
	// ErrTooLong is a line longer than the limit.
	ErrTooLong = errors.New("line too long")
)

// Error codes sent in "error <code> <text>" messages.
const (
	CodeSyntax    = "syntax"    // the line is not a message we understand
	CodeTooLong   = "too-long"  // the line was longer than the limit; the connection closes
	CodeVersion   = "version"   // the client speaks another version
	CodeAuth      = "auth"      // wrong token for the name, or not logged in
	CodeRate      = "rate"      // too many logins from this address
	CodeBusy      = "busy"      // already in a game or queue, or the server is full
	CodeState     = "state"     // the command does not fit now (a move when it is not your turn)
	CodeNotFound  = "not-found" // no such game, player or challenge
	CodeTimeout   = "timeout"   // the handshake or idle timeout ran out; the connection closes
	CodeReplaced  = "replaced"  // the same name logged in elsewhere; this connection closes
	CodeRules     = "rules"     // rules that cannot be played
	CodeShutdown  = "shutdown"  // the server is stopping
	CodeForbidden = "forbidden" // spectators and watchers may not move
	CodeIllegal   = "illegal"   // a move the position does not allow: the game is lost by it
)

// Msg is one message: a command and its arguments.
type Msg struct {
	Cmd  string
	Args []string
}

// String formats the message as a line without the line ending.
//
// A message is one line whatever its arguments hold: control characters
// (a line break above all, which would forge a message of its own) are
// written as spaces.
func (m Msg) String() string {
	if len(m.Args) == 0 && plain(m.Cmd) {
		return m.Cmd
	}
	// One allocation for the line: a move's lines are written for every
	// move of every game.
	n := len(m.Cmd)
	for _, a := range m.Args {
		n += 1 + len(a)
	}
	var b strings.Builder
	b.Grow(n)
	b.WriteString(m.Cmd)
	for _, a := range m.Args {
		b.WriteByte(' ')
		b.WriteString(a)
	}
	s := b.String()
	if plain(s) {
		return s
	}
	return strings.Map(func(r rune) rune {
		if isControl(r) {
			return ' '
		}
		return r
	}, s)
}

// plain reports whether s holds no control character (isControl) to
// replace: ASCII is looked at a byte at a time.
func plain(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 {
			return strings.IndexFunc(s[i:], isControl) < 0
		}
		if c < ' ' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

// isControl reports whether r may not appear inside a line.
func isControl(r rune) bool {
	return r < ' ' && r != '\t' || r == 0x7f || r == 0x85 || r == 0x2028 || r == 0x2029
}

// Parse reads one line (with or without its line ending) as a message. The
// command is lower-cased; arguments keep their case. A line must be valid
// UTF-8 without control characters other than tab.
func Parse(s string) (Msg, error) {
	s = strings.TrimSuffix(s, "\n")
	s = strings.TrimSuffix(s, "\r")
	if !utf8.ValidString(s) {
		return Msg{}, fmt.Errorf("%w: not UTF-8", ErrSyntax)
	}
	for _, r := range s {
		if r < ' ' && r != '\t' || r == 0x7f {
			return Msg{}, fmt.Errorf("%w: control character %U", ErrSyntax, r)
		}
	}
	f := strings.Fields(s)
	if len(f) == 0 {
		return Msg{}, fmt.Errorf("%w: empty line", ErrSyntax)
	}
	return Msg{Cmd: strings.ToLower(f[0]), Args: f[1:]}, nil
}

// Arg returns argument i or "".
func (m Msg) Arg(i int) string {
	if i < len(m.Args) {
		return m.Args[i]
	}
	return ""
}

// Rest returns the arguments from i on joined by spaces.
func (m Msg) Rest(i int) string {
	if i >= len(m.Args) {
		return ""
	}
	return strings.Join(m.Args[i:], " ")
}

// Errorf returns an "error" message.
func Errorf(code, format string, a ...any) Msg {
	text := fmt.Sprintf(format, a...)
	text = strings.Join(strings.Fields(text), " ")
	return Msg{Cmd: "error", Args: []string{code, text}}
}

// Greeting returns the server's first message, "kalah 1".
func Greeting() Msg { return Msg{Cmd: "kalah", Args: []string{strconv.Itoa(Version)}} }

// CheckGreeting reports whether m is a greeting for a version this package
// speaks.
func CheckGreeting(m Msg) error {
	if m.Cmd != "kalah" || len(m.Args) < 1 {
		return fmt.Errorf("%w: want greeting \"kalah %d\", got %q", ErrSyntax, Version, m.String())
	}
	v, err := strconv.Atoi(m.Args[0])
	if err != nil || v != Version {
		return fmt.Errorf("%w: protocol version %q, want %d", ErrSyntax, m.Args[0], Version)
	}
	return nil
}

// Turn is a "go" message: the mover's clock and the position to move in.
type Turn struct {
	PerMove   time.Duration // limit for this move; zero means none
	Remaining time.Duration // cumulative budget left; zero means none
	Position  kalah.Position
}

// Msg formats the turn: "go <per-move ms> <remaining ms> <position>".
func (t Turn) Msg() Msg {
	return Msg{Cmd: "go", Args: append([]string{
		strconv.FormatInt(t.PerMove.Milliseconds(), 10),
		strconv.FormatInt(t.Remaining.Milliseconds(), 10)},
		strings.Fields(t.Position.String())...)}
}

// ParseTurn reads a "go" message.
func ParseTurn(m Msg) (Turn, error) {
	if m.Cmd != "go" || len(m.Args) < 5 {
		return Turn{}, fmt.Errorf("%w: want \"go <per-move ms> <remaining ms> <position>\"", ErrSyntax)
	}
	per, err1 := parseMillis(m.Args[0])
	rem, err2 := parseMillis(m.Args[1])
	if err := errors.Join(err1, err2); err != nil {
		return Turn{}, err
	}
	p, err := kalah.ParsePosition(m.Rest(2))
	if err != nil {
		return Turn{}, fmt.Errorf("%w: %w", ErrSyntax, err)
	}
	return Turn{PerMove: per, Remaining: rem, Position: p}, nil
}

func parseMillis(s string) (time.Duration, error) {
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v < 0 || v > int64(365*24*time.Hour/time.Millisecond) {
		return 0, fmt.Errorf("%w: %q is not a time in milliseconds", ErrSyntax, s)
	}
	return time.Duration(v) * time.Millisecond, nil
}

// MoveMsg formats "move <house>" or "move swap".
func MoveMsg(m kalah.Move) Msg { return Msg{Cmd: "move", Args: []string{m.String()}} }

// ParseMove reads a "move" message's move: a house number from the mover's
// left or "swap". The range is checked by the referee.
func ParseMove(m Msg) (kalah.Move, error) {
	if m.Cmd != "move" || len(m.Args) != 1 {
		return kalah.NoMove, fmt.Errorf("%w: want \"move <house>\" or \"move swap\"", ErrSyntax)
	}
	mv, err := kalah.ParseMove(m.Args[0])
	if err != nil {
		return kalah.NoMove, fmt.Errorf("%w: %w", ErrSyntax, err)
	}
	return mv, nil
}

// Moved formats "moved <side> <move>", a move either side made.
func Moved(p kalah.Played) Msg {
	return Msg{Cmd: "moved", Args: []string{p.Side.Letter(), p.Move.String()}}
}

// ParseMoved reads a "moved" message.
func ParseMoved(m Msg) (kalah.Side, kalah.Move, error) {
	if m.Cmd != "moved" || len(m.Args) != 2 {
		return 0, 0, fmt.Errorf("%w: want \"moved <S|N> <move>\"", ErrSyntax)
	}
	s, err := kalah.ParseSide(m.Args[0])
	if err != nil {
		return 0, 0, fmt.Errorf("%w: %w", ErrSyntax, err)
	}
	mv, err := kalah.ParseMove(m.Args[1])
	if err != nil {
		return 0, 0, fmt.Errorf("%w: %w", ErrSyntax, err)
	}
	return s, mv, nil
}

// State formats "state <position>".
func State(p kalah.Position) Msg {
	return Msg{Cmd: "state", Args: strings.Fields(p.String())}
}

// End is an "end" message: how a game ended.
type End struct {
	Result      kalah.Result
	Termination kalah.Termination
	South       int // seeds in South's store
	North       int
}

// Msg formats "end <result> <termination> <south>-<north>", for example
// "end 1-0 normal 30-18".
func (e End) Msg() Msg {
	return Msg{Cmd: "end", Args: []string{e.Result.Token(), e.Termination.String(), fmt.Sprintf("%d-%d", e.South, e.North)}}
}

// EndOf returns the end of a finished game.
func EndOf(g *kalah.Game) End {
	s, n := g.Score()
	return End{Result: g.Result(), Termination: g.Termination(), South: s, North: n}
}

// ParseEnd reads an "end" message.
func ParseEnd(m Msg) (End, error) {
	if m.Cmd != "end" || len(m.Args) < 3 {
		return End{}, fmt.Errorf("%w: want \"end <result> <termination> <south>-<north>\"", ErrSyntax)
	}
	r, err := kalah.ParseResult(m.Args[0])
	if err != nil {
		return End{}, fmt.Errorf("%w: %w", ErrSyntax, err)
	}
	t, err := kalah.ParseTermination(m.Args[1])
	if err != nil {
		return End{}, fmt.Errorf("%w: %w", ErrSyntax, err)
	}
	a, b, ok := strings.Cut(m.Args[2], "-")
	s, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || s < 0 || n < 0 {
		return End{}, fmt.Errorf("%w: score %q", ErrSyntax, m.Args[2])
	}
	return End{Result: r, Termination: t, South: s, North: n}, nil
}

// Start is a "start" message: a game begins (or is joined again).
type Start struct {
	Game     string // the game's id; "-" over stdio
	Side     kalah.Side
	Opponent string
	Rules    kalah.Rules
}

// Msg formats "start <game> <side> <opponent> <rules>".
func (s Start) Msg() Msg {
	opp := s.Opponent
	if opp == "" || strings.ContainsAny(opp, " \t") {
		opp = strings.Join(strings.Fields(opp), "_")
		if opp == "" {
			opp = "-"
		}
	}
	return Msg{Cmd: "start", Args: []string{s.Game, s.Side.Letter(), opp, RulesToken(s.Rules)}}
}

// ParseStart reads a "start" message.
func ParseStart(m Msg) (Start, error) {
	if m.Cmd != "start" || len(m.Args) != 4 {
		return Start{}, fmt.Errorf("%w: want \"start <game> <side> <opponent> <rules>\"", ErrSyntax)
	}
	side, err := kalah.ParseSide(m.Args[1])
	if err != nil {
		return Start{}, fmt.Errorf("%w: %w", ErrSyntax, err)
	}
	r, err := ParseRules(m.Args[3])
	if err != nil {
		return Start{}, err
	}
	return Start{Game: m.Args[0], Side: side, Opponent: m.Args[2], Rules: r}, nil
}

// RulesToken writes rules as one word: the preset name when the rules are
// a preset with South first ("kalah", "manchester"), otherwise the preset
// (or "custom") followed by every switch, comma-separated:
// "custom,houses=6,seeds=3,first=N,empty-capture=0,end=either-empty,early-end=0,pie=0,sow-opponent-store=1".
func RulesToken(r kalah.Rules) string {
	c := r.Canonical()
	if c.Name != "" && c.First == kalah.South {
		return c.Name
	}
	name := c.Name
	if name == "" {
		name = "custom"
	}
	b := func(v bool) string {
		if v {
			return "1"
		}
		return "0"
	}
	return fmt.Sprintf("%s,houses=%d,seeds=%d,first=%s,empty-capture=%s,end=%s,early-end=%s,pie=%s,sow-opponent-store=%s",
		name, r.Houses, r.Seeds, r.First.Letter(), b(r.EmptyCapture), r.End, b(r.EarlyEnd), b(r.Pie), b(r.SowOpponentStore))
}

// ParseRules reads a rules word written by RulesToken: a preset name,
// optionally followed by comma-separated overrides key=value.
func ParseRules(s string) (kalah.Rules, error) {
	parts := strings.Split(s, ",")
	var r kalah.Rules
	if parts[0] == "custom" {
		r = kalah.Standard()
		r.Name = ""
	} else {
		var err error
		if r, err = kalah.PresetRules(parts[0]); err != nil {
			return r, fmt.Errorf("%w: %w", ErrSyntax, err)
		}
	}
	for _, kv := range parts[1:] {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return r, fmt.Errorf("%w: rules option %q is not key=value", ErrSyntax, kv)
		}
		var err error
		switch k {
		case "houses":
			r.Houses, err = strconv.Atoi(v)
		case "seeds":
			r.Seeds, err = strconv.Atoi(v)
		case "first":
			r.First, err = kalah.ParseSide(v)
		case "end":
			r.End, err = kalah.ParseEndRule(v)
		case "empty-capture":
			r.EmptyCapture, err = strconv.ParseBool(v)
		case "early-end":
			r.EarlyEnd, err = strconv.ParseBool(v)
		case "pie":
			r.Pie, err = strconv.ParseBool(v)
		case "sow-opponent-store":
			r.SowOpponentStore, err = strconv.ParseBool(v)
		default:
			return r, fmt.Errorf("%w: unknown rules option %q", ErrSyntax, k)
		}
		if err != nil {
			return r, fmt.Errorf("%w: rules option %q: %v", ErrSyntax, kv, err)
		}
	}
	if err := r.Validate(); err != nil {
		return r, fmt.Errorf("%w: %w", ErrSyntax, err)
	}
	return r.Canonical(), nil
}

// ValidName reports whether s can be a player name: 1 to 32 letters,
// digits, '-', '_' or '.'.
func ValidName(s string) bool {
	if len(s) < 1 || len(s) > 32 {
		return false
	}
	for _, c := range s {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-', c == '_', c == '.':
		default:
			return false
		}
	}
	return true
}

// Reader reads lines with a length limit.
type Reader struct {
	br  *bufio.Reader
	max int
}

// NewReader returns a Reader of lines no longer than max bytes (MaxLine if
// max <= 0).
func NewReader(r io.Reader, max int) *Reader {
	if max <= 0 {
		max = MaxLine
	}
	return &Reader{br: bufio.NewReaderSize(r, min(max+2, readBuffer)), max: max}
}

// readBuffer is a Reader's buffer: a line longer than it is gathered from
// several reads. The protocol's lines are short, and a server holds a
// Reader a connection (4 KiB each made 43 MB of 8,000 bots' connections).
const readBuffer = 512

// ReadLine returns the next line without its line ending. A line over the
// limit returns ErrTooLong; the rest of it is not read, so the stream
// should be dropped. A last line without a line ending is returned with a
// nil error, then io.EOF.
func (r *Reader) ReadLine() (string, error) {
	var buf []byte
	for {
		chunk, err := r.br.ReadSlice('\n')
		buf = append(buf, chunk...)
		if len(buf) > r.max+2 || (err == nil && len(strings.TrimRight(string(buf), "\r\n")) > r.max) {
			return "", ErrTooLong
		}
		switch {
		case err == nil:
			s := string(buf[:len(buf)-1])
			return strings.TrimSuffix(s, "\r"), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(buf) > 0:
			s := strings.TrimSuffix(string(buf), "\r")
			if len(s) > r.max {
				return "", ErrTooLong
			}
			return s, nil
		default:
			return "", err
		}
	}
}

// ReadMsg reads lines until one parses; it returns parse errors too, so
// the caller can answer them.
func (r *Reader) ReadMsg() (Msg, error) {
	s, err := r.ReadLine()
	if err != nil {
		return Msg{}, err
	}
	return Parse(s)
}

// Write writes m as a line.
func Write(w io.Writer, m Msg) error {
	_, err := io.WriteString(w, m.String()+"\n")
	return err
}
