package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"kalah/internal/cores"
	"kalah/internal/datadir"
	"kalah/player"
	"kalah/server"
	"kalah/tournament"
	"kalah/tournament/dist"
)

func init() {
	register(&command{name: "tournament", summary: "run, resume or show a tournament (round robin, gauntlet, Swiss, SPRT)", run: runTournament})
}

// listFlag collects a flag given several times, each value possibly a
// comma-separated list.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(s string) error {
	for p := range strings.SplitSeq(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			*l = append(*l, p)
		}
	}
	return nil
}

func runTournament(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "tournament", "--players A,B,C... [--system roundrobin|gauntlet|swiss] [--rounds N] [flags]\n       kalah tournament --sprt --players A,B [--elo0 0 --elo1 20]\n       kalah tournament --resume ID | --show ID | --list",
		`Plays a tournament between any players (see kalah players) and prints the
standings: points win 2, draw 1, loss 0; ties broken by total seeds, then
head-to-head points; Elo ratings with 95% intervals. Every pairing plays
each opening from both sides. Every game and move is stored in --db as it
ends, so a tournament stopped at any moment (Ctrl-C, a crash, a kill) goes
on with --resume ID and loses or repeats no game.

Games run --jobs at a time on this machine. They are jobs on NATS
JetStream: with --listen-nats the embedded NATS server takes connections
from "kalah worker --join nats://HOST:PORT" on other machines (see
docs/SCALING.md); --workers-only leaves all the playing to them.

Players bot:NAME are bots logged in to a kalah serve that sent wait (kalah
bot --wait): with --server http://HOST:PORT their games are played on that
server, refereed and stored there and watchable on its page, while the
other games are played here as usual.

On a terminal (or with --chart) the table is followed by each player's Elo
with its 95% interval as a bar, and for an SPRT its likelihood ratio over the
games against its two bounds; --plot FILE.svg draws the Elo (an SPRT: the
likelihood ratio) as an SVG figure. --show draws a stored tournament so too.`)
	rf := addRulesFlags(fs)
	var players listFlag
	fs.Var(&players, "players", "comma-separated player specs, each optionally labelled NAME=SPEC (or give --players several times)")
	fs.Func("player", "one player spec (or NAME=SPEC), taken whole (for specs with commas, such as exec: commands); may be repeated", func(s string) error {
		if s = strings.TrimSpace(s); s == "" {
			return errors.New("empty player spec")
		}
		players = append(players, s)
		return nil
	})
	system := fs.String("system", "roundrobin", "roundrobin, gauntlet (the first player against each other) or swiss")
	rounds := fs.Int("rounds", 1, "rounds: each pairing plays every opening from both sides once a round (Swiss: rounds to pair)")
	openings := fs.String("openings", "none", "none, forced (every first move in turn) or paired (a random opening a pairing, played from both sides)")
	plies := fs.Int("opening-plies", 2, "moves in a paired opening")
	seed := fs.Uint64("seed", 1, "seed for openings and players that draw at random")
	name := fs.String("name", "", "the tournament's name")
	clock := fs.String("clock", "none", "time control preset: none, thesis (30s a move), manchester (1h a game) or rules (the rules preset's own); --time, --budget and --increment override it")
	perMove := fs.Duration("time", 0, "time limit a move (0: none)")
	budget := fs.Duration("budget", 0, "time budget a player and game (0: none)")
	incr := fs.Duration("increment", 0, "time added to the budget after each move")
	grace := fs.Duration("grace", 0, "slack beyond a limit before a move counts as late")
	delay := fs.Duration("delay", 0, "pause before each move (for watching; uncharged)")
	sprt := fs.Bool("sprt", false, "run an SPRT: is the first player stronger than the second?")
	elo0 := fs.Float64("elo0", 0, "SPRT: Elo difference under H0")
	elo1 := fs.Float64("elo1", 20, "SPRT: Elo difference under H1")
	alpha := fs.Float64("alpha", 0.05, "SPRT: false positive rate")
	beta := fs.Float64("beta", 0.05, "SPRT: false negative rate")
	batch := fs.Int("batch", 8, "SPRT: opening pairs a round between tests")
	maxGames := fs.Int("max-games", 10000, "SPRT: stop undecided after this many games")
	dbPath := fs.String("db", "", "SQLite database of tournaments (default: the data directory's one database, kalah.db, beside the server's games; tournaments an older release kept in tournaments.db there are moved in)")
	resume := fs.Int64("resume", 0, "resume tournament ID")
	show := fs.Int64("show", 0, "show tournament ID without playing")
	list := fs.Bool("list", false, "list the stored tournaments")
	games := fs.Bool("games", false, "with --show: list every game (in the JSON too)")
	records := fs.String("records", "", "with --show: write every game's record to this file, one JSON object a line (\"-\": standard output)")
	format := fs.String("format", "table", "output: "+strings.Join(tournament.Formats, ", "))
	nf := addDistFlags(fs)
	sf := addServerFlags(fs)
	verbose := fs.Bool("v", false, "log progress and details to stderr even on a terminal")
	live := fs.Duration("live", 30*time.Second, "print the standings to stderr this often while playing (0: only at the end)")
	cf := addChartFlags(fs, "each player's Elo with its interval (and an SPRT's likelihood ratio against its bounds)",
		"write the players' Elo with their 95% intervals as an SVG figure in FILE.svg (an SPRT: its likelihood ratio over the games against its bounds)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := cf.check(); err != nil {
		return err
	}
	if err := checkPlotFile(cf.plot); err != nil {
		return err
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	if err := atLeast(1, "rounds", *rounds, "opening-plies", *plies, "batch", *batch, "max-games", *maxGames); err != nil {
		return err
	}
	if err := atLeast(0, "jobs", nf.jobs); err != nil {
		return err
	}
	verboseLogs(e, *verbose)
	inDataDir := *dbPath == ""
	if inDataDir {
		*dbPath = datadir.Path("kalah.db")
	}
	if !validFormat(*format) {
		return usagef("--format %q: want %s", *format, strings.Join(tournament.Formats, ", "))
	}
	// The database is opened only once the arguments are known to be
	// good, so a refused command creates nothing; reading commands need it
	// to exist already.
	var st *tournament.Store
	open := func(mustExist bool) error {
		if mustExist {
			_, err := os.Stat(*dbPath)
			if inDataDir && err != nil {
				_, err = os.Stat(datadir.Path("tournaments.db"))
			}
			if err != nil {
				return fmt.Errorf("no tournaments here: %s does not exist; start one with kalah tournament --players A,B, or name the database they are in with --db FILE (or its directory with --data DIR)", *dbPath)
			}
		}
		var err error
		if inDataDir {
			st, err = tournament.OpenDataDir(context.Background(), datadir.Dir())
		} else {
			st, err = tournament.Open(*dbPath)
		}
		return err
	}
	defer func() {
		if st != nil {
			st.Close()
		}
	}()
	if *list || *show != 0 || *resume != 0 {
		if err := open(true); err != nil {
			return err
		}
	}

	// A tournament that is not there: say where it was looked for and
	// how to see the ones that are.
	notFound := func(id int64, err error) error {
		if errors.Is(err, tournament.ErrNotFound) {
			return sayingError{fmt.Sprintf("tournament %d does not exist in %s; %s lists the tournaments there", id, *dbPath,
				strings.Replace(resumeCommand(inDataDir, fs.Lookup("data").Value.String(), *dbPath, id), fmt.Sprintf("--resume %d", id), "--list", 1)), err}
		}
		return err
	}
	switch {
	case *list:
		return listTournaments(ctx, e, st)
	case *show != 0 && *records != "":
		return notFound(*show, writeRecords(ctx, e, st, *show, *records))
	case *show != 0:
		return notFound(*show, showTournament(ctx, e, st, *show, *format, *games, cf))
	case *records != "":
		return usagef("--records goes with --show ID")
	}

	id := *resume
	if id != 0 {
		var setting []string
		fs.Visit(func(f *flag.Flag) {
			switch f.Name {
			case "resume", "db", "format", "live", "chart", "no-chart", "plot", "jobs", "no-nats", "listen-nats", "nats-token", "workers-only", "ack-wait", "nats", "server", "bot-wait":
			default:
				setting = append(setting, "--"+f.Name)
			}
		})
		if len(setting) > 0 {
			return usagef("--resume plays by the settings stored with the tournament; drop %s", strings.Join(setting, " "))
		}
	}
	if id == 0 {
		if len(players) == 0 {
			return usagef("give --players A,B,... (or --resume ID, --show ID, --list)")
		}
		r, err := rf.rules()
		if err != nil {
			return err
		}
		clk, err := tournament.PresetClock(*clock, r)
		if err != nil {
			return usageError{err}
		}
		if given["time"] {
			clk.PerMove = *perMove
		}
		if given["budget"] {
			clk.Budget = *budget
		}
		if given["increment"] {
			clk.Increment = *incr
		}
		clk.Grace, clk.Delay = *grace, *delay
		cfg := tournament.Config{Name: *name, Rounds: *rounds, Rules: r, Seed: *seed, OpeningPlies: *plies, Clock: clk}
		if abs, err := filepath.Abs(filepath.Dir(*dbPath)); err == nil {
			// Programs' standard error, a file a game and side, beside the
			// database (made only when a program writes to it).
			cfg.Logs = filepath.Join(abs, "logs", "tournament-"+time.Now().Format("20060102-150405"))
		}
		for _, p := range players {
			n, spec := tournament.SplitLabel(p)
			cfg.Players = append(cfg.Players, spec)
			cfg.Names = append(cfg.Names, n)
		}
		if cfg.Names, err = entrantNames(cfg.Players, cfg.Names); err != nil {
			return err
		}
		if err := refuseServerBots(cfg.Players, sf.url); err != nil {
			return err
		}
		if err := sf.connect(ctx, e, cfg.Players); err != nil {
			return err
		}
		if cfg.Format, err = tournament.ParseFormat(*system); err != nil {
			return usageError{err}
		}
		if *sprt {
			cfg.Format = tournament.SPRT
			cfg.SPRT = tournament.SPRTConfig{Elo0: *elo0, Elo1: *elo1, Alpha: *alpha, Beta: *beta, Batch: *batch, MaxGames: *maxGames}
		}
		if cfg.Openings, err = tournament.ParseOpenings(*openings); err != nil {
			return usageError{err}
		}
		if cfg.Openings == tournament.NoOpenings && !*sprt {
			if a, b, ok := repeatingPair(cfg.Players); ok {
				e.log.Warn(fmt.Sprintf("%s and %s play the same way every time: with --openings none each of their games repeats from each side, so the standings count one game again and again and the Elo interval means nothing; give --openings paired (or forced) to vary the games", a, b))
			}
		}
		if clk.PerMove == 0 && clk.Budget == 0 {
			for _, p := range cfg.Players {
				_, isBot, _ := server.BotName(p)
				if info, _, err := player.Lookup(p); err == nil && (info.Raw || isBot) {
					e.log.Warn("no time limit: a bot program that hangs stalls its game for ever; give --time or --clock", "player", p)
					break
				}
			}
		}
		check := cfg
		if err := check.Normalize(); err != nil {
			return usageError{err}
		}
		if err := open(false); err != nil {
			return err
		}
		id, err = st.Create(ctx, cfg)
		if err != nil {
			if errors.Is(err, tournament.ErrConfig) {
				return usageError{err}
			}
			return err
		}
		e.note("tournament %d; stopped at any moment, it goes on with: %s", id, resumeCommand(inDataDir, fs.Lookup("data").Value.String(), *dbPath, id))
	} else {
		in, err := st.Tournament(ctx, id)
		if err != nil {
			return notFound(id, err)
		}
		if err := refuseServerBots(in.Config.Players, sf.url); err != nil {
			return err
		}
		if err := sf.connect(ctx, e, in.Config.Players); err != nil {
			return err
		}
		e.note("resuming tournament %d: %d of %d games played", id, in.Played, in.Games)
	}

	exec, stop, err := nf.executor(ctx, e)
	if err != nil {
		return err
	}
	defer stop()
	exec = sf.executor(e, exec)
	prog := newProgressView(e.stderr, e, st, id, *live)
	defer prog.finish()
	err = st.Run(ctx, id, tournament.RunOptions{Executor: exec, Progress: prog.update, Log: e.log})
	prog.finish()
	if err != nil {
		if ctx.Err() != nil {
			e.note("stopped; resume with: %s", resumeCommand(inDataDir, fs.Lookup("data").Value.String(), *dbPath, id))
		}
		return err
	}
	rep, err := st.Report(ctx, id)
	if err != nil {
		return err
	}
	if err := rep.Write(e.stdout, *format); err != nil {
		return err
	}
	return drawTournament(ctx, e, st, id, rep, cf, *format)
}

