package kgp

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParse(t *testing.T) {
	tests := []struct {
		line string
		want Command
	}{
		{"kgp 1 0 1\r\n", Command{Name: "kgp", Args: []Arg{Int(1), Int(0), Int(1)}}},
		{"mode freeplay\n", Command{Name: "mode", Args: []Arg{WordArg("freeplay")}}},
		{"4 state <3,0,0,3,3,3,3,3,3>", Command{ID: 4, Name: "state", Args: []Arg{{Kind: Board, Text: "<3,0,0,3,3,3,3,3,3>", Board: []int{3, 0, 0, 3, 3, 3, 3, 3, 3}}}}},
		{"@4 move 1", Command{Ref: 4, Name: "move", Args: []Arg{Int(1)}}},
		{"6@4 stop", Command{ID: 6, Ref: 4, Name: "stop"}},
		{`set info:name "like \" this \\ and\tthat"`, Command{Name: "set", Args: []Arg{WordArg("info:name"), Str("like \" this \\ and\tthat")}}},
		{"x +0 -100 0.0 +3.141 -.123", Command{Name: "x", Args: []Arg{Int(0), Int(-100), {Kind: Real}, {Kind: Real, Real: 3.141}, {Kind: Real, Real: -0.123}}}},
		{"  set   a  b  ", Command{Name: "set", Args: []Arg{WordArg("a"), WordArg("b")}}},
	}
	for _, tc := range tests {
		got, err := Parse(tc.line)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.line, err)
			continue
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("Parse(%q) (-want +got):\n%s", tc.line, diff)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, line := range []string{
		"", "   ", "@ move", "0 ping", "4@0 move 1", "12@ move", "4state", "move 1x!", `set "unterminated`,
		`set a "ends in \`, "state <3,0,", "state <3,,0>", "state <3,-1>", "m\u00e9 1", "move 1.", "move 1.2.3",
		"move 99999999999999999999", strings.Repeat("a", MaxLine+1),
	} {
		if c, err := Parse(line); !errors.Is(err, ErrSyntax) {
			t.Errorf("Parse(%q) = %v, %v; want a syntax error", line, c, err)
		}
	}
}

func TestStringRoundTrip(t *testing.T) {
	cmds := []Command{
		{Name: "kgp", Args: []Arg{Int(1), Int(0), Int(1)}},
		{ID: 7, Ref: 3, Name: "stop"},
		{Name: "set", Args: []Arg{WordArg("info:name"), Str("a \"quoted\" \\ name\nwith a line")}},
		{Name: "set", Args: []Arg{WordArg("not a word"), Str("")}},
		{ID: 9, Name: "state", Args: []Arg{BoardArg([]int{2, 0, 1, 3, 4, 5, 6})}},
	}
	for _, c := range cmds {
		line := c.String()
		got, err := Parse(line)
		if err != nil {
			t.Fatalf("Parse(%q): %v", line, err)
		}
		if got.String() != line {
			t.Errorf("%q reads back as %q", line, got.String())
		}
	}
}

// FuzzParse checks that no line makes Parse panic, and that whatever it
// accepts formats to a line that parses to the same command.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"kgp 1 0 1", "4 state <3,0,0,3,3,3,3,3,3>", "@4 move 1", "6@4 stop",
		`set info:name "x \" y"`, "x +3.5 -.5 word-a:b", "", "@", "\"\\"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		c, err := Parse(line)
		if err != nil {
			if !errors.Is(err, ErrSyntax) {
				t.Fatalf("Parse(%q): error %v is not ErrSyntax", line, err)
			}
			return
		}
		out := c.String()
		c2, err := Parse(out)
		if err != nil {
			t.Fatalf("Parse(%q) gave %+v, which formats as %q, which does not parse: %v", line, c, out, err)
		}
		if c2.String() != out {
			t.Fatalf("%q formats as %q, then as %q", line, out, c2.String())
		}
	})
}

func BenchmarkParse(b *testing.B) {
	line := "17@15 state <8,12,30,0,3,9,1,0,12,4,2,8,0,1,7,3,9,0,5>\r\n"
	for b.Loop() {
		if _, err := Parse(line); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkString(b *testing.B) {
	c := Command{ID: 17, Ref: 15, Name: "state", Args: []Arg{BoardArg([]int{8, 12, 30, 0, 3, 9, 1, 0, 12, 4, 2, 8, 0, 1, 7, 3, 9, 0, 5})}}
	for b.Loop() {
		_ = c.String()
	}
}
