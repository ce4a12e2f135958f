package mkp

import (
	"errors"
	"regexp"
	"testing"

	"kalah"
	"kalah/player"
)

func TestParseReply(t *testing.T) {
	tests := []struct {
		line string
		want kalah.Move
		ok   bool
	}{
		{"MOVE;1\n", 1, true},
		{"MOVE;7\n", 7, true},
		{"MOVE;12\n", 12, true},
		{"SWAP\n", kalah.Swap, true},
		{"MOVE;0\n", kalah.NoMove, true}, // read, then refused by the referee as illegal
		{"MOVE;1\r\n", 0, false},
		{"move;1\n", 0, false},
		{"Move;1\n", 0, false},
		{"MOVE; 1\n", 0, false},
		{"MOVE;1 \n", 0, false},
		{"MOVE;+1\n", 0, false},
		{"MOVE;-1\n", 0, false},
		{"MOVE;\n", 0, false},
		{"MOVE;1", 0, false},
		{"SWAP;\n", 0, false},
		{"swap\n", 0, false},
		{"MOVE;1;2\n", 0, false},
		{"MOVE;99999\n", 0, false},
		{"\n", 0, false},
	}
	for _, tc := range tests {
		m, err := parseReply(tc.line)
		if tc.ok != (err == nil) || tc.ok && m != tc.want {
			t.Errorf("parseReply(%q) = %v, %v", tc.line, m, err)
		}
		if err != nil && !errors.Is(err, player.ErrProtocol) {
			t.Errorf("parseReply(%q): %v is not a protocol error", tc.line, err)
		}
	}
}

var replyForm = regexp.MustCompile(`^(SWAP|MOVE;[0-9]{1,4})\n$`)

// FuzzParseReply checks that only the two exact forms are accepted and that
// everything else is a protocol error, never a panic.
func FuzzParseReply(f *testing.F) {
	for _, s := range []string{"MOVE;3\n", "SWAP\n", "MOVE;3\r\n", "move;3\n", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		m, err := parseReply(line)
		if err != nil {
			if !errors.Is(err, player.ErrProtocol) {
				t.Fatalf("parseReply(%q): %v is not a protocol error", line, err)
			}
			return
		}
		if !replyForm.MatchString(line) {
			t.Fatalf("parseReply accepted %q as %v", line, m)
		}
	})
}