// entrantNames returns the names entrants are shown under: the names
// given, and for a spec listed more than once without a name, the spec
// numbered ("greedy #1", "greedy #2"), so that the standings tell them
// apart. Two entrants given the same name are refused. It returns nil if
// no entrant needs a name.
func entrantNames(specs, names []string) ([]string, error) {
	count := map[string]int{}
	for i, s := range specs {
		if names[i] == "" {
			count[s]++
		}
	}
	out := slices.Clone(names)
	seen := map[string]int{}
	named := false
	for i, s := range specs {
		if out[i] == "" && count[s] > 1 {
			seen[s]++
			out[i] = fmt.Sprintf("%s #%d", s, seen[s])
		}
		named = named || out[i] != ""
	}
	labels := map[string]bool{}
	for i := range specs {
		l := out[i]
		if l == "" {
			l = specs[i]
		}
		if labels[l] {
			return nil, usagef("two players are called %q: give each its own name (NAME=SPEC)", l)
		}
		labels[l] = true
	}
	if !named {
		return nil, nil
	}
	return out, nil
}

// repeatable reports whether a player always makes the same move in the
// same position: no randomness and no clock (a search to a fixed depth).
// Two such players, from the same side and the same opening, play the
// same game every time.
func repeatable(spec string) bool {
	info, sp, err := player.Lookup(spec)
	if err != nil {
		return false
	}
	switch info.Name {
	case "first", "greedy", "pekar", "pekar-tree":
		return true
	case "minimax", "alphabeta", "kbab":
		_, depth := sp.Params["depth"]
		_, timed := sp.Params["time"]
		return depth && !timed
	}
	return false
}

