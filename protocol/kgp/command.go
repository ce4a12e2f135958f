package kgp

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// MaxLine is the longest command the protocol allows, in characters,
// counting the line end.
const MaxLine = 16384

// Version is the protocol version this package speaks, as sent in the
// greeting.
const Version = "1 0 1"

// ErrSyntax is returned for a line that is not a KGP command.
var ErrSyntax = errors.New("kgp: syntax error")

// ArgKind is the type of an argument, which KGP fixes by its spelling.
type ArgKind uint8

// The kinds of argument.
const (
	Integer ArgKind = iota + 1 // 32, +0, -100
	Real                       // 0.0, +3.141, -.123
	Word                       // single-word, info:name
	String                     // "with \"quotes\""
	Board                      // <3,0,0,3,3,3,3,3,3>
)

// Arg is one argument of a command.
type Arg struct {
	Kind  ArgKind
	Int   int64   // an Integer's value
	Real  float64 // a Real's value
	Text  string  // a Word's or String's text, unescaped; a Board's literal
	Board []int   // a Board's numbers
}

// String returns the argument as text: a word's or string's text, a
// number as written, so "set info:name 42" still reads as a name.
func (a Arg) String() string {
	switch a.Kind {
	case Integer:
		return strconv.FormatInt(a.Int, 10)
	case Real:
		s := strconv.FormatFloat(a.Real, 'f', -1, 64)
		if !strings.ContainsRune(s, '.') {
			s += ".0" // keep it a real when read back
		}
		return s
	}
	return a.Text
}

// Command is one line of the protocol: an optional id, an optional
// reference to an earlier id, a name and arguments. An ID or Ref of zero
// means none; this package never issues id 0.
type Command struct {
	ID   uint64
	Ref  uint64
	Name string
	Args []Arg
}

// Int is an integer argument for a command.
func Int(v int64) Arg { return Arg{Kind: Integer, Int: v} }

// Str is a string argument for a command; it is quoted when written.
func Str(s string) Arg { return Arg{Kind: String, Text: s} }

// WordArg is a word argument for a command, written as is. It must consist
// of letters, digits, '-' and ':'.
func WordArg(s string) Arg { return Arg{Kind: Word, Text: s} }

// BoardArg is a board literal argument.
func BoardArg(v []int) Arg { return Arg{Kind: Board, Board: v} }

// String formats the command as a line without its line end.
func (c Command) String() string {
	var b strings.Builder
	if c.ID != 0 {
		b.WriteString(strconv.FormatUint(c.ID, 10))
	}
	if c.Ref != 0 {
		b.WriteByte('@')
		b.WriteString(strconv.FormatUint(c.Ref, 10))
	}
	if b.Len() > 0 {
		b.WriteByte(' ')
	}
	b.WriteString(c.Name)
	for _, a := range c.Args {
		b.WriteByte(' ')
		switch a.Kind {
		case Integer, Real:
			b.WriteString(a.String())
		case Word:
			if isWord(a.Text) {
				b.WriteString(a.Text)
			} else {
				writeQuoted(&b, a.Text)
			}
		case Board:
			b.WriteByte('<')
			for i, v := range a.Board {
				if i > 0 {
					b.WriteByte(',')
				}
				b.WriteString(strconv.Itoa(v))
			}
			b.WriteByte('>')
		default:
			writeQuoted(&b, a.Text)
		}
	}
	return b.String()
}

func writeQuoted(b *strings.Builder, s string) {
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if c < 0x20 || c == 0x7f {
				// Control characters cannot travel in a line; drop them.
				continue
			}
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
}

func isWord(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isWordByte(s[i]) {
			return false
		}
	}
	return true
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == ':'
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isSpace(c byte) bool { return c == ' ' || c == '\t' }

