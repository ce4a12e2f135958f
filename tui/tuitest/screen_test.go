package tuitest

import (
	"strings"
	"testing"
)

func TestScreen(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"text and newlines", "ab\r\ncd", "ab\ncd"},
		{"cursor position", "\x1b[2;3Hx\x1b[1;1Hy", "y\n  x"},
		{"styles dropped", "\x1b[1;31mred\x1b[m", "red"},
		{"erase line", "hello\x1b[1;3H\x1b[K", "he"},
		{"erase characters", "hello\x1b[1;2H\x1b[2X", "h  lo"},
		{"insert and delete characters", "abcd\x1b[1;2H\x1b[2@\x1b[1;1H\x1b[1P", "  bcd"},
		{"relative moves", "a\x1b[2Bb\x1b[1A\x1b[3Dc", "a\nc\n b"},
		{"repeat", "x\x1b[3b", "xxxx"},
		{"wrap", "abcdefghijk", "abcdefghij\nk"},
		{"combining stroke", "3\u0336!", "3!"},
		{"osc title", "\x1b]2;title\x07ok", "ok"},
		{"scroll region", "1\r\n2\r\n3\r\n4\x1b[2;3r\x1b[1S", "1\n3\n\n4"},
		{"insert line", "1\r\n2\r\n3\x1b[2;1H\x1b[L", "1\n\n2\n3"},
		{"delete line", "1\r\n2\r\n3\x1b[1;1H\x1b[M", "2\n3"},
		{"clear", "junk\x1b[2Jok", "    ok"},
		{"alternate screen", "main\x1b[?1049h\x1b[Halt", "alt"},
		{"back to the main screen", "main\x1b[?1049h\x1b[Halt\x1b[?1049l", "main"},
		{"private modes ignored", "\x1b[?25l\x1b[>4m\x1b[<1uok", "ok"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(10, 4)
			// Feed one byte at a time too, to split runes and sequences.
			s2 := New(10, 4)
			s.Write([]byte(tt.in))
			for _, b := range []byte(tt.in) {
				s2.Write([]byte{b})
			}
			if got := s.String(); got != tt.want {
				t.Errorf("screen\n%q\nwant\n%q", got, tt.want)
			}
			if got := s2.String(); got != tt.want {
				t.Errorf("byte by byte: screen\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

func TestScreenNeverPanics(t *testing.T) {
	s := New(5, 3)
	junk := "\x1b[999;999H\x1b[99@\x1b[99P\x1b[99L\x1b[99M\x1b[99S\x1b[99T\x1b[0;0r\x1b[5;2r\x1b[99X\x1b[99b\x1b[1J\x1b[0J\b\b\b\t\t\tx\x1bM\x1bM\x1b8\x1b7\x1bc"
	s.Write([]byte(strings.Repeat(junk, 3)))
	_ = s.String()
}