// repeatingPair returns two players (perhaps one listed twice) that would
// repeat their games without varied openings.
func repeatingPair(specs []string) (a, b string, ok bool) {
	var rep []string
	for _, s := range specs {
		if repeatable(s) {
			rep = append(rep, s)
		}
	}
	if len(rep) < 2 {
		return "", "", false
	}
	return rep[0], rep[1], true
}

// resumeCommand is the command line that goes on with tournament id:
// where the tournament is kept (data, the --data given, or db outside the
// data directory) and its id.
func resumeCommand(inDataDir bool, data, db string, id int64) string {
	switch {
	case !inDataDir:
		return fmt.Sprintf("kalah tournament --db %s --resume %d", db, id)
	case data != "":
		return fmt.Sprintf("kalah tournament --data %s --resume %d", data, id)
	}
	return fmt.Sprintf("kalah tournament --resume %d", id)
}

func validFormat(f string) bool {
	for _, x := range tournament.Formats {
		if f == x {
			return true
		}
	}
	return f == "md"
}

func listTournaments(ctx context.Context, e *env, st *tournament.Store) error {
	ts, err := st.List(ctx)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tSYSTEM\tPLAYERS\tPLAYED\tSTATUS\tCREATED")
	for _, t := range ts {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%d\t%d/%d\t%s\t%s\n", t.ID, t.Name, t.Config.Format, len(t.Config.Players), t.Played, t.Games, t.Status, t.Created.Format(time.DateTime))
	}
	return tw.Flush()
}

