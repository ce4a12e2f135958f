package match

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"kalah"
	"kalah/referee"
)

// Pairing is one match of an experiment.
type Pairing struct {
	A, B    string
	Summary Summary
	Games   []*Game
}

// Experiment is a set of matches under one design.
type Experiment struct {
	Name     string
	Rules    kalah.Rules
	Games    int           // games a pairing
	Time     time.Duration // each player's own limit a move, and the referee's
	Grace    time.Duration // the referee's slack beyond Time
	Seed     uint64
	Parallel int
	Pairings []Pairing
	Elapsed  time.Duration
	// OnGame, if set, is called after every game with the numbers of games
	// done and in all, for progress bars.
	OnGame func(done, total int)
}

// ThesisAI is one of the thesis's six AIs.
type ThesisAI struct {
	Name string // as the thesis's tables name it
	Spec string // our spec, without the time
}

// ThesisAIs are the thesis's six AIs in the order of its Table 7.
var ThesisAIs = []ThesisAI{
	{"Minimax, simple", "minimax:simple"},
	{"Minimax, knowledge-based", "minimax:knowledge"},
	{"Alpha-beta, simple", "alphabeta:simple"},
	{"Alpha-beta, knowledge-based", "alphabeta:knowledge"},
	{"Knowledge-based alpha-beta, simple", "kbab:simple"},
	{"Knowledge-based alpha-beta, knowledge-based", "kbab:knowledge"},
}

// thesisTable7 is the thesis's Table 7: wins and losses (draws are the
// rest of 48 games for the minimax AIs and of 24 for the others).
var thesisTable7 = [][2]int{{5, 42}, {7, 40}, {22, 2}, {23, 1}, {18, 4}, {19, 5}}

// ThesisPairings returns the pairings of the thesis's design: each minimax
// AI against each alpha-beta and knowledge-based alpha-beta AI (the eight
// match-ups its Tables 1 to 7 report); with all, every pair of the six AIs.
func ThesisPairings(t time.Duration, all bool) [][2]string {
	spec := func(i int) string { return fmt.Sprintf("%s:time=%s", ThesisAIs[i].Spec, t) }
	var ps [][2]string
	for i := range ThesisAIs {
		for j := i + 1; j < len(ThesisAIs); j++ {
			if all || (i < 2 && j >= 2) {
				ps = append(ps, [2]string{spec(i), spec(j)})
			}
		}
	}
	return ps
}

// PekarStrategies are the five options of Pekař's application.
var PekarStrategies = []string{"pekar", "pekar-tree:1", "pekar-tree:2", "pekar-tree:3", "pekar-tree:4"}

// pekarTable1 sums up the paper's Table 1: the computer's wins as first
// and as second player against an experienced person.
var pekarTable1 = map[string][2]string{
	"pekar":        {"10 of 10", "0 of 10"},
	"pekar-tree:1": {"8 of 10", "4 of 10"},
	"pekar-tree:2": {"10 of 10", "3 of 10"},
	"pekar-tree:3": {"10 of 10", "3 of 10"},
	"pekar-tree:4": {"5 of 5", "4 of 5"},
}

// PekarPairings returns the pairings of our version of Pekař's design:
// each strategy against the opponent (who stands in for the paper's
// experienced human), then every pair of strategies.
func PekarPairings(opponent string) [][2]string {
	var ps [][2]string
	for _, s := range PekarStrategies {
		ps = append(ps, [2]string{opponent, s})
	}
	for i := range PekarStrategies {
		for j := i + 1; j < len(PekarStrategies); j++ {
			ps = append(ps, [2]string{PekarStrategies[j], PekarStrategies[i]})
		}
	}
	return ps
}

