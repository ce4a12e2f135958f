package tui

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"kalah"
	_ "kalah/heuristic"
	"kalah/player"
)

var update = flag.Bool("update", false, "rewrite golden files")

func newTestSession(t *testing.T, cfg Config) *Session {
	t.Helper()
	if cfg.Rules.Houses == 0 {
		cfg.Rules = kalah.Standard()
	}
	if cfg.Helper == "" {
		cfg.Helper = "greedy"
	}
	s, err := NewSession(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// snapshot is what a rejected key must leave alone.
type snapshot struct {
	pos  kalah.Position
	text string
	gen  int
}

func snap(s *Session) snapshot {
	return snapshot{s.Game().Position(), s.Game().String(), s.Generation()}
}

func runReq(t *testing.T, s *Session, req *Request, err error) Event {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	ev, err := s.Finish(req.Run(context.Background()))
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

// drain plays the computer's own moves.
func drain(t *testing.T, s *Session) []Event {
	var evs []Event
	for s.NeedsComputer() {
		req, err := s.Ask()
		evs = append(evs, runReq(t, s, req, err))
	}
	return evs
}

func TestHouseKeys(t *testing.T) {
	s := newTestSession(t, Config{Opponent: "greedy"})
	ev, err := s.Play(3)
	if err != nil {
		t.Fatal(err)
	}
	// Four seeds from South's house 3 reach the store: an extra turn.
	if ev.Played.Effect&kalah.Extra == 0 || !strings.Contains(ev.Text, "moves again") {
		t.Errorf("house 3 from the start: %+v", ev)
	}
	if got := s.Game().Position().String(); got != "4,4,0,5,5,5/4,4,4,4,4,4 1-0 S" {
		t.Errorf("after 3: %s", got)
	}
	if _, err := s.Play(1); err != nil {
		t.Fatal(err)
	}
	if !s.NeedsComputer() {
		t.Fatal("after South's 1 the computer should be to move")
	}
	evs := drain(t, s)
	if len(evs) == 0 || !evs[0].Computer || evs[0].Played.Side != kalah.North {
		t.Fatalf("computer moves: %+v", evs)
	}
	if s.Game().ToMove() != kalah.South {
		t.Errorf("after the computer's turn, %s is to move", s.Game().ToMove())
	}
}

func TestRejectedKeysChangeNothing(t *testing.T) {
	s := newTestSession(t, Config{Opponent: Human})
	// South empties its house 1; North's 3 earns an extra turn and its 1
	// does not reach South's side.
	for _, m := range []kalah.Move{1, 3, 1} {
		if _, err := s.Play(m); err != nil {
			t.Fatal(err)
		}
	}
	if p := s.Game().Position(); p.ToMove() != kalah.South || p.House(kalah.South, 1) != 0 {
		t.Fatalf("set-up: %s", s.Game().Position())
	}
	tests := []struct {
		name string
		move kalah.Move
		want string
	}{
		{"empty house", 1, "house 1 is empty"},
		{"no such house", 7, "there is no house 7"},
		{"zero", 0, "there is no house 0"},
		{"swap without the pie rule", kalah.Swap, "no swap"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := snap(s)
			_, err := s.Play(tt.move)
			if !errors.Is(err, ErrRejected) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Play(%v) = %v, want a rejection saying %q", tt.move, err, tt.want)
			}
			if after := snap(s); after != before {
				t.Errorf("a rejected key changed the game: %+v -> %+v", before, after)
			}
		})
	}
	t.Run("computer's turn", func(t *testing.T) {
		s := newTestSession(t, Config{Opponent: "greedy", You: kalah.North})
		before := snap(s)
		if _, err := s.Play(3); !errors.Is(err, ErrRejected) {
			t.Errorf("a key on the computer's turn: %v", err)
		}
		if snap(s) != before {
			t.Error("changed the game")
		}
	})
}

func TestSpaceMovesForWhoeverIsToMove(t *testing.T) {
	s := newTestSession(t, Config{Opponent: "first"})
	req, err := s.Ask()
	if err != nil {
		t.Fatal(err)
	}
	if req.Own || req.Hint {
		t.Errorf("space on the person's turn: own=%v hint=%v", req.Own, req.Hint)
	}
	ev := runReq(t, s, req, nil)
	// "first" plays the rightmost house: South's 6.
	if ev.Played.Side != kalah.South || ev.Played.Move != 6 || !ev.Computer {
		t.Errorf("space: %+v", ev)
	}
	if s.Game().Len() != 1 {
		t.Errorf("%d moves after one space", s.Game().Len())
	}
}

func TestRestartAndUndoOfRestart(t *testing.T) {
	s := newTestSession(t, Config{Opponent: "greedy"})
	if _, err := s.Play(2); err != nil {
		t.Fatal(err)
	}
	drain(t, s)
	old := s.Game().String()
	s.Restart()
	if s.Game().Len() != 0 || s.Game().Position() != kalah.Standard().Start() {
		t.Fatalf("restart: %s", s.Game().Position())
	}
	if _, err := s.Undo(); err != nil {
		t.Fatal(err)
	}
	if s.Game().String() != old {
		t.Errorf("undo after restart did not bring the old game back:\n%s\nwant\n%s", s.Game(), old)
	}
}

func TestUndo(t *testing.T) {
	s := newTestSession(t, Config{Opponent: "greedy"})
	if _, err := s.Undo(); !errors.Is(err, kalah.ErrNoUndo) || !errors.Is(err, ErrRejected) {
		t.Errorf("undo at the start: %v", err)
	}
	if _, err := s.Play(3); err != nil { // extra turn
		t.Fatal(err)
	}
	mid := s.Game().Position()
	if _, err := s.Play(2); err != nil {
		t.Fatal(err)
	}
	if evs := drain(t, s); len(evs) == 0 {
		t.Fatal("the computer did not move")
	}
	if _, err := s.Undo(); err != nil {
		t.Fatal(err)
	}
	// Back to where the person played 2: that move and the computer's
	// replies are gone, the person is to move.
	if got := s.Game().Position(); got != mid || s.Game().Len() != 1 {
		t.Errorf("after undo: %s (%d moves), want %s", got, s.Game().Len(), mid)
	}
	if _, err := s.Undo(); err != nil {
		t.Fatal(err)
	}
	if s.Game().Len() != 0 {
		t.Errorf("second undo left %d moves", s.Game().Len())
	}

	t.Run("computer moved first", func(t *testing.T) {
		s := newTestSession(t, Config{Opponent: "greedy", You: kalah.North})
		drain(t, s)
		before := snap(s)
		if _, err := s.Undo(); !errors.Is(err, kalah.ErrNoUndo) {
			t.Errorf("undo with no move of the person: %v", err)
		}
		if snap(s) != before {
			t.Error("changed the game")
		}
	})
	t.Run("two people", func(t *testing.T) {
		s := newTestSession(t, Config{Opponent: Human})
		s.Play(1)
		s.Play(1) // North's 1
		if _, err := s.Undo(); err != nil || s.Game().Len() != 1 {
			t.Errorf("undo with two people: %v, %d moves left", err, s.Game().Len())
		}
	})
}

func TestStaleReply(t *testing.T) {
	s := newTestSession(t, Config{Opponent: "greedy"})
	req, _ := s.Ask()
	rep := req.Run(context.Background())
	s.Restart()
	if _, err := s.Finish(rep); !errors.Is(err, ErrStale) {
		t.Errorf("a reply after a restart: %v", err)
	}
	other := newTestSession(t, Config{Opponent: "greedy"})
	req, _ = other.Ask()
	if _, err := s.Finish(req.Run(context.Background())); !errors.Is(err, ErrStale) {
		t.Errorf("another session's reply: %v", err)
	}
}

func TestHint(t *testing.T) {
	s := newTestSession(t, Config{Opponent: "random", Helper: "first"})
	before := snap(s)
	req, err := s.AskHint()
	ev := runReq(t, s, req, err)
	if ev.Played.Move != 6 || !strings.Contains(ev.Text, "hint from first: house 6") {
		t.Errorf("hint from first: %+v", ev)
	}
	if snap(s) != before {
		t.Error("a hint changed the game")
	}
}

func TestPlayToTheEndAndSummary(t *testing.T) {
	var rec bytes.Buffer
	s := newTestSession(t, Config{Opponent: "greedy", Record: &rec})
	for i := 0; !s.Game().Over(); i++ {
		if i > 200 {
			t.Fatal("game did not end")
		}
		req, err := s.Ask() // space, for the person
		runReq(t, s, req, err)
		drain(t, s)
	}
	sum := s.Summary()
	south, north := s.Game().Score()
	if south+north != 48 {
		t.Errorf("stores %d+%d", south, north)
	}
	for _, want := range []string{"Game over", "Final stores", "South (you) " + strconv.Itoa(south), "North (greedy) " + strconv.Itoa(north), "Ended by the rules"} {
		if !strings.Contains(sum, want) {
			t.Errorf("summary %q lacks %q", sum, want)
		}
	}
	if _, err := s.Play(1); !errors.Is(err, ErrRejected) {
		t.Errorf("a key after the end: %v", err)
	}
	// The finished game was recorded, once, and replays to the same end.
	lines := strings.Split(strings.TrimSpace(rec.String()), "\n")
	if len(lines) != 1 {
		t.Fatalf("%d records, want 1:\n%s", len(lines), rec.String())
	}
	var r kalah.Record
	if err := json.Unmarshal([]byte(lines[0]), &r); err != nil {
		t.Fatal(err)
	}
	g, err := r.Game()
	if err != nil {
		t.Fatalf("the record does not replay: %v", err)
	}
	if g.MoveText() != s.Game().MoveText() || g.Result() != s.Game().Result() || r.Final.South != south || r.Players.North != "greedy" || r.Tags["Event"] != "kalah play" {
		t.Errorf("record %s\nreplays to\n%s\nwant\n%s", lines[0], g, s.Game())
	}
	if _, err := s.Ask(); !errors.Is(err, ErrRejected) {
		t.Errorf("space after the end: %v", err)
	}
}

func TestSummaryDraw(t *testing.T) {
	// One house, one seed: South sows into its store and its side is empty.
	r := kalah.Standard()
	r.Houses, r.Seeds = 1, 1
	s := newTestSession(t, Config{Rules: r, Opponent: Human})
	if _, err := s.Play(1); err != nil {
		t.Fatal(err)
	}
	if got, want := s.Summary(), "Game over: a draw, 1-1. Final stores: South 1, North 1. Ended by the rules after 1 moves."; got != want {
		t.Errorf("summary\n%q\nwant\n%q", got, want)
	}
}

// badPlayer always answers with an illegal move.
type badPlayer struct{}

func (badPlayer) Move(context.Context, *kalah.Game, player.Clock) (kalah.Move, error) {
	return 99, nil
}

func init() {
	player.Register(player.Info{Name: "tui-test-illegal", Usage: "tui-test-illegal", Summary: "test: an illegal move",
		New: func(player.Spec, player.Options) (player.Player, error) { return badPlayer{}, nil }})
}

func TestComputerForfeits(t *testing.T) {
	s := newTestSession(t, Config{Opponent: "tui-test-illegal", You: kalah.North})
	evs := drain(t, s)
	if len(evs) != 1 || !strings.Contains(evs[0].Text, "forfeits (illegal-move)") {
		t.Fatalf("events %+v", evs)
	}
	if !s.Game().Over() || s.Game().Result() != kalah.NorthWins {
		t.Errorf("after the forfeit: over=%v result=%s", s.Game().Over(), s.Game().Result())
	}
	if sum := s.Summary(); !strings.Contains(sum, "North (you) wins 48-0") || !strings.Contains(sum, "forfeited (illegal-move)") {
		t.Errorf("summary %q", sum)
	}
	// A person moving with space through a broken helper changes nothing.
	s2 := newTestSession(t, Config{Opponent: "tui-test-illegal"})
	before := snap(s2)
	req, _ := s2.Ask()
	if _, err := s2.Finish(req.Run(context.Background())); err == nil {
		t.Error("an illegal move for the person was accepted")
	}
	if snap(s2) != before {
		t.Error("a failed space changed the game")
	}
}

func TestCaptured(t *testing.T) {
	r := kalah.Standard()
	tests := []struct {
		pos  string
		move kalah.Move
		want int
	}{
		// South's 3 holds 1 seed, 4 is empty, North's 3 (opposite) holds 5.
		{"4,4,1,0,4,4/4,4,5,4,4,4 0-0 S", 3, 6},
		// A full lap: 13 seeds from South's 1 come back to it.
		{"13,0,0,0,0,0/1,1,1,1,1,1 0-0 S", 1, 3},
		// North captures: its 2 has 1 seed, 3 is empty, South's 4 holds 7.
		{"1,1,1,7,1,1/1,1,0,1,1,1 0-0 N", 2, 8},
	}
	for _, tt := range tests {
		p, err := kalah.ParsePosition(tt.pos)
		if err != nil {
			t.Fatal(err)
		}
		q := p
		if eff := q.Play(&r, int(tt.move)); eff&kalah.Capture == 0 {
			t.Fatalf("%s %s: no capture", tt.pos, tt.move)
		}
		if got := captured(p, r, tt.move); got != tt.want {
			t.Errorf("captured(%s, %s) = %d, want %d", tt.pos, tt.move, got, tt.want)
		}
	}
}

func TestParseLine(t *testing.T) {
	tests := []struct {
		line string
		want []KeyKind
	}{
		{"", []KeyKind{KeyRestart}},
		{" ", []KeyKind{KeyComputer}},
		{"   ", []KeyKind{KeyComputer, KeyComputer, KeyComputer}},
		{"3", []KeyKind{KeyHouse}},
		{"3 5,1", []KeyKind{KeyHouse, KeyHouse, KeyHouse}},
		{"m space", []KeyKind{KeyComputer, KeyComputer}},
		{"u h s q ? r enter", []KeyKind{KeyUndo, KeyHint, KeySwap, KeyQuit, KeyHelp, KeyRestart, KeyRestart}},
		{"x 0 17 +3 03", []KeyKind{KeyBad, KeyBad, KeyBad, KeyBad, KeyBad}},
		{"12", []KeyKind{KeyHouse}},
	}
	for _, tt := range tests {
		keys := ParseLine(tt.line)
		var got []KeyKind
		for _, k := range keys {
			got = append(got, k.Kind)
		}
		if len(got) != len(tt.want) {
			t.Errorf("ParseLine(%q) = %v, want %v", tt.line, got, tt.want)
			continue
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("ParseLine(%q) = %v, want %v", tt.line, got, tt.want)
				break
			}
		}
	}
	if k := ParseWord("12"); k.House != 12 {
		t.Errorf("ParseWord(12) = %+v", k)
	}
}