func showTournament(ctx context.Context, e *env, st *tournament.Store, id int64, format string, games bool, cf *chartFlags) error {
	rep, err := st.Report(ctx, id)
	if err != nil {
		return err
	}
	var gs []tournament.Played
	if games {
		if gs, err = st.Games(ctx, id); err != nil {
			return err
		}
		if format == "json" {
			rep.Games = gs
		}
	}
	if err := rep.Write(e.stdout, format); err != nil {
		return err
	}
	if err := drawTournament(ctx, e, st, id, rep, cf, format); err != nil {
		return err
	}
	if !games || format == "json" {
		return nil
	}
	ps := rep.Tournament.Config.Labels()
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "\nGAME\tROUND\tSOUTH\tNORTH\tSCORE\tOPENING\tENDED\tWORKER")
	for _, g := range gs {
		op := make([]string, len(g.Opening))
		for i, m := range g.Opening {
			op[i] = m.String()
		}
		fmt.Fprintf(tw, "%d\t%d\t%s\t%s\t%d-%d\t%s\t%s\t%s\n", g.ID, g.Round, ps[g.South], ps[g.North], g.SouthSeeds, g.NorthSeeds, strings.Join(op, " "), g.Termination, g.Worker)
	}
	return tw.Flush()
}

// writeRecords writes every stored game of a tournament as JSON lines, in
// schedule order: the same form as kalah match --record.
func writeRecords(ctx context.Context, e *env, st *tournament.Store, id int64, path string) error {
	gs, err := st.Games(ctx, id)
	if err != nil {
		return err
	}
	w := e.stdout
	if path != "-" {
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		defer f.Close()
		w = f
	}
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	for _, g := range gs {
		rec, err := st.Record(ctx, g.ID)
		if err != nil {
			return err
		}
		if err := enc.Encode(rec); err != nil {
			return err
		}
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if path != "-" {
		e.log.Info("records written", "games", len(gs), "file", path)
	}
	return nil
}

// progressView shows a tournament's progress: a bar with an ETA redrawn on
// a terminal, slog lines every few seconds otherwise, and the standings
// every live interval.
type progressView struct {
	w        io.Writer
	e        *env
	st       *tournament.Store
	id       int64
	tty      bool
	live     time.Duration
	mu       sync.Mutex
	lastLog  time.Time
	lastLive time.Time
	drawn    bool
	// sprt: the tournament is an SPRT run, whose bar shows the
	// likelihood ratio between its bounds: the games scheduled so far say
	// nothing of when it ends.
	sprt bool
}

func newProgressView(w io.Writer, e *env, st *tournament.Store, id int64, live time.Duration) *progressView {
	now := time.Now()
	p := &progressView{w: w, e: e, st: st, id: id, tty: isTerminal(w), live: live, lastLog: now, lastLive: now}
	if in, err := st.Tournament(context.Background(), id); err == nil {
		p.sprt = in.Config.Format == tournament.SPRT
	}
	return p
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0 && os.Getenv("TERM") != "dumb"
}

func (p *progressView) update(pr tournament.Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	if p.live > 0 && now.Sub(p.lastLive) >= p.live {
		p.lastLive = now
		if rep, err := p.st.Report(context.Background(), p.id); err == nil {
			p.clear()
			rep.Write(p.w, "table")
		}
	}
	if p.sprt {
		p.updateSPRT(pr, now)
		return
	}
	if p.tty {
		if now.Sub(p.lastLog) < 100*time.Millisecond && pr.Done < pr.Total {
			return
		}
		p.lastLog = now
		p.clear()
		const width = 30
		frac := float64(pr.Done) / float64(max(pr.Total, 1))
		n := int(frac * width)
		eta := "?"
		if pr.Done >= pr.Total {
			eta = "0s"
		} else if pr.ETA > 0 {
			eta = pr.ETA.Round(time.Second).String()
		}
		fmt.Fprintf(p.w, "[%s%s] %d of %d games scheduled so far %3.0f%%  ETA %s  %.1f games/s", strings.Repeat("#", n), strings.Repeat(".", width-n),
			pr.Done, pr.Total, 100*frac, eta, rate(pr))
		p.drawn = true
		return
	}
	if now.Sub(p.lastLog) >= 5*time.Second || pr.Done == pr.Total {
		p.lastLog = now
		p.e.log.Info("tournament progress", "id", pr.Tournament, "played", pr.Done, "scheduled_so_far", pr.Total,
			"eta", pr.ETA.Round(time.Second), "games_per_s", fmt.Sprintf("%.1f", rate(pr)))
	}
}

// updateSPRT shows an SPRT run's evidence: on a terminal the likelihood
// ratio on a bar between the bounds that end it, elsewhere a line now and
// then.
func (p *progressView) updateSPRT(pr tournament.Progress, now time.Time) {
	wait := 5 * time.Second
	if p.tty {
		wait = 250 * time.Millisecond
	}
	if now.Sub(p.lastLog) < wait && pr.Done < pr.Total {
		return
	}
	st, err := p.st.SPRTResult(context.Background(), p.id)
	if err != nil {
		return
	}
	p.lastLog = now
	if !p.tty {
		p.e.log.Info("sprt progress", "id", pr.Tournament, "games", st.GamesTotal, "llr", st.LLR, "lower", st.Lower, "upper", st.Upper,
			"wins", st.Wins, "draws", st.Draws, "losses", st.Losses, "games_per_s", rate(pr))
		return
	}
	p.clear()
	fmt.Fprintf(p.w, "%s  %s after %s (+%d =%d -%d)  %.1f games/s", sprtBar(st, 30), st.Verdict, count(st.GamesTotal, "game"), st.Wins, st.Draws, st.Losses, rate(pr))
	p.drawn = true
}

// sprtBar draws an SPRT's log-likelihood ratio between its bounds:
// "H0 -2.94 [.........|..#...........] +2.94 H1  llr 0.41", the | at zero
// and the # at the ratio, at an end once it passes a bound.
func sprtBar(st tournament.SPRTState, width int) string {
	span := st.Upper - st.Lower
	at := func(x float64) int {
		if span <= 0 {
			return 0
		}
		i := int(math.Round((x - st.Lower) / span * float64(width-1)))
		return min(max(i, 0), width-1)
	}
	bar := []byte(strings.Repeat(".", width))
	bar[at(0)] = '|'
	bar[at(st.LLR)] = '#'
	return fmt.Sprintf("H0 %+.2f [%s] %+.2f H1  llr %+.2f", st.Lower, bar, st.Upper, st.LLR)
}

func rate(pr tournament.Progress) float64 {
	if pr.Elapsed <= 0 {
		return 0
	}
	return float64(pr.Done) / pr.Elapsed.Seconds()
}

func (p *progressView) clear() {
	if p.drawn {
		fmt.Fprint(p.w, "\r\033[K")
		p.drawn = false
	}
}

func (p *progressView) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		fmt.Fprintln(p.w)
		p.drawn = false
	}
}

