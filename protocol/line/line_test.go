package line

import (
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"kalah"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		want string
		err  bool
	}{
		{"move 3", "move 3", false},
		{"MOVE 3\r\n", "move 3", false},
		{"  login  bob   secret ", "login bob secret", false},
		{"", "", true},
		{"   ", "", true},
		{"move\x003", "", true},
		{"\xff\xfe", "", true},
	}
	for _, tt := range tests {
		m, err := Parse(tt.in)
		if (err != nil) != tt.err {
			t.Errorf("Parse(%q) error %v, want error %v", tt.in, err, tt.err)
			continue
		}
		if err == nil && m.String() != tt.want {
			t.Errorf("Parse(%q) = %q, want %q", tt.in, m.String(), tt.want)
		}
		if err != nil && !errors.Is(err, ErrSyntax) {
			t.Errorf("Parse(%q) error %v is not ErrSyntax", tt.in, err)
		}
	}
}

func TestTurnRoundTrip(t *testing.T) {
	g, _ := kalah.NewGame(kalah.Standard())
	g.Play(3)
	turn := Turn{PerMove: 5 * time.Second, Remaining: 0, Position: g.Position()}
	s := turn.Msg().String()
	if s != "go 5000 0 "+g.Position().String() {
		t.Fatalf("go line %q", s)
	}
	m, _ := Parse(s)
	got, err := ParseTurn(m)
	if err != nil || got != turn {
		t.Fatalf("ParseTurn = %+v, %v; want %+v", got, err, turn)
	}
	for _, bad := range []string{"go", "go x 0 4,4/4,4 0-0 S", "go 1 -5 4,4/4,4 0-0 S", "go 1 1 4,4/4 0-0 S"} {
		m, _ := Parse(bad)
		if _, err := ParseTurn(m); !errors.Is(err, ErrSyntax) {
			t.Errorf("ParseTurn(%q) error %v", bad, err)
		}
	}
}

func TestRulesToken(t *testing.T) {
	for _, p := range kalah.Presets() {
		for _, first := range []kalah.Side{kalah.South, kalah.North} {
			r := p.Rules
			r.First = first
			tok := RulesToken(r)
			got, err := ParseRules(tok)
			if err != nil || got != r.Canonical() {
				t.Errorf("ParseRules(%q) = %+v, %v; want %+v", tok, got, err, r)
			}
		}
	}
	r := kalah.Standard()
	r.Seeds = 3
	r.Pie = true
	tok := RulesToken(r)
	if !strings.HasPrefix(tok, "custom,") {
		t.Errorf("custom rules token %q", tok)
	}
	if got, err := ParseRules(tok); err != nil || got != r.Canonical() {
		t.Errorf("ParseRules(%q) = %+v, %v", tok, got, err)
	}
	for _, bad := range []string{"", "nope", "kalah,houses=99", "kalah,colour=red", "kalah,pie"} {
		if _, err := ParseRules(bad); err == nil {
			t.Errorf("ParseRules(%q) accepted", bad)
		}
	}
}

func TestStartEndMoved(t *testing.T) {
	st := Start{Game: "12", Side: kalah.North, Opponent: "alice", Rules: kalah.Standard()}
	m, _ := Parse(st.Msg().String())
	if got, err := ParseStart(m); err != nil || got != st {
		t.Errorf("ParseStart = %+v, %v", got, err)
	}
	e := End{Result: kalah.NorthWins, Termination: kalah.Timeout, South: 10, North: 38}
	if s := e.Msg().String(); s != "end 0-1 timeout 10-38" {
		t.Errorf("end line %q", s)
	}
	m, _ = Parse(e.Msg().String())
	if got, err := ParseEnd(m); err != nil || got != e {
		t.Errorf("ParseEnd = %+v, %v", got, err)
	}
	m, _ = Parse(Moved(kalah.Played{Side: kalah.North, Move: kalah.Swap}).String())
	if s, mv, err := ParseMoved(m); err != nil || s != kalah.North || mv != kalah.Swap {
		t.Errorf("ParseMoved = %v %v %v", s, mv, err)
	}
}

