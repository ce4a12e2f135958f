package match

import (
	"bytes"
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"kalah"
	_ "kalah/heuristic"
	"kalah/player"
	"kalah/referee"
	_ "kalah/search"
)

func long(t *testing.T) {
	if os.Getenv("KALAH_LONG") == "" {
		t.Skip("set KALAH_LONG=1 for the long version")
	}
}

// moveLists returns each game's moves and final score, leaving out times.
func moveLists(t *testing.T, cfg Config) []string {
	t.Helper()
	var out []string
	_, err := Run(context.Background(), cfg, func(g *Game) error {
		if len(out) != g.Index {
			t.Fatalf("game %d came back as number %d", g.Index, len(out))
		}
		a, b := g.AScore()
		out = append(out, g.Outcome.Game.MoveText()+" "+string(rune('0'+a%10))+string(rune('0'+b%10)))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Games run in parallel come back in game order and are the same games as
// played one at a time; another seed gives other games.
func TestRunParallelIsOrderedAndDeterministic(t *testing.T) {
	cfg := Config{A: "random", B: "pekar-tree:2", Rules: kalah.Standard(), Games: 10, Seed: 7}
	one := moveLists(t, cfg)
	cfg.Parallel = 4
	four := moveLists(t, cfg)
	if strings.Join(one, "\n") != strings.Join(four, "\n") {
		t.Errorf("parallel games differ:\n%v\n%v", one, four)
	}
	cfg.Seed = 8
	other := moveLists(t, cfg)
	if strings.Join(one, "\n") == strings.Join(other, "\n") {
		t.Error("another seed gave the same games")
	}
}

func TestOpenings(t *testing.T) {
	cfg := Config{A: "pekar", B: "first", Rules: kalah.Standard(), Games: 14, Openings: true, Parallel: 2}
	var games []*Game
	sum, err := Run(context.Background(), cfg, func(g *Game) error { games = append(games, g); return nil })
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range games {
		want := kalah.Move((g.Index/2)%6 + 1)
		first := g.Outcome.Game.Moves()[0]
		if !slices.Equal(g.Opening, []kalah.Move{want}) || first.Move != want || first.Side != kalah.South {
			t.Errorf("game %d opened with %s (%v), want %s", g.Index+1, first.Move, g.Opening, want)
		}
		if rec := g.Record(1); rec.Tags["Opening"] != want.String() {
			t.Errorf("game %d record tags %v", g.Index+1, rec.Tags)
		}
		if g.AFirst() != (g.Index%2 == 0) {
			t.Errorf("game %d: AFirst %v", g.Index+1, g.AFirst())
		}
	}
	// The forced opening is nobody's move: each side made the rest.
	moves := 0
	for _, g := range games {
		moves += g.Outcome.Game.Len() - 1
	}
	if sum.A.Moves+sum.B.Moves != moves {
		t.Errorf("counted %d+%d moves, the games have %d", sum.A.Moves, sum.B.Moves, moves)
	}
}

// With OpeningPlies the pairs of games take the openings of that many
// plies in turn, and round again: Kalah(6,4) has 35 of two plies.
func TestOpeningsOfTwoPlies(t *testing.T) {
	cfg := Config{A: "pekar", B: "first", Rules: kalah.Standard(), Games: 74, Openings: true, OpeningPlies: 2, Parallel: 2}
	lines := kalah.Openings(cfg.Rules, 2)
	if len(lines) != 35 {
		t.Fatalf("%d openings of two plies, want 35", len(lines))
	}
	seen := map[string]int{}
	_, err := Run(context.Background(), cfg, func(g *Game) error {
		want := lines[(g.Index/2)%len(lines)]
		var played []kalah.Move
		for _, m := range g.Outcome.Game.Moves()[:2] {
			played = append(played, m.Move)
		}
		if !slices.Equal(g.Opening, want) || !slices.Equal(played, want) {
			t.Errorf("game %d: opening %v, played %v, want %v", g.Index+1, g.Opening, played, want)
		}
		if tag := g.Record(1).Tags["Opening"]; tag != kalah.MovesText(want) {
			t.Errorf("game %d: Opening tag %q, want %q", g.Index+1, tag, kalah.MovesText(want))
		}
		seen[kalah.MovesText(want)]++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Each opening twice (each player first once), the first two again.
	for i, l := range lines {
		if want := 2 + 2*btoi(i < 2); seen[kalah.MovesText(l)] != want {
			t.Errorf("opening %s played %d times, want %d", kalah.MovesText(l), seen[kalah.MovesText(l)], want)
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// A match that stops early, on an error from a game, from its caller or
// from its context, returns the error and leaves no game running.
func TestRunStopsOnError(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	boom := errors.New("boom")
	cfg := Config{A: "random", B: "first", Rules: kalah.Standard(), Games: 20, Parallel: 3}
	n := 0
	_, err := Run(context.Background(), cfg, func(g *Game) error {
		n++
		if n == 2 {
			return boom
		}
		return nil
	})
	if !errors.Is(err, boom) || n != 2 {
		t.Errorf("Run returned %v after %d games", err, n)
	}
	cfg.B = "no-such-player"
	if _, err := Run(context.Background(), cfg, nil); !errors.Is(err, player.ErrUnknownPlayer) {
		t.Errorf("unknown player: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	cfg.B = "first"
	if _, err := Run(ctx, cfg, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

func TestSummaryAndTables(t *testing.T) {
	cfg := Config{A: "alphabeta:simple:depth=3", B: "random", Rules: kalah.Standard(), Games: 4, Openings: true}
	var games []*Game
	sum, err := Run(context.Background(), cfg, func(g *Game) error { games = append(games, g); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if sum.A.Reported != sum.A.Moves || sum.A.Nodes == 0 || sum.B.Reported != 0 {
		t.Errorf("stats: A %+v, B %+v", sum.A, sum.B)
	}
	var buf bytes.Buffer
	if err := WriteTable(&buf, cfg.A, cfg.B, &sum, true); err != nil {
		t.Fatal(err)
	}
	if err := WriteScores(&buf, games, 3, true); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{"| A alphabeta:simple:depth=3 | 4 |", "| B random | 4 |", "A moved first", "B moved first", "| game | 1 (1) | 3 (2) |"} {
		if !strings.Contains(out, want) {
			t.Errorf("tables lack %q:\n%s", want, out)
		}
	}
}

// The table's exact column is the share of a player's moves played with a
// proven value, rounded down (100% only when every move was), "-" for a
// player that reports nothing.
func TestTableExactShare(t *testing.T) {
	for _, c := range []struct {
		st   Stats
		want string
	}{
		{Stats{Moves: 20, Reported: 12, Exact: 20}, "100%"},
		{Stats{Moves: 250, Reported: 250, Exact: 249}, "99%"},
		{Stats{Moves: 300, Reported: 300, Exact: 1}, "<1%"},
		{Stats{Moves: 30, Reported: 30}, "0%"},
		{Stats{Moves: 30}, "-"},
	} {
		r := row("A x", &Summary{}, &c.st)
		if got := r[len(r)-2]; got != c.want {
			t.Errorf("%+v: exact %q, want %q", c.st, got, c.want)
		}
	}
}

// A player that keeps to its clock is never forfeited, and the table's
// max time shows it; one that oversleeps loses every game on time.
func TestForfeitsCounted(t *testing.T) {
	cfg := Config{A: "sleepy", B: "first", Rules: kalah.Standard(), Games: 2,
		Referee: referee.Referee{PerMove: 5 * time.Millisecond}}
	sum, err := Run(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sum.A.Forfeits != 2 || sum.Losses != 2 || sum.B.Forfeits != 0 {
		t.Errorf("summary %+v", sum)
	}
}

func init() {
	player.Register(player.Info{Name: "sleepy", Usage: "sleepy", Summary: "test: sleeps past any clock",
		New: func(player.Spec, player.Options) (player.Player, error) { return sleepy{}, nil }})
}

type sleepy struct{}

func (sleepy) Move(ctx context.Context, g *kalah.Game, c player.Clock) (kalah.Move, error) {
	select {
	case <-time.After(c.Limit() * 4):
	case <-ctx.Done():
	}
	return g.Legal()[0], nil
}

// playMatch plays a match with forced openings and returns its summary.
func playMatch(t *testing.T, a, b, rules string, games int, perMove time.Duration) Summary {
	t.Helper()
	r, err := kalah.PresetRules(rules)
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{A: a, B: b, Rules: r, Games: games, Seed: 1, Openings: true,
		Referee: referee.Referee{PerMove: perMove, Grace: 500 * time.Millisecond}}
	sum, err := Run(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s vs %s on %s: %d-%d-%d, margin %+.1f, nodes/move %.0f vs %.0f", a, b, rules, sum.Wins, sum.Draws, sum.Losses,
		sum.MeanMargin(), sum.A.MeanNodes(), sum.B.MeanNodes())
	return sum
}

// Alpha-beta beats minimax when both spend the same effort: at depth 8 it
// searches fewer nodes a move than minimax at depth 6, and wins most games.
func TestSanityAlphaBetaBeatsMinimax(t *testing.T) {
	for _, u := range []string{"simple", "knowledge"} {
		for _, rules := range []string{"kalah", "thesis"} {
			s := playMatch(t, "alphabeta:"+u+":depth=8", "minimax:"+u+":depth=6", rules, 12, 0)
			if s.A.MeanNodes() > s.B.MeanNodes() {
				t.Errorf("%s %s: alpha-beta searched %.0f nodes a move, minimax %.0f", u, rules, s.A.MeanNodes(), s.B.MeanNodes())
			}
			if s.Wins <= s.Losses || s.Margin <= 0 {
				t.Errorf("%s %s: alpha-beta %d-%d-%d against minimax", u, rules, s.Wins, s.Draws, s.Losses)
			}
		}
	}
}

// The same at equal time, on the thesis's board with a short clock.
func TestSanityAlphaBetaBeatsMinimaxTimed(t *testing.T) {
	long(t)
	s := playMatch(t, "alphabeta:knowledge:time=100ms", "minimax:knowledge:time=100ms", "thesis", 12, 100*time.Millisecond)
	if s.Wins <= s.Losses {
		t.Errorf("alpha-beta %d-%d-%d against minimax at equal time", s.Wins, s.Draws, s.Losses)
	}
}

// A deeper pekar-tree beats a shallower one over games with every opening.
func TestSanityDeeperPekarTreeWins(t *testing.T) {
	for _, rules := range []string{"kalah", "thesis"} {
		s := playMatch(t, "pekar-tree:4", "pekar-tree:1", rules, 12, 0)
		if s.Points() <= 2*s.Games-s.Points() {
			t.Errorf("%s: pekar-tree:4 %d-%d-%d against pekar-tree:1", rules, s.Wins, s.Draws, s.Losses)
		}
	}
}

// Every player that looks ahead or follows Pekař's rules beats random in
// nearly every game.
func TestSanityEveryPlayerBeatsRandom(t *testing.T) {
	players := []string{"pekar", "pekar-tree:1", "pekar-tree:4", "minimax:simple:depth=3", "minimax:knowledge:depth=3",
		"alphabeta:simple:depth=5", "alphabeta:knowledge:depth=5", "kbab:simple:depth=5", "kbab:knowledge:depth=5"}
	games := 10
	if os.Getenv("KALAH_LONG") != "" {
		games = 50
	}
	for _, p := range players {
		s := playMatch(t, p, "random", "kalah", games, 0)
		if s.Wins < games*9/10 {
			t.Errorf("%s won only %d of %d games against random", p, s.Wins, games)
		}
	}
}

// swapper swaps whenever the pie rule lets it, and otherwise plays its
// first legal house.
type swapper struct{}

func (swapper) Move(ctx context.Context, g *kalah.Game, c player.Clock) (kalah.Move, error) {
	legal := g.Legal()
	for _, m := range legal {
		if m == kalah.Swap {
			return m, nil
		}
	}
	return legal[0], nil
}

func init() {
	player.Register(player.Info{Name: "test-swapper", Usage: "test-swapper", Summary: "swaps when it may",
		New: func(player.Spec, player.Options) (player.Player, error) { return swapper{}, nil }})
}

// After a pie-rule swap the player who started South plays North: each
// game's sides and stores are told as they are at the end.
func TestSwapAwareSides(t *testing.T) {
	r, _ := kalah.PresetRules("manchester")
	var games []*Game
	sum, err := Run(context.Background(), Config{A: "greedy", B: "test-swapper", Rules: r, Games: 2}, func(g *Game) error {
		games = append(games, g)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Game 1: A starts South and moves first, B swaps: A ends North.
	g := games[0]
	if !g.Outcome.Game.Swapped() || !g.ASouth || g.ASide() != kalah.North {
		t.Fatalf("game 1: swapped %v, A started South %v, A ends %v", g.Outcome.Game.Swapped(), g.ASouth, g.ASide())
	}
	s, n := g.Outcome.Game.Score()
	if a, b := g.AScore(); a != n || b != s {
		t.Errorf("game 1: A %d, B %d; South %d, North %d (A is North)", a, b, s, n)
	}
	// Game 2: B starts South; A, second, may swap but greedy does not.
	if games[1].Outcome.Game.Swapped() || games[1].ASide() != kalah.North {
		t.Errorf("game 2: swapped %v, A ends %v", games[1].Outcome.Game.Swapped(), games[1].ASide())
	}
	wins := 0
	for _, g := range games {
		a, b := g.AScore()
		if a > b {
			wins++
		}
	}
	if sum.Wins != wins {
		t.Errorf("summary: A won %d, the games say %d", sum.Wins, wins)
	}
}