// distFlags choose where games are played.
type distFlags struct {
	jobs        int
	noNATS      bool
	listen      string
	token       string
	workersOnly bool
	ackWait     time.Duration
	external    string
}

func addDistFlags(fs *flag.FlagSet) *distFlags {
	d := &distFlags{}
	fs.IntVar(&d.jobs, "jobs", 0, "games played at once on this machine (0: one a core)")
	fs.BoolVar(&d.noNATS, "no-nats", false, "play on this machine with a plain pool of goroutines, without the embedded NATS server")
	fs.StringVar(&d.listen, "listen-nats", "", "let remote workers join the embedded NATS server at this host:port (e.g. 0.0.0.0:4222)")
	fs.StringVar(&d.token, "nats-token", os.Getenv("KALAH_NATS_TOKEN"), "token remote workers must give (default $KALAH_NATS_TOKEN)")
	fs.BoolVar(&d.workersOnly, "workers-only", false, "play no game here: leave them all to remote workers (needs --listen-nats)")
	fs.DurationVar(&d.ackWait, "ack-wait", dist.DefaultAckWait, "replay a game elsewhere when its worker gives no sign of life for this long")
	fs.StringVar(&d.external, "nats", "", "use this NATS server (with JetStream) instead of the embedded one, nats://host:port")
	return d
}