func TestCrossOut(t *testing.T) {
	if got := CrossOut("3"); got != "3\u0336" {
		t.Errorf("CrossOut(3) = %q", got)
	}
	if got := CrossOut(" "); got != "␣\u0336" {
		t.Errorf("CrossOut(space) = %q", got)
	}
}

func TestBoardGolden(t *testing.T) {
	r := kalah.Standard()
	start := r.Start()
	north, _ := kalah.ParsePosition("4,4,0,5,5,5/4,4,4,4,4,4 1-0 N")
	big, _ := kalah.ParsePosition("0,12,1,0,0,0,0,0,3,0/0,1,2,3,4,5,6,7,8,9 20-10 S")
	three, _ := kalah.ParsePosition("3,3,3/3,3,3 0-0 S")
	two, _ := kalah.ParsePosition("1,1/1,1 0-0 N")
	var b strings.Builder
	for _, c := range []struct {
		name string
		b    Board
	}{
		{"start, South to move", Board{Pos: start, Bottom: kalah.South, Names: [2]string{"South (you)", "North (greedy)"}}},
		{"North to move", Board{Pos: north, Bottom: kalah.South}},
		{"seen from North", Board{Pos: north, Bottom: kalah.North, Names: [2]string{"South", "North"}}},
		{"over", Board{Pos: start, Bottom: kalah.South, Over: true}},
		{"ten houses", Board{Pos: big, Bottom: kalah.South}},
		{"three houses: the stores' owners by initial", Board{Pos: three, Bottom: kalah.South}},
		{"two houses, seen from North: initials", Board{Pos: two, Bottom: kalah.North}},
	} {
		b.WriteString("== " + c.name + "\n" + c.b.String())
	}
	golden(t, filepath.Join("testdata", "board.golden"), b.String())
}

