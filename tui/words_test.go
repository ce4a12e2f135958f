package tui

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"kalah"
	"kalah/engine"
)

// endgame returns a game started from a position with few seeds left,
// which the perfect player proves at once, and its exact final store
// difference for the side to move, from the engine's own solver.
func endgame(t *testing.T) (*kalah.Game, int) {
	t.Helper()
	r := kalah.Standard()
	pos, err := kalah.ParsePosition("0,0,1,0,2,1/1,0,0,2,0,1 20-19 S")
	if err != nil {
		t.Fatal(err)
	}
	g, err := kalah.NewGameFrom(r, pos)
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.New(r, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.Solve(context.Background(), pos)
	if err != nil || !res.Exact {
		t.Fatalf("solve: %+v, %v", res, err)
	}
	return g, res.Value + pos.Store(kalah.South) - pos.Store(kalah.North)
}

// TestHintInWords checks that a hint says what the move leads to in plain
// words and seeds, and says it is proven only when it is.
func TestHintInWords(t *testing.T) {
	g, final := endgame(t)
	s := newTestSession(t, Config{Opponent: "greedy", Helper: "perfect", Time: 2 * time.Second})
	if err := s.Resume(g); err != nil {
		t.Fatal(err)
	}
	req, err := s.AskHint()
	ev := runReq(t, s, req, err)
	t.Logf("final %+d, hint %q", final, ev.Text)
	var want string
	switch {
	case final > 0:
		want = "you win by " + strconv.Itoa(final) + " with best play"
	case final < 0:
		want = "you lose by " + strconv.Itoa(-final) + " with best play"
	default:
		want = "a draw with best play"
	}
	if !regexp.MustCompile(`^hint from perfect: house [1-6]: `).MatchString(ev.Text) || !strings.HasSuffix(ev.Text, want) {
		t.Errorf("hint %q, want house N: %s", ev.Text, want)
	}
	if ev.Outlook == nil || !ev.Outlook.Exact || ev.Outlook.Final != final {
		t.Errorf("outlook %+v, want proven %+d", ev.Outlook, final)
	}
	if strings.Contains(ev.Text, "depth") || strings.Contains(ev.Text, "line") {
		t.Errorf("engine details in the hint's words: %q", ev.Text)
	}
	if !strings.HasPrefix(ev.Details, "perfect: ") {
		t.Errorf("details %q", ev.Details)
	}

	// A shallow search of the opening proves nothing: an estimate, said so,
	// in seeds rather than the utility's quarter seeds.
	s2 := newTestSession(t, Config{Opponent: "greedy", Helper: "alphabeta:depth=2"})
	req, err = s2.AskHint()
	ev = runReq(t, s2, req, err)
	if !regexp.MustCompile(`^hint from alphabeta:depth=2: house [1-6]: (about [+-]\d+ for you, estimate|about even, estimate)$`).MatchString(ev.Text) {
		t.Errorf("estimated hint %q", ev.Text)
	}
	if ev.Outlook == nil || ev.Outlook.Exact || ev.Outlook.Final*4 < ev.Report.Score-2 || ev.Outlook.Final*4 > ev.Report.Score+2 {
		t.Errorf("estimate %+v from report %+v", ev.Outlook, ev.Report)
	}

	// A player whose scores are not seeds names only its move.
	s3 := newTestSession(t, Config{Opponent: "greedy", Helper: "pekar-tree:2"})
	req, err = s3.AskHint()
	ev = runReq(t, s3, req, err)
	if !regexp.MustCompile(`^hint from pekar-tree:2: house [1-6]$`).MatchString(ev.Text) {
		t.Errorf("hint of a rule-of-thumb player %q", ev.Text)
	}
}

// TestComputerMoveInWords checks that the computer's own move is told in
// words and seeds, its search's details kept apart.
func TestComputerMoveInWords(t *testing.T) {
	s := newTestSession(t, Config{Opponent: "alphabeta:knowledge:depth=3", You: kalah.North})
	ev := drain(t, s)[0]
	if !regexp.MustCompile(`^South \(alphabeta:knowledge:depth=3\) sows house [1-6].* \((about [+-]\d+ for South|about even), estimate\)$`).MatchString(ev.Text) {
		t.Errorf("computer's move %q", ev.Text)
	}
	if !strings.Contains(ev.Details, "depth 3") || !strings.Contains(ev.Details, "in its own units") {
		t.Errorf("details %q", ev.Details)
	}
}

func TestOutlookText(t *testing.T) {
	s := newTestSession(t, Config{Opponent: "greedy"})
	two := newTestSession(t, Config{Opponent: "human"})
	for _, c := range []struct {
		s    *Session
		o    Outlook
		want string
	}{
		{s, Outlook{kalah.South, 8, true}, "you win by 8 with best play"},
		{s, Outlook{kalah.South, -3, true}, "you lose by 3 with best play"},
		{s, Outlook{kalah.North, 3, true}, "North wins by 3 with best play"},
		{s, Outlook{kalah.North, 2, true}, "North wins by 2 with best play"},
		{s, Outlook{kalah.North, 0, true}, "a draw with best play"},
		{s, Outlook{kalah.South, 5, false}, "about +5 for you, estimate"},
		{s, Outlook{kalah.North, -1, false}, "about -1 for North, estimate"},
		{s, Outlook{kalah.North, 0, false}, "about even, estimate"},
		{two, Outlook{kalah.South, 4, true}, "South wins by 4 with best play"},
		{two, Outlook{kalah.South, -4, true}, "North wins by 4 with best play"},
	} {
		if got := c.s.OutlookText(c.o); got != c.want {
			t.Errorf("%+v: %q, want %q", c.o, got, c.want)
		}
	}
}

// TestAnalysisInSeeds checks the a key with the perfect player in an
// endgame: every move's final store difference, proven, best first, as
// the engine's own analysis finds them.
func TestAnalysisInSeeds(t *testing.T) {
	g, _ := endgame(t)
	s := newTestSession(t, Config{Opponent: "greedy", Helper: "perfect", Time: 3 * time.Second})
	if err := s.Resume(g); err != nil {
		t.Fatal(err)
	}
	req, err := s.AskAnalysis()
	if err != nil {
		t.Fatal(err)
	}
	rep := req.Run(context.Background())
	if rep.Err != nil {
		t.Fatal(rep.Err)
	}
	e, err := engine.New(g.Rules(), engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	pos := g.Position()
	vals, err := e.Analyze(context.Background(), pos, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := map[kalah.Move]int{}
	for _, v := range vals {
		if !v.Exact {
			t.Fatalf("the engine did not prove %+v", v)
		}
		want[v.Move] = v.Value + pos.Store(kalah.South) - pos.Store(kalah.North)
	}
	if len(rep.Analysis) != len(want) {
		t.Fatalf("analysis %+v, engine %v", rep.Analysis, want)
	}
	for i, a := range rep.Analysis {
		if !a.InSeeds || !a.Exact || a.Final != want[a.Move] {
			t.Errorf("move %s: %+v, want proven %+d", a.Move, a, want[a.Move])
		}
		if i > 0 && a.Final > rep.Analysis[i-1].Final {
			t.Errorf("not best first: %+v", rep.Analysis)
		}
	}
	ev, err := s.Finish(rep)
	if err != nil {
		t.Fatal(err)
	}
	first := rep.Analysis[0]
	if !strings.Contains(ev.Text, fmt.Sprintf("(final store difference in seeds for you with best play after each move), best first: %s: %+d proven", first.Move, first.Final)) {
		t.Errorf("analysis text %q", ev.Text)
	}
}
