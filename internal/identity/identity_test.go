package identity

import (
	"errors"
	"strings"
	"testing"
	"unicode"
)

func TestSkeletonCollides(t *testing.T) {
	same := [][2]string{
		{"alice", "ALICE"}, {"alice", "aIice"}, {"alice", "a1ice"}, {"bobbot", "B0BB0T"},
		{"modern", "rnodern"}, {"wave", "vvave"}, {"deep_kalah", "deep.kalah"}, {"deep-kalah", "Deep_Kalah"},
		{"alice", "alice."}, {"alice", "alice_"}, {"alice.", "alice-"}, {"alice", "_alice"}, {"bob", ".b0b.-"},
	}
	for _, p := range same {
		if Skeleton(p[0]) != Skeleton(p[1]) {
			t.Errorf("Skeleton(%q) = %q, Skeleton(%q) = %q: want the same", p[0], Skeleton(p[0]), p[1], Skeleton(p[1]))
		}
	}
	differ := [][2]string{{"alice", "alicia"}, {"bob", "rob"}, {"bob2", "bob3"}, {"ann", "anne"}, {"alice", "al.ice"}, {"kgp", "kgp-x"}}
	for _, p := range differ {
		if Skeleton(p[0]) == Skeleton(p[1]) {
			t.Errorf("Skeleton(%q) == Skeleton(%q) = %q: want different", p[0], p[1], Skeleton(p[0]))
		}
	}
}

func TestCheckName(t *testing.T) {
	for _, tc := range []struct {
		name string
		want error
	}{
		{"alice", nil}, {"Deep-Kalah.2", nil}, {"a", ErrBadName}, {strings.Repeat("x", 33), ErrBadName},
		{"-alice", ErrBadName}, {"al ice", ErrBadName}, {"al\nice", ErrBadName}, {"élise", ErrBadName},
		{"guest-4f2a", ErrReserved}, {"GUEST-x", ErrReserved}, {"kgp-Agent", ErrReserved}, {"expert", nil},
		{"greedy", nil}, {"kgpx", nil}, {"kgp-", ErrReserved}, {"kgp_x.", ErrReserved}, {"you.", ErrReserved}, {"you", ErrReserved}, {"Y0U", ErrReserved}, {"human", ErrReserved}, {"house-bot", ErrReserved},
	} {
		if err := CheckName(tc.name); !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
			t.Errorf("CheckName(%q) = %v, want %v", tc.name, err, tc.want)
		}
	}
}

func TestIDs(t *testing.T) {
	for _, s := range []string{"user:alice", "bot:Deep-Kalah", "guest:guest-0123456789abcdef", "program:alphabeta:depth=4"} {
		id, err := Parse(s)
		if err != nil || id.String() != s {
			t.Errorf("Parse(%q) = %v, %v", s, id, err)
		}
		b, _ := id.MarshalText()
		var back ID
		if err := back.UnmarshalText(b); err != nil || back != id {
			t.Errorf("text round trip of %q: %v, %v", s, back, err)
		}
	}
	for _, s := range []string{"alice", "user:", "robot:x", ":x"} {
		if _, err := Parse(s); !errors.Is(err, ErrBadID) {
			t.Errorf("Parse(%q): %v, want ErrBadID", s, err)
		}
	}
	if !Of(Bot, "Bob").Is(Of(Bot, "bob")) || Of(Bot, "bob").Is(Of(Person, "bob")) || (ID{}).Is(ID{}) {
		t.Error("Is compares kind and name without case, and the zero ID is nobody")
	}
	a, b := GuestOf("secret-a"), GuestOf("secret-b")
	if a.Is(b) || !a.Is(GuestOf("secret-a")) || a.Kind != Guest || !strings.HasPrefix(a.Name, GuestPrefix) || len(a.Name) != len(GuestPrefix)+16 {
		t.Errorf("guests %v, %v", a, b)
	}
	// A guest shows its whole name: an older release's shortened one
	// could equal a numbered guest's ("guest-123456").
	if d := a.Display(); d != a.Name {
		t.Errorf("display of %v: %q", a, d)
	}
	if g := GuestNumbered(17); g.Display() != "guest-17" || g.Kind != Guest || g.Is(GuestNumbered(170)) || CheckName(g.Name) == nil {
		t.Errorf("numbered guest %v: shown as %q", g, g.Display())
	}
	if (ID{}).String() != "" || Of(Program, "expert").Rated() || !Of(Bot, "x").Rated() {
		t.Error("zero ID, Rated")
	}
}

func TestCleanText(t *testing.T) {
	for in, want := range map[string]string{
		"a\nend 1-0 normal 48-0": "a end 1-0 normal 48-0",
		"  hello \t  world ":     "hello world",
		"x\u202Ey\u200Bz\x00":    "xyz",
		"bad\xffutf8":            "bad\uFFFDutf8",
	} {
		if got := CleanText(in, 0); got != want {
			t.Errorf("CleanText(%q) = %q, want %q", in, got, want)
		}
	}
	if got := CleanText("abcdef", 3); got != "abc" {
		t.Errorf("CleanText to 3 runes = %q", got)
	}
}

func FuzzCleanText(f *testing.F) {
	f.Add("a\nb", 10)
	f.Add("\u202E\r\n\t x", 0)
	f.Fuzz(func(t *testing.T, s string, max int) {
		max = max % 100
		if max < 0 {
			max = -max
		}
		out := CleanText(s, max)
		for _, c := range out {
			if unicode.IsControl(c) || unicode.Is(unicode.Cf, c) || (unicode.IsSpace(c) && c != ' ') {
				t.Fatalf("CleanText(%q) = %q keeps %U", s, out, c)
			}
		}
		if max > 0 && len([]rune(out)) > max {
			t.Fatalf("CleanText(%q, %d) = %q: too long", s, max, out)
		}
		if CleanText(out, max) != out {
			t.Fatalf("CleanText is not idempotent on %q", s)
		}
	})
}