// Run plays every pairing with forced openings, calling progress (if set)
// after each match.
func (x *Experiment) Run(ctx context.Context, pairs [][2]string, progress func(done, total int, p *Pairing)) error {
	start := time.Now()
	played := 0
	for k, ab := range pairs {
		cfg := Config{A: ab[0], B: ab[1], Rules: x.Rules, Games: x.Games, Seed: x.Seed, Openings: true,
			Parallel: x.Parallel, Referee: referee.Referee{PerMove: x.Time, Grace: x.Grace}}
		p := Pairing{A: ab[0], B: ab[1]}
		sum, err := Run(ctx, cfg, func(g *Game) error {
			p.Games = append(p.Games, g)
			played++
			if x.OnGame != nil {
				x.OnGame(played, len(pairs)*x.Games)
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("%s against %s: %w", ab[0], ab[1], err)
		}
		p.Summary = sum
		x.Pairings = append(x.Pairings, p)
		if progress != nil {
			progress(k+1, len(pairs), &x.Pairings[len(x.Pairings)-1])
		}
	}
	x.Elapsed = time.Since(start)
	return nil
}

// tally is one player's totals over an experiment.
type tally struct {
	games, wins, draws, losses, margin int
	stats                              Stats
}

func (x *Experiment) tallies() map[string]*tally {
	t := map[string]*tally{}
	get := func(s string) *tally {
		if t[s] == nil {
			t[s] = &tally{}
		}
		return t[s]
	}
	for i := range x.Pairings {
		p := &x.Pairings[i]
		s := &p.Summary
		a, b := get(p.A), get(p.B)
		a.games += s.Games
		b.games += s.Games
		a.wins += s.Wins
		a.losses += s.Losses
		b.wins += s.Losses
		b.losses += s.Wins
		a.draws += s.Draws
		b.draws += s.Draws
		a.margin += s.Margin
		b.margin -= s.Margin
		addStats(&a.stats, &s.A)
		addStats(&b.stats, &s.B)
	}
	return t
}

func addStats(dst, src *Stats) {
	dst.Moves += src.Moves
	dst.Time += src.Time
	dst.MaxTime = max(dst.MaxTime, src.MaxTime)
	dst.Nodes += src.Nodes
	dst.Depth += src.Depth
	dst.Reported += src.Reported
	dst.Forfeits += src.Forfeits
}

func pct(w, l int) string {
	if w+l == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f %%", 100*float64(w)/float64(w+l))
}

// header writes the experiment's conditions.
func (x *Experiment) header(w io.Writer) {
	clock := "no time limit"
	if x.Time > 0 {
		clock = fmt.Sprintf("%v a move for each player, enforced by the referee with %v grace", x.Time, x.Grace)
	}
	fmt.Fprintf(w, "Rules %s; %d games a pairing with forced openings (each house in turn, each player first once); "+
		"%s; seed %d; %d game(s) at a time; %d games in %v.\n\n",
		x.Rules, x.Games, clock, x.Seed, max(x.Parallel, 1), x.games(), x.Elapsed.Round(time.Millisecond))
}

// firstMover writes how the games went for the player who moved first.
func (x *Experiment) firstMover(w io.Writer) {
	var won, drawn, lost int
	for i := range x.Pairings {
		for _, g := range x.Pairings[i].Games {
			a, b := g.AScore()
			if !g.AFirst() {
				a, b = b, a
			}
			switch {
			case a > b:
				won++
			case a < b:
				lost++
			default:
				drawn++
			}
		}
	}
	fmt.Fprintf(w, "\nThe player who moved first (playing the forced opening) won %d, drew %d and lost %d of %d games.\n", won, drawn, lost, won+drawn+lost)
}

func (x *Experiment) games() int {
	n := 0
	for i := range x.Pairings {
		n += x.Pairings[i].Summary.Games
	}
	return n
}

// WriteThesis writes the thesis experiment as Markdown: our Table 7 beside
// the thesis's, then every pairing.
func (x *Experiment) WriteThesis(w io.Writer) {
	x.header(w)
	t := x.tallies()
	fmt.Fprintln(w, "| algorithm, utility | wins | draws | losses | win % | mean margin | mean depth | nodes/move | max time | forfeits | thesis: wins | losses | win % |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for i, ai := range ThesisAIs {
		var tl *tally
		for spec, v := range t {
			if strings.HasPrefix(spec, ai.Spec+":") {
				tl = v
			}
		}
		if tl == nil {
			continue
		}
		th := thesisTable7[i]
		fmt.Fprintf(w, "| %s | %d | %d | %d | %s | %+.1f | %.1f | %.0f | %s | %d | %d | %d | %s |\n",
			ai.Name, tl.wins, tl.draws, tl.losses, pct(tl.wins, tl.losses), float64(tl.margin)/float64(max(tl.games, 1)),
			tl.stats.MeanDepth(), tl.stats.MeanNodes(), Dur(tl.stats.MaxTime), tl.stats.Forfeits,
			th[0], th[1], pct(th[0], th[1]))
	}
	fmt.Fprintln(w, "\nEvery pairing, from the first player's view (W-D-L):")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| A | B | W-D-L | mean margin | A nodes/move | B nodes/move |")
	fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|")
	for _, p := range x.Pairings {
		s := &p.Summary
		fmt.Fprintf(w, "| %s | %s | %d-%d-%d | %+.1f | %.0f | %.0f |\n", p.A, p.B, s.Wins, s.Draws, s.Losses, s.MeanMargin(), s.A.MeanNodes(), s.B.MeanNodes())
	}
	x.firstMover(w)
}

// WritePekar writes the Pekař experiment as Markdown: each strategy's games
// against the opponent in the layout of the paper's Table 1, then the
// strategies' round robin.
func (x *Experiment) WritePekar(w io.Writer, opponent string) {
	x.header(w)
	fmt.Fprintf(w, "Each strategy against %s (Player 1, in the human's seat); scores by game, Player 1's row first:\n\n", opponent)
	fmt.Fprintln(w, "| strategy | starting | score | games... |")
	fmt.Fprintln(w, "|---|---|---|---|")
	var rr []Pairing
	for _, p := range x.Pairings {
		if p.A != opponent {
			rr = append(rr, p)
			continue
		}
		for _, oppFirst := range []bool{true, false} {
			var s1, s2 []string
			for _, g := range p.Games {
				if g.AFirst() != oppFirst {
					continue
				}
				a, b := g.AScore()
				s1 = append(s1, fmt.Sprint(a))
				s2 = append(s2, fmt.Sprint(b))
			}
			start := "Player 1"
			if !oppFirst {
				start = "Player 2"
			}
			fmt.Fprintf(w, "| %s | %s | Player 1 | %s |\n", p.B, start, strings.Join(s1, " "))
			fmt.Fprintf(w, "| | | Player 2 | %s |\n", strings.Join(s2, " "))
		}
	}
	fmt.Fprintln(w, "\nTotals against the opponent, from the strategy's view, beside the paper's Table 1 (the computer's wins against a person):")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| strategy | W-D-L first | W-D-L second | mean margin | time/move | max time | nodes/move | paper: won first | won second |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, p := range x.Pairings {
		if p.A != opponent {
			continue
		}
		var first, second [3]int
		for _, g := range p.Games {
			a, b := g.AScore()
			k := 1
			if b > a {
				k = 0
			} else if b < a {
				k = 2
			}
			if g.AFirst() {
				second[k]++
			} else {
				first[k]++
			}
		}
		s := &p.Summary
		paper := pekarTable1[p.B]
		if paper == [2]string{} {
			paper = [2]string{"-", "-"}
		}
		fmt.Fprintf(w, "| %s | %d-%d-%d | %d-%d-%d | %+.1f | %s | %s | %.0f | %s | %s |\n", p.B, first[0], first[1], first[2],
			second[0], second[1], second[2], -s.MeanMargin(), Dur(s.B.MeanTime()), Dur(s.B.MaxTime), s.B.MeanNodes(), paper[0], paper[1])
	}
	if len(rr) == 0 {
		x.firstMover(w)
		return
	}
	fmt.Fprintln(w, "\nThe strategies against each other (A is the deeper or tree strategy), W-D-L from A's view:")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| A | B | W-D-L | mean margin |")
	fmt.Fprintln(w, "|---|---|---:|---:|")
	for _, p := range rr {
		s := &p.Summary
		fmt.Fprintf(w, "| %s | %s | %d-%d-%d | %+.1f |\n", p.A, p.B, s.Wins, s.Draws, s.Losses, s.MeanMargin())
	}
	x.firstMover(w)
}