func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (go test -update rewrites it):\n%s", path, got)
	}
}

func TestAnalysis(t *testing.T) {
	s := newTestSession(t, Config{Opponent: "greedy", Helper: "pekar-tree:1", Time: 50 * time.Millisecond})
	before := snap(s)
	req, err := s.AskAnalysis()
	if err != nil {
		t.Fatal(err)
	}
	rep := req.Run(context.Background())
	if rep.Err != nil || len(rep.Analysis) != 6 {
		t.Fatalf("analysis of the start: %+v", rep)
	}
	for i := 1; i < len(rep.Analysis); i++ {
		if rep.Analysis[i].Score > rep.Analysis[i-1].Score {
			t.Errorf("not best first: %+v", rep.Analysis)
		}
	}
	ev, err := s.Finish(rep)
	if err != nil || !strings.HasPrefix(ev.Text, "analysis by pekar-tree:1") {
		t.Errorf("analysis text %q, %v", ev.Text, err)
	}
	for h := 1; h <= 6; h++ {
		if !strings.Contains(ev.Text, " "+strconv.Itoa(h)+": ") {
			t.Errorf("analysis %q lacks house %d", ev.Text, h)
		}
	}
	if snap(s) != before {
		t.Error("an analysis changed the game")
	}
	s2 := newTestSession(t, Config{Opponent: "greedy", Helper: "greedy"})
	if _, err := s2.AskAnalysis(); !errors.Is(err, ErrRejected) {
		t.Errorf("analysis by a player without scores: %v", err)
	}
}

