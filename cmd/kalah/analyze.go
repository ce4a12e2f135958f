package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"kalah"
	"kalah/engine"
	"kalah/internal/chart"
)

func init() {
	register(&command{name: "analyze", summary: "value every legal move of a position, exactly or within a time limit", run: runAnalyze})
}

func runAnalyze(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "analyze", "[--position P | --game FILE [--plot FILE.svg] [--chart|--no-chart]] [--time D] [--json] [--egdb FILE|--egdb-seeds K]",
		"Values every legal move for the side to move: exact values (the final store\ndifference it can force after the move, less the current one), or with --time\nthe best estimates within the limit and the depth of each.\n\nWith --game, values every position of a game (a record as kalah match\n--record or the web page writes it, the text notation, or bare moves under\nthe rules flags; - reads standard input): its exact value, an optimal move,\nand what the move played gave away. Exact unless the rules have more than\n48 seeds, or --time is given: then a position not proven within --time\n(default 1s) gets an estimate, marked as one. On a terminal (or with --chart)\nthe table is followed by a chart of the value over the plies from South's\nview, with B under each blunder and m under each mistake; --plot FILE.svg\ndraws it as an SVG figure.")
	rf := addRulesFlags(fs)
	ef := addEngineFlags(fs)
	limit := fs.Duration("time", 0, "time limit (0: solve exactly)")
	gameFile := fs.String("game", "", "analyze every position of the game in FILE (- for standard input)")
	cf := addChartFlags(fs, "the game's value over its plies", "with --game: draw the game's value over its plies, its mistakes and blunders marked, as an SVG figure in FILE.svg")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := cf.check(); err != nil {
		return err
	}
	if err := checkPlotFile(cf.plot); err != nil {
		return err
	}
	if *limit < 0 || *limit > 7*24*time.Hour {
		return usagef("--time %v: want 0 (solve exactly) or a positive duration up to a week", *limit)
	}
	r, err := rf.rules()
	if err != nil {
		return err
	}
	if *gameFile != "" {
		if *ef.position != "" {
			return usagef("--game and --position: give one")
		}
		timeSet := false
		fs.Visit(func(f *flag.Flag) { timeSet = timeSet || f.Name == "time" })
		return runAnalyzeGame(ctx, e, r, ef, cf, *gameFile, *limit, timeSet)
	}
	if cf.plot != "" || cf.on {
		return usagef("--plot and --chart draw a whole game: give --game FILE")
	}
	ef.analyze = true
	st := newStatus(e, "analyzing")
	p, eng, closeDB, err := ef.setup(ctx, e, r, st)
	if err != nil {
		return err
	}
	defer closeDB()
	start := time.Now()
	vals, err := eng.Analyze(ctx, p, *limit)
	st.done()
	if err != nil {
		return err
	}
	// Best first; equal values in house order.
	sort.SliceStable(vals, func(i, j int) bool { return vals[i].Value > vals[j].Value })
	if *ef.jsonOut {
		out := struct {
			Rules    kalah.Rules        `json:"rules"`
			Position string             `json:"position"`
			ToMove   kalah.Side         `json:"to_move"`
			Moves    []engine.MoveValue `json:"moves"`
			TimeMS   float64            `json:"time_ms"`
			Verdict  string             `json:"verdict,omitempty"`
		}{r, p.String(), p.ToMove(), vals, float64(time.Since(start).Microseconds()) / 1000, analyzeVerdict(p, vals)}
		if out.Moves == nil {
			out.Moves = []engine.MoveValue{}
		}
		return json.NewEncoder(e.stdout).Encode(out)
	}
	fmt.Fprintf(e.stdout, "rules:    %s\nposition: %s\n", r, p)
	if len(vals) == 0 {
		fmt.Fprintln(e.stdout, "the game is over")
		return nil
	}
	for i, v := range vals {
		kind := "exact"
		if !v.Exact {
			kind = fmt.Sprintf("estimate, depth %d", v.Depth)
		}
		mark := ""
		if v.Value == vals[0].Value {
			mark = "  <- best"
			if i > 0 || len(vals) > 1 && vals[1].Value == v.Value {
				mark = "  <- best (equal)"
			}
		}
		what := outcome(p, v.Value+diff(p))
		if !v.Exact {
			what = estimate(p, v.Value+diff(p))
		}
		fmt.Fprintln(e.stdout, strings.TrimRight(fmt.Sprintf("move %-5s %+4d  %-44s%s", v.Move, v.Value, "("+kind+": "+what+")", mark), " "))
	}
	fmt.Fprintf(e.stdout, "verdict:  %s\n", analyzeVerdict(p, vals))
	if vals[0].Book {
		fmt.Fprintln(e.stdout, "source:   the built-in opening book (--no-book to search)")
		fmt.Fprintf(e.stdout, "time:     %v\n", time.Since(start).Round(time.Microsecond))
		return nil
	}
	fmt.Fprintf(e.stdout, "time:     %v\n", time.Since(start).Round(time.Millisecond))
	return nil
}

