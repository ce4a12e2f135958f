package setup

import (
	"testing"
	"time"

	_ "kalah/heuristic" // the levels beginner, easy and medium
	"kalah/internal/identity"
	"kalah/server/core"
)

// TestProgramSeatNamesLevels: a level reads the same whether asked for by
// its name or its engine's settings, and a kind asked for by its bare name
// stays that kind, even where a level plays it.
func TestProgramSeatNamesLevels(t *testing.T) {
	for _, c := range []struct{ spec, name, engine string }{
		{"medium", "medium", "pekar-tree:3"},
		{"MEDIUM", "medium", "pekar-tree:3"},
		{"pekar-tree:3", "medium", "pekar-tree:3"},
		{"easy", "easy", "pekar"},
		{"pekar", "pekar", "pekar"},
		{"random", "random", "random"},
		{"pekar-tree:5", "pekar-tree:5", "pekar-tree:5"},
	} {
		st := ProgramSeat(c.spec)
		if st.Name != c.name || st.Spec != c.engine || st.Kind != "spec" || st.ID != identity.Of(identity.Program, c.name) {
			t.Errorf("ProgramSeat(%q) = %+v, want name %q, spec %q, kind spec, id program:%s", c.spec, st, c.name, c.engine, c.name)
		}
	}
}

// TestSetupOfReadsTheTags: a stored game's clock and casualness come back
// from the tags StartGame wrote, and a game without a clock tag has the
// server's.
func TestSetupOfReadsTheTags(t *testing.T) {
	su := SetupOf(map[string]string{core.TagPerMove: "1500", core.TagDelay: "20", core.TagClock: "60000", core.TagInc: "2000", core.TagCasual: "yes"})
	if !su.Casual || su.Ref == nil {
		t.Fatalf("SetupOf = %+v, want casual with a clock", su)
	}
	r := su.Ref
	if r.PerMove != 1500*time.Millisecond || r.Delay != 20*time.Millisecond || r.Budget != time.Minute || r.Increment != 2*time.Second || r.Grace != 250*time.Millisecond {
		t.Errorf("SetupOf's referee = %+v", *r)
	}
	if su := SetupOf(map[string]string{}); su.Casual || su.Ref != nil {
		t.Errorf("SetupOf(no tags) = %+v, want not casual, on the server's clock", su)
	}
}

// TestSeedFor: a seed asked for is kept; none gives each seat its own.
func TestSeedFor(t *testing.T) {
	if got := seedFor(42, 1); got != 42 {
		t.Errorf("seedFor(42, 1) = %d", got)
	}
	if a, b := seedFor(0, 0), seedFor(0, 1); a == 0 || a == b {
		t.Errorf("seedFor(0, seat) = %d, %d: want two different seeds", a, b)
	}
}