func (d *distFlags) executor(ctx context.Context, e *env) (tournament.Executor, func(), error) {
	if d.noNATS {
		if d.listen != "" || d.workersOnly {
			return nil, nil, usagef("--no-nats cannot take remote workers")
		}
		return tournament.Local{Workers: d.jobs}, func() {}, nil
	}
	if d.external != "" {
		return d.externalExecutor(ctx, e)
	}
	if d.workersOnly && d.listen == "" {
		return nil, nil, usagef("--workers-only needs --listen-nats for the workers to join")
	}
	slots := d.jobs
	if d.workersOnly {
		slots = -1
	}
	emb, err := dist.StartEmbedded(ctx, dist.EmbeddedConfig{Listen: d.listen, Token: d.token, AckWait: d.ackWait, Slots: slots, Log: e.log})
	if err != nil {
		return nil, nil, err
	}
	if u := emb.Server.URL(); u != "" {
		if d.workersOnly {
			e.note("no game is played here: waiting for workers to join (kalah worker --join %s)", u)
		} else {
			e.note("workers on other machines may join: kalah worker --join %s", u)
		}
	}
	return emb.Executor, emb.Close, nil
}

// externalExecutor uses a NATS server run by someone else: the coordinator
// and, unless --workers-only, this machine's workers join it.
func (d *distFlags) externalExecutor(ctx context.Context, e *env) (tournament.Executor, func(), error) {
	if d.listen != "" {
		return nil, nil, usagef("--nats and --listen-nats exclude each other")
	}
	nc, err := dist.Join(d.external, d.token, "kalah coordinator", e.log)
	if err != nil {
		return nil, nil, err
	}
	exec := &dist.Executor{Conn: nc, AckWait: d.ackWait, Log: e.log}
	if d.workersOnly {
		return exec, nc.Close, nil
	}
	wc, err := dist.Join(d.external, d.token, tournament.WorkerName(), nil)
	if err != nil {
		nc.Close()
		return nil, nil, err
	}
	wctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		slots := d.jobs
		if slots <= 0 {
			slots = cores.N()
		}
		(&dist.Worker{Conn: wc, Slots: slots}).Run(wctx)
	}()
	return exec, func() {
		cancel()
		<-done
		wc.Close()
		nc.Close()
	}, nil
}