// Parse reads one command. The line may end in CRLF or a bare LF; it must
// not be longer than MaxLine. Names are case-sensitive, as in the spec.
func Parse(line string) (Command, error) {
	if len(line) > MaxLine {
		return Command{}, fmt.Errorf("%w: line of %d characters (at most %d)", ErrSyntax, len(line), MaxLine)
	}
	line = strings.TrimSuffix(line, "\n")
	line = strings.TrimSuffix(line, "\r")
	var c Command
	i := 0
	skip := func() {
		for i < len(line) && isSpace(line[i]) {
			i++
		}
	}
	skip()
	// An id and/or reference come first: digits, then @digits, then space.
	start := i
	for i < len(line) && isDigit(line[i]) {
		i++
	}
	hasPrefix := false
	if i > start {
		id, err := strconv.ParseUint(line[start:i], 10, 64)
		if err != nil || id == 0 {
			return Command{}, fmt.Errorf("%w: bad command id %q", ErrSyntax, line[start:i])
		}
		c.ID = id
		hasPrefix = true
	}
	if i < len(line) && line[i] == '@' {
		i++
		rs := i
		for i < len(line) && isDigit(line[i]) {
			i++
		}
		ref, err := strconv.ParseUint(line[rs:i], 10, 64)
		if err != nil || ref == 0 {
			return Command{}, fmt.Errorf("%w: bad reference %q", ErrSyntax, line[rs-1:i])
		}
		c.Ref = ref
		hasPrefix = true
	}
	if hasPrefix {
		if i >= len(line) || !isSpace(line[i]) {
			return Command{}, fmt.Errorf("%w: id must be followed by a space", ErrSyntax)
		}
		skip()
	} else {
		i = start
	}
	ns := i
	for i < len(line) && (isDigit(line[i]) || line[i] >= 'a' && line[i] <= 'z' || line[i] >= 'A' && line[i] <= 'Z') {
		i++
	}
	if i == ns {
		if i >= len(line) {
			return Command{}, fmt.Errorf("%w: empty command", ErrSyntax)
		}
		return Command{}, fmt.Errorf("%w: command name expected at %q", ErrSyntax, clip(line[i:]))
	}
	c.Name = line[ns:i]
	for {
		if i < len(line) && !isSpace(line[i]) {
			return Command{}, fmt.Errorf("%w: space expected before %q", ErrSyntax, clip(line[i:]))
		}
		skip()
		if i >= len(line) {
			return c, nil
		}
		a, n, err := parseArg(line[i:])
		if err != nil {
			return Command{}, err
		}
		c.Args = append(c.Args, a)
		i += n
	}
}

func clip(s string) string {
	if len(s) > 20 {
		return s[:20] + "..."
	}
	return s
}

// parseArg reads the argument at the start of s and returns it with the
// bytes it used.
func parseArg(s string) (Arg, int, error) {
	switch s[0] {
	case '"':
		var b strings.Builder
		for i := 1; i < len(s); i++ {
			switch c := s[i]; c {
			case '"':
				return Arg{Kind: String, Text: b.String()}, i + 1, nil
			case '\\':
				i++
				if i >= len(s) {
					return Arg{}, 0, fmt.Errorf("%w: string ends in a backslash", ErrSyntax)
				}
				switch e := s[i]; e {
				case 'n':
					b.WriteByte('\n')
				case 't':
					b.WriteByte('\t')
				case 'r':
					b.WriteByte('\r')
				default:
					b.WriteByte(e)
				}
			default:
				b.WriteByte(c)
			}
		}
		return Arg{}, 0, fmt.Errorf("%w: unterminated string", ErrSyntax)
	case '<':
		end := strings.IndexByte(s, '>')
		if end < 0 {
			return Arg{}, 0, fmt.Errorf("%w: unterminated board literal", ErrSyntax)
		}
		parts := strings.Split(s[1:end], ",")
		v := make([]int, len(parts))
		for j, p := range parts {
			if p == "" || !allDigits(p) {
				return Arg{}, 0, fmt.Errorf("%w: board literal %q", ErrSyntax, clip(s[:end+1]))
			}
			n, err := strconv.Atoi(p)
			if err != nil || n > 1<<20 {
				return Arg{}, 0, fmt.Errorf("%w: board literal %q: number out of range", ErrSyntax, clip(s[:end+1]))
			}
			v[j] = n
		}
		return Arg{Kind: Board, Text: s[:end+1], Board: v}, end + 1, nil
	}
	end := 0
	for end < len(s) && !isSpace(s[end]) {
		end++
	}
	tok := s[:end]
	if a, ok, err := number(tok); err != nil {
		return Arg{}, 0, err
	} else if ok {
		return a, end, nil
	}
	if isWord(tok) {
		return Arg{Kind: Word, Text: tok}, end, nil
	}
	return Arg{}, 0, fmt.Errorf("%w: bad argument %q", ErrSyntax, clip(tok))
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return s != ""
}

// number reads an integer or a real in the spec's spelling; ok is false if
// tok is neither, and err is set for a number out of range.
func number(tok string) (a Arg, ok bool, err error) {
	body := tok
	if body != "" && (body[0] == '+' || body[0] == '-') {
		body = body[1:]
	}
	if allDigits(body) {
		v, err := strconv.ParseInt(tok, 10, 64)
		if err != nil {
			return Arg{}, false, fmt.Errorf("%w: integer %q out of range", ErrSyntax, clip(tok))
		}
		return Arg{Kind: Integer, Int: v}, true, nil
	}
	whole, frac, found := strings.Cut(body, ".")
	if !found || !allDigits(frac) || (whole != "" && !allDigits(whole)) {
		return Arg{}, false, nil
	}
	v, err := strconv.ParseFloat(tok, 64)
	if err != nil {
		return Arg{}, false, fmt.Errorf("%w: real %q out of range", ErrSyntax, clip(tok))
	}
	return Arg{Kind: Real, Real: v}, true, nil
}