// analyzeVerdict sums up the values of every move (best first) in words,
// exact or estimated.
func analyzeVerdict(p kalah.Position, vals []engine.MoveValue) string {
	if len(vals) == 0 {
		return ""
	}
	exact := true
	for _, v := range vals {
		exact = exact && v.Exact
	}
	best := vals[0]
	final := best.Value + diff(p)
	if !exact {
		return fmt.Sprintf("an estimate, not proven: %s with the best move found, %s (searched %d plies deep)", estimate(p, final), best.Move, best.Depth)
	}
	var winning []kalah.Move
	for _, v := range vals {
		if v.Value+diff(p) > 0 {
			winning = append(winning, v.Move)
		}
	}
	v := outcome(p, final) + " with best play"
	switch {
	case len(winning) == 1:
		v += "; the only winning move is " + winning[0].String()
	case len(winning) > 1:
		v += fmt.Sprintf("; %d moves win (%s), the best is %s", len(winning), list(winning), best.Move)
	case final == 0:
		v += "; the best move, " + best.Move.String() + ", draws"
	default:
		v += "; every move loses, the best defence is " + best.Move.String()
	}
	return v
}

// estimate says in words where an estimated final store difference for
// the side to move of p leaves the game: "South ahead by about 4".
func estimate(p kalah.Position, final int) string {
	me := p.ToMove()
	switch {
	case final > 0:
		return fmt.Sprintf("%s ahead by about %d", me, final)
	case final < 0:
		return fmt.Sprintf("%s ahead by about %d", me.Other(), -final)
	}
	return "about level"
}

// maxExactGameSeeds is the most seeds in all of the rules whose games kalah
// analyze --game solves exactly by default: Kalah(6,4) takes a second or
// two a game, Kalah(6,5) minutes for a single early position.
const maxExactGameSeeds = 48

// readGame reads a game record: JSON (one record, as kalah match --record
// writes a line), the text notation, or bare moves under rules r.
func readGame(e *env, r kalah.Rules, name string) (*kalah.Game, error) {
	in := e.stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		in = f
	}
	data, err := io.ReadAll(io.LimitReader(in, 16<<20))
	if err != nil {
		return nil, err
	}
	text := strings.TrimSpace(string(data))
	switch {
	case text == "":
		return nil, errors.New("the game is empty")
	case strings.HasPrefix(text, "{"):
		line, _, _ := strings.Cut(text, "\n")
		g := new(kalah.Game)
		if err := json.Unmarshal([]byte(line), g); err != nil {
			return nil, fmt.Errorf("the game record: %w", err)
		}
		return g, nil
	}
	g, err := readGameText(r, text)
	if err != nil {
		return nil, fmt.Errorf("the game: %w", err)
	}
	return g, nil
}

// gamePly is one line of kalah analyze --game's JSON.
type gamePly struct {
	Ply      int        `json:"ply"`
	Position string     `json:"position"`
	ToMove   kalah.Side `json:"to_move"`
	// Final is the final store difference the side to move can force,
	// its store less the other's (Value plus the difference now).
	Final int `json:"final"`
	engine.PlyValue
	Loss int `json:"loss,omitempty"` // what the move played gave away
}