func TestSwap(t *testing.T) {
	r := kalah.Standard()
	r.Pie = true
	// The person plays North against "first", which opens with its 6.
	s := newTestSession(t, Config{Rules: r, Opponent: "first", You: kalah.North})
	if evs := drain(t, s); len(evs) != 1 {
		t.Fatalf("opening: %+v", evs)
	}
	if s.Bottom() != kalah.North {
		t.Fatalf("bottom %s before the swap", s.Bottom())
	}
	ev, err := s.Play(kalah.Swap)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(ev.Text, "North (you) swaps sides") {
		t.Errorf("swap: %q", ev.Text)
	}
	// The person now plays South, which the computer had opened with; the
	// board turns so the person's side stays at the bottom.
	if s.Bottom() != kalah.South || s.Label(kalah.South) != "South (you)" {
		t.Errorf("after the swap: bottom %s, South is %q", s.Bottom(), s.Label(kalah.South))
	}
	if _, err := s.Play(kalah.Swap); !errors.Is(err, ErrRejected) {
		t.Errorf("a second swap: %v", err)
	}
}

// botPlayer stands for a bot process: it follows the game and is closed.
type botPlayer struct{ closed *int }

func (botPlayer) Move(_ context.Context, g *kalah.Game, _ player.Clock) (kalah.Move, error) {
	return g.Legal()[0], nil
}
func (botPlayer) Observe(context.Context, *kalah.Game) error { return nil }
func (b botPlayer) Close() error                             { *b.closed++; return nil }

var botClosed int

func init() {
	player.Register(player.Info{Name: "tui-test-bot", Usage: "tui-test-bot", Summary: "test: a bot process",
		New: func(player.Spec, player.Options) (player.Player, error) { return botPlayer{&botClosed}, nil }})
}

func TestBotPlaysOnlyItsSide(t *testing.T) {
	botClosed = 0
	s := newTestSession(t, Config{Opponent: "tui-test-bot", Helper: "first"})
	req, err := s.Ask() // space on the person's turn
	if err != nil {
		t.Fatal(err)
	}
	if req.Who() != "first" {
		t.Errorf("space for the person asked %s, want the helper", req.Who())
	}
	ev := runReq(t, s, req, nil)
	if ev.Played.Move != 6 {
		t.Errorf("the helper (first) should have sown 6: %+v", ev)
	}
	if err := s.Close(); err != nil || botClosed != 1 {
		t.Errorf("Close: %v, bot closed %d times", err, botClosed)
	}
}