func TestReader(t *testing.T) {
	in := "kalah 1\r\nmove 3\n" + strings.Repeat("x", 20) + "\nlast"
	r := NewReader(strings.NewReader(in), 10)
	want := []string{"kalah 1", "move 3"}
	for _, w := range want {
		got, err := r.ReadLine()
		if err != nil || got != w {
			t.Fatalf("ReadLine = %q, %v; want %q", got, err, w)
		}
	}
	if _, err := r.ReadLine(); !errors.Is(err, ErrTooLong) {
		t.Fatalf("overlong line: %v", err)
	}
	r = NewReader(strings.NewReader("a\nlast"), 10)
	r.ReadLine()
	if got, err := r.ReadLine(); got != "last" || err != nil {
		t.Fatalf("last line %q %v", got, err)
	}
	if _, err := r.ReadLine(); err != io.EOF {
		t.Fatalf("after last line: %v", err)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"move 3", "go 100 0 4,4,4/4,4,4 0-0 S", "end 1-0 normal 20-16", "start 1 S bob kalah", "moved N swap", "login a b", "\xff", "state 0,0/0,0 4-4 N", "kalah 1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := Parse(s)
		if err != nil {
			return
		}
		// A parsed message formats to a line that parses to the same message.
		m2, err := Parse(m.String())
		if err != nil || m2.String() != m.String() {
			t.Fatalf("reparse of %q: %q, %v", m.String(), m2.String(), err)
		}
		if turn, err := ParseTurn(m); err == nil {
			if _, err := ParseTurn(turn.Msg()); err != nil {
				t.Fatalf("turn %q does not reparse: %v", turn.Msg(), err)
			}
		}
		if st, err := ParseStart(m); err == nil {
			if got, err := ParseStart(st.Msg()); err != nil || got.Rules != st.Rules {
				t.Fatalf("start %q does not reparse: %v", st.Msg(), err)
			}
		}
		if e, err := ParseEnd(m); err == nil {
			if got, err := ParseEnd(e.Msg()); err != nil || got != e {
				t.Fatalf("end %q does not reparse: %v", e.Msg(), err)
			}
		}
		ParseMove(m)
		ParseMoved(m)
		CheckGreeting(m)
	})
}

func FuzzReader(f *testing.F) {
	f.Add("a\nb\r\nc", 4)
	f.Add(strings.Repeat("z", 100), 8)
	f.Fuzz(func(t *testing.T, s string, max int) {
		max = max%64 + 1
		if max < 1 {
			max = -max + 1
		}
		r := NewReader(strings.NewReader(s), max)
		for range 1000 {
			l, err := r.ReadLine()
			if err != nil {
				return
			}
			if len(l) > max {
				t.Fatalf("line of %d bytes over limit %d", len(l), max)
			}
		}
	})
}

// FuzzMsgString: a message formats as its command and arguments joined by
// spaces, every control character (isControl) made a space (and, then, a
// byte that is not UTF-8 the replacement character), whatever the
// arguments hold.
func FuzzMsgString(f *testing.F) {
	for _, s := range []string{"moved\x00S 3", "state 4,4/4,4 0-0 S", "error\x7f x", "a\u0085b c\u2028", "\xff\x01 z", "ping", "x\ty"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		fields := strings.Split(s, " ")
		m := Msg{Cmd: fields[0], Args: fields[1:]}
		if len(m.Args) == 0 {
			m.Args = nil
		}
		want := strings.Join(fields, " ")
		if strings.IndexFunc(want, isControl) >= 0 {
			want = strings.Map(func(r rune) rune {
				if isControl(r) {
					return ' '
				}
				return r
			}, want)
		}
		if got := m.String(); got != want {
			t.Fatalf("%#v.String() = %q, want %q", m, got, want)
		}
	})
}