func runAnalyzeGame(ctx context.Context, e *env, flagRules kalah.Rules, ef *engineFlags, cf *chartFlags, name string, limit time.Duration, timeSet bool) error {
	g, err := readGame(e, flagRules, name)
	if err != nil {
		return err
	}
	r := g.Rules()
	if !timeSet && r.TotalSeeds() > maxExactGameSeeds {
		limit = time.Second
	}
	switch {
	case *ef.ttMB < 0 || *ef.threads < 1 || *ef.threads > 256 || *ef.ttMB > 1<<20:
		return usagef("--tt-mb must be 0 to %d and --threads 1 to 256", 1<<20)
	case *ef.egdbSeeds < -1 || *ef.egdbSeeds > 40:
		return usagef("--egdb-seeds %d: want 0 (none) to 40", *ef.egdbSeeds)
	}
	seeds := *ef.egdbSeeds
	if seeds < 0 && *ef.egdbFile == "" {
		seeds = autoSeeds(r, r.TotalSeeds())
	}
	db, err := loadDB(ctx, e, r, *ef.egdbFile, max(seeds, 0))
	if err != nil {
		return err
	}
	if db != nil {
		defer db.Close()
	}
	mb := autoTableMB(*ef.ttMB, r.TotalSeeds())
	if limit > 0 && *ef.ttMB == 0 {
		mb = 256 // estimates within a limit: no table of gigabytes to clear
	}
	eng, err := engine.New(r, engine.Options{TableMB: mb, Threads: *ef.threads, DB: db, NoBook: *ef.noBook})
	if err != nil {
		return err
	}
	var moves []kalah.Move
	for _, m := range g.Moves() {
		moves = append(moves, m.Move)
	}
	st := newStatus(e, "analyzing")
	start := time.Now()
	vals, err := eng.AnalyzeGame(ctx, g.Start(), moves, limit)
	st.done()
	if err != nil {
		return err
	}
	took := time.Since(start)
	out := make([]gamePly, len(vals))
	var nodes uint64
	estimates := 0
	for i, v := range vals {
		p := g.PositionAt(i)
		out[i] = gamePly{Ply: i, Position: p.String(), ToMove: p.ToMove(), Final: v.Value + diff(p), PlyValue: v}
		if v.Played != kalah.NoMove {
			out[i].Loss = max(v.Value-v.PlayedValue, 0)
		}
		nodes += v.Nodes
		if !v.Exact {
			estimates++
		}
	}
	if cf.plot != "" {
		title := fmt.Sprintf("South %s, North %s: the value over the plies", orDash(g.Player(kalah.South)), orDash(g.Player(kalah.North)))
		if err := writePlot(e, cf.plot, func(w io.Writer) error { return chart.GameSVG(w, title, gameChartPlies(out)) }); err != nil {
			return err
		}
	}
	if *ef.jsonOut {
		return json.NewEncoder(e.stdout).Encode(struct {
			Rules     kalah.Rules `json:"rules"`
			Plies     []gamePly   `json:"plies"`
			Nodes     uint64      `json:"nodes"`
			TimeMS    float64     `json:"time_ms"`
			Estimates int         `json:"estimates"`
		}{r, out, nodes, float64(took.Microseconds()) / 1000, estimates})
	}
	fmt.Fprintf(e.stdout, "rules: %s\n\n%4s  %-7s %-6s %-5s %-36s %s\n", r, "ply", "to move", "played", "best", "value with best play", "the move played")
	for _, o := range out {
		p := g.PositionAt(o.Ply)
		if p.Over(&r) {
			fmt.Fprintf(e.stdout, "%4d  game over: %s\n", o.Ply, outcome(p, diff(p)))
			continue
		}
		what := outcome(p, o.Final)
		if !o.Exact {
			what = "~ " + estimate(p, o.Final) + fmt.Sprintf(" (depth %d)", o.Depth)
		}
		played, verdict := "-", ""
		if o.Played != kalah.NoMove {
			played = o.Played.String()
			verdict = "best"
			if o.Loss > 0 {
				verdict = fmt.Sprintf("gives away %d (%s)", o.Loss, lossClass(o.Loss, o.Final, o.Final-o.Loss, o.Exact && o.PlayedExact))
			}
			if !o.Exact || !o.PlayedExact {
				verdict = "~ " + verdict // from estimates
			}
		}
		fmt.Fprintln(e.stdout, strings.TrimRight(fmt.Sprintf("%4d  %-7s %-6s %-5s %-36s %s", o.Ply, o.ToMove, played, o.Best, what, verdict), " "))
	}
	kind := "every value exact"
	if estimates > 0 {
		kind = fmt.Sprintf("%d of %d values are estimates (marked ~)", estimates, len(out))
	}
	fmt.Fprintf(e.stdout, "\n%s; %d nodes, %v\n", kind, nodes, took.Round(time.Millisecond))
	if cf.terminal(e) {
		printChart(e, func() (string, error) { return chart.GameText(gameChartPlies(out), chartCols(e, 8)) })
	}
	return nil
}

// gameChartPlies turns kalah analyze --game's values into the chart's:
// each from South's view, each move marked by what it gave away as
// lossClass names it.
func gameChartPlies(out []gamePly) []chart.Ply {
	ps := make([]chart.Ply, len(out))
	for i, o := range out {
		v := o.Final
		if o.ToMove != kalah.South {
			v = -v
		}
		ps[i] = chart.Ply{Value: float64(v), Loss: o.Loss, Mover: o.ToMove.String()}
		if o.Played == kalah.NoMove {
			continue
		}
		switch lossClass(o.Loss, o.Final, o.Final-o.Loss, o.Exact && o.PlayedExact) {
		case "a mistake":
			ps[i].Mark = chart.Mistake
		case "a blunder":
			ps[i].Mark = chart.Blunder
		}
	}
	return ps
}

// orDash is s, or "-" for a player without a name.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// lossClass names a move by what it gave away, as the web page does
// (docs/API.md, "Analysis marks"): one seed (a loss of 1 or 2 in the final
// difference) an inaccuracy, two or three a mistake, four or more, or a
// proven result thrown away (best and played are the final differences for
// the mover), a blunder.
func lossClass(loss, best, played int, exact bool) string {
	seeds := (loss + 1) / 2
	switch {
	case loss <= 0:
		return "best"
	case seeds >= 4, exact && cmp.Compare(played, 0) < cmp.Compare(best, 0):
		return "a blunder"
	case seeds >= 2:
		return "a mistake"
	}
	return "an inaccuracy"
}
