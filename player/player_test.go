package player

import (
	"testing"
	"time"
)

func TestParseSpec(t *testing.T) {
	s, err := ParseSpec("alphabeta:knowledge:time=2s")
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "alphabeta" || s.Arg(0, "") != "knowledge" || s.Params["time"] != "2s" {
		t.Fatalf("got %+v", s)
	}
	if d, err := s.Duration("time", 0); err != nil || d != 2*time.Second {
		t.Errorf("Duration = %v, %v", d, err)
	}
	if _, err := s.Int("time", 0); err == nil {
		t.Error("Int accepted 2s")
	}
	if got := s.String(); got != "alphabeta:knowledge:time=2s" {
		t.Errorf("String = %q", got)
	}
	if err := s.Check(0, "time"); err == nil {
		t.Error("Check allowed a positional argument")
	}
	if _, err := ParseSpec("x:a=1:a=2"); err == nil {
		t.Error("duplicate parameter accepted")
	}
	if _, err := ParseSpec("  "); err == nil {
		t.Error("empty spec accepted")
	}
}

func TestClock(t *testing.T) {
	for _, tc := range []struct {
		c            Clock
		limit, atMax time.Duration
	}{
		{Clock{}, 0, 0},
		{Clock{PerMove: time.Second}, time.Second, time.Second},
		{Clock{Remaining: time.Minute}, time.Minute, time.Minute / 20},
		{Clock{PerMove: time.Second, Remaining: 500 * time.Millisecond}, 500 * time.Millisecond, 500 * time.Millisecond},
	} {
		if got := tc.c.Limit(); got != tc.limit {
			t.Errorf("%+v.Limit() = %v, want %v", tc.c, got, tc.limit)
		}
		b := tc.c.Budget()
		if tc.atMax == 0 && b != 0 || tc.atMax > 0 && (b <= 0 || b >= tc.atMax || b > tc.c.Limit()) {
			t.Errorf("%+v.Budget() = %v, want in (0, %v)", tc.c, b, tc.atMax)
		}
	}
}
