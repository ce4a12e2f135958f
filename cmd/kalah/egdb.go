package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"kalah"
	"kalah/egdb"
	"kalah/engine"
)

func init() {
	register(&command{name: "egdb", summary: "build, inspect and verify endgame databases", run: runEgdb})
}

func runEgdb(ctx context.Context, e *env, args []string) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprintf(e.stderr, "Usage: kalah egdb build --rules R --seeds K [--out FILE] [--workers N]\n       kalah egdb info FILE\n       kalah egdb verify FILE\n\n"+
			"An endgame database holds the exact value of every configuration of up to K\nseeds in the houses. The default location is %s\n(set KALAH_EGDB_DIR to change it).\n", defaultDirOr())
		if len(args) == 0 {
			return usagef("egdb needs a subcommand: build, info or verify")
		}
		return nil
	}
	switch args[0] {
	case "build":
		return runEgdbBuild(ctx, e, args[1:])
	case "info", "verify":
		fs := newFlags(e, "egdb "+args[0], "FILE", "Prints a database's header ("+args[0]+" also checks every byte against its checksum).")
		if err := parseFlags(fs, args[1:]); err != nil {
			return err
		}
		if fs.NArg() != 1 {
			return usagef("egdb %s needs one file", args[0])
		}
		start := time.Now()
		db, err := egdb.Open(fs.Arg(0), args[0] == "info")
		if err != nil {
			return err
		}
		defer db.Close()
		fmt.Fprintf(e.stdout, "%s: %s\n", fs.Arg(0), db.Describe())
		if args[0] == "verify" {
			fmt.Fprintf(e.stdout, "checksum ok (%v)\n", time.Since(start).Round(time.Millisecond))
		}
		return nil
	}
	return usagef("egdb: unknown subcommand %q (want build, info or verify)", args[0])
}

func defaultDirOr() string {
	d, err := egdb.DefaultDir()
	if err != nil {
		return "(no cache directory: set KALAH_EGDB_DIR)"
	}
	return d
}

func runEgdbBuild(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "egdb build", "--rules R --seeds K [--out FILE]", "Builds the endgame database of every configuration of up to K seeds in the\nhouses (here --seeds is K, not the seeds a house at the start, which never\nchange a database's values).")
	rf := addRulesFlags(fs)
	// --seeds, a rules flag elsewhere (seeds a house at the start), means K
	// here: the seeds a house at the start never change a database's values.
	kFlag := fs.Int("k", 0, "the same as --seeds: most seeds in the houses covered (K)")
	out := fs.String("out", "", "file to write (default: the cache directory, see kalah egdb -h)")
	workers := fs.Int("workers", 0, "goroutines (0: one a core)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	k := kFlag
	switch {
	case rf.seeds.set && *kFlag != 0:
		return usagef("give K once, with --seeds or --k")
	case rf.seeds.set:
		k = &rf.seeds.val
		rf.seeds.set = false // not the rules' seeds a house
	case *kFlag == 0:
		return usagef("egdb build needs --seeds K, the most seeds in the houses to cover")
	}
	r, err := rf.rules()
	if err != nil {
		return err
	}
	if *k < 0 || *k > egdb.MaxSeeds {
		return usagef("--seeds must be 0 to %d", egdb.MaxSeeds)
	}
	if err := egdb.Supported(r); err != nil {
		return usageError{err}
	}
	path := *out
	if path == "" {
		dir, err := egdb.DefaultDir()
		if err != nil {
			return err
		}
		path = filepath.Join(dir, egdb.FileName(r, *k))
	}
	_, err = buildDB(ctx, e, r, *k, *workers, path, false)
	return err
}

// buildDB builds a database with a progress bar (or log lines), writes it to
// path and returns it. With later, the file is written while the command
// goes on with the database in memory (a solve from nothing starts its
// search some 90 ms sooner), and the command ends once it is written; a
// failure to write it is then a warning, since what the command computes
// with the database stands.
func buildDB(ctx context.Context, e *env, r kalah.Rules, k, workers int, path string, later bool) (*egdb.DB, error) {
	start := time.Now()
	total := egdb.Size(r.Houses, k)
	e.log.Info("building endgame database", "rules", r.String(), "seeds", k, "entries", total, "file", path)
	bar := newProgress(e.stderr, "egdb")
	db, err := egdb.Build(ctx, r, k, egdb.BuildOptions{Workers: workers, Progress: bar.update})
	bar.done()
	if err != nil {
		return nil, err
	}
	built := time.Since(start)
	e.log.Info("endgame database built", "entries", total, "time", built.Round(time.Millisecond))
	write := func() error {
		t := time.Now()
		if err := db.WriteFile(path); err != nil {
			return fmt.Errorf("writing %s: %w", path, err)
		}
		e.log.Info("endgame database written", "file", path, "time", time.Since(t).Round(time.Millisecond))
		return nil
	}
	// The database just built is the one written: the command uses it as
	// it is, in memory, rather than reading the file back.
	if later {
		e.background(func() {
			if err := write(); err != nil {
				e.log.Warn("endgame database not saved", "err", err)
			}
		})
		return db, nil
	}
	if err := write(); err != nil {
		return nil, err
	}
	return db, nil
}

// loadDB returns the database a command asked for: a file, or the default
// one for K seeds, built if missing. It returns nil if neither was asked.
func loadDB(ctx context.Context, e *env, r kalah.Rules, file string, seeds int) (*egdb.DB, error) {
	if file != "" {
		db, err := egdb.Load(file)
		if err != nil {
			return nil, err
		}
		if err := db.Check(r); err != nil {
			db.Close()
			return nil, err
		}
		return db, nil
	}
	if seeds <= 0 {
		return nil, nil
	}
	if err := egdb.Supported(r); err != nil {
		return nil, err
	}
	dir, err := egdb.DefaultDir()
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, egdb.FileName(r, seeds))
	db, err := egdb.Load(path)
	switch {
	case err == nil:
		if err := db.Check(r); err != nil {
			db.Close()
			return nil, err
		}
		return db, nil
	case errors.Is(err, os.ErrNotExist):
		return buildDB(ctx, e, r, seeds, 0, path, true)
	}
	return nil, fmt.Errorf("%w (delete it to rebuild)", err)
}

// progress draws a bar on a terminal and logs a line every few seconds
// otherwise.
type progress struct {
	w     io.Writer
	tty   bool
	label string
	last  time.Time
	shown bool
}

func newProgress(w io.Writer, label string) *progress {
	p := &progress{w: w, label: label, last: time.Now()}
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			p.tty = true
		}
	}
	return p
}

func (p *progress) update(done, total uint64) {
	if total == 0 {
		return
	}
	now := time.Now()
	if p.tty {
		if now.Sub(p.last) < 100*time.Millisecond && done != total {
			return
		}
		p.last, p.shown = now, true
		const width = 40
		fill := int(done * width / total)
		fmt.Fprintf(p.w, "\r%s [%s%s] %5.1f%%", p.label, strings.Repeat("#", fill), strings.Repeat(".", width-fill), 100*float64(done)/float64(total))
		return
	}
	if now.Sub(p.last) >= 5*time.Second {
		p.last = now
		fmt.Fprintf(p.w, "%s: %d of %d (%.1f%%)\n", p.label, done, total, 100*float64(done)/float64(total))
	}
}

func (p *progress) done() {
	if p.tty && p.shown {
		fmt.Fprintln(p.w)
	}
}

// addBuildDBFlag adds --build-egdb to the commands that run long (play,
// serve), whose perfect players build their endgame database on first use;
// $KALAH_BUILD_EGDB=0 makes false its default.
func addBuildDBFlag(fs *flag.FlagSet) *bool {
	return fs.Bool("build-egdb", os.Getenv("KALAH_BUILD_EGDB") != "0", fmt.Sprintf("the first time a perfect player is asked for a move (a game against the strongest level, a hint, an analysis;\n"+
		"play: full screen only) in six-house Kalah with the standard end (either capture rule: the variants of its\n"+
		"strategy books) and the data directory lacks their endgame database of %d seeds, build it in the background,\n"+
		"one at a time (once: 1.25 GB, minutes on half the cores; nothing at start, nor for a game against another level);\n"+
		"it plays from it once built, slower beyond its books until then. The build keeps its progress on disk as it goes\n"+
		"(part files as large as the database, removed once it is written): quitting or Ctrl-C stops it, its progress saved,\n"+
		"and the next run goes on from there ($KALAH_BUILD_EGDB=0: false by default; $%s=20: a smaller one,\n"+
		"243 MB, for a machine short of memory)", engine.PerfectDBSeeds, engine.FirstUseSeedsEnv))
}

// dbNotes carries the words of the perfect player's database builds:
// the latest on C (a newer one replaces one not yet read), and the last
// of all in Last.
type dbNotes struct {
	C    chan string
	mu   sync.Mutex
	last string
}

func (n *dbNotes) send(s string) {
	n.mu.Lock()
	n.last = s
	n.mu.Unlock()
	for {
		select {
		case n.C <- s:
			return
		default:
			select {
			case <-n.C:
			default:
			}
		}
	}
}

// Last returns the words of the last report.
func (n *dbNotes) Last() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.last
}

// buildDBOnFirstUse turns the perfect players' builds on (engine.BuildDBOnFirstUse):
// each report is logged, and its words sent as notes, cleared a while
// after the build ends. With screen (the full-screen game shows the
// words) a failure is logged at info level, which a terminal does not
// show: a warning would write over the game.
func buildDBOnFirstUse(e *env, screen bool) *dbNotes {
	warn := e.log.Warn
	if screen {
		warn = e.log.Info
	}
	notes := &dbNotes{C: make(chan string, 1)}
	engine.BuildDBOnFirstUse(func(b engine.DBBuild) {
		pct := 100 * b.Done / max(b.Total, 1)
		switch {
		case b.Elsewhere && !b.Finished:
			e.log.Info("another process builds the perfect player's endgame database: waiting for its file", "rules", b.Rules.String(), "seeds", b.Seeds, "file", b.Path)
			notes.send(fmt.Sprintf("Another kalah process is building the perfect player's endgame database (%d seeds); this one waits for it. Until it is built, perfect play and hints may take longer.", b.Seeds))
		case b.Elsewhere && b.Built:
			e.log.Info("the perfect player's endgame database, built by another process, is here", "rules", b.Rules.String(), "file", b.Path)
			notes.send("The perfect player's endgame database is built (by another kalah process); it plays from it from its next move.")
			time.AfterFunc(20*time.Second, func() { notes.send("") })
		case b.Stopped && b.Elsewhere:
			e.log.Info("no longer waiting for another process's build of the perfect player's endgame database", "file", b.Path)
			notes.send("")
		case b.Stopped:
			e.log.Info("the perfect player's endgame database: its build stopped; its progress is kept, and the next build goes on from there", "rules", b.Rules.String(), "seeds", b.Seeds, "done", fmt.Sprintf("%d%%", pct), "file", b.Path)
			notes.send(fmt.Sprintf("The perfect player's endgame database stopped at %d%%; its progress is kept, and the next time perfect plays or hints it goes on from there.", pct))
		case !b.Finished && b.From > 0 && b.Done == b.From:
			e.log.Info("building the perfect player's endgame database: resuming where the last build stopped", "rules", b.Rules.String(), "seeds", b.Seeds, "done", fmt.Sprintf("%d%%", pct), "file", b.Path)
			notes.send(fmt.Sprintf("Building the perfect player's endgame database (%d seeds, once): %d%%, resumed where the last run stopped. Quitting keeps the progress. Until it is built, perfect play and hints may take longer.", b.Seeds, pct))
		case !b.Finished:
			e.log.Info("building the perfect player's endgame database", "rules", b.Rules.String(), "seeds", b.Seeds, "done", fmt.Sprintf("%d%%", pct), "file", b.Path)
			notes.send(fmt.Sprintf("Building the perfect player's endgame database (%d seeds, once): %d%%. Quitting keeps the progress. Until it is built, perfect play and hints may take longer.", b.Seeds, pct))
		case !b.Built:
			warn("the perfect player's endgame database could not be built", "rules", b.Rules.String(), "err", b.Err)
			notes.send("The perfect player's endgame database could not be built: " + b.Err.Error())
		case b.Err != nil:
			warn("the perfect player's endgame database was built but not saved: this run uses it", "file", b.Path, "err", b.Err)
			notes.send("The perfect player's endgame database was built but could not be saved; this run uses it.")
		default:
			e.log.Info("the perfect player's endgame database is built and saved", "rules", b.Rules.String(), "file", b.Path)
			notes.send("The perfect player's endgame database is built; it plays from it from its next move.")
			time.AfterFunc(20*time.Second, func() { notes.send("") })
		}
	})
	return notes
}

// finishDBBuild waits, once kalah match --build-egdb has played, for
// the perfect player's database being built, as the flag asks, printing
// its progress, until it ends or Ctrl-C, which stops it with its
// progress kept (stopDBBuilds).
func finishDBBuild(ctx context.Context, e *env, notes *dbNotes) {
	fmt.Fprintln(e.stderr, "Finishing the perfect player's endgame database, as --build-egdb asks (Ctrl-C stops it; its progress is kept for the next run).")
	done := make(chan struct{})
	go func() {
		defer close(done)
		engine.WaitDBBuilds(ctx)
	}()
	printed := ""
	say := func(note string) {
		if note != "" && note != printed {
			fmt.Fprintln(e.stderr, "  "+note)
			printed = note
		}
	}
	say(notes.Last()) // where it stands now
	for {
		select {
		case note := <-notes.C:
			say(note)
		case <-done:
			if ctx.Err() != nil {
				stopDBBuilds(e, notes)
			} else {
				say(notes.Last())
			}
			return
		}
	}
}

// stopDBBuilds stops the perfect player's database builds of the process
// (a command ending: kalah play quitting, kalah serve shutting down, an
// interrupted kalah match), which save their progress and remove their
// lock files within about a second, and says where each stopped.
func stopDBBuilds(e *env, notes *dbNotes) {
	defer engine.BuildDBOnFirstUse(nil) // the command is done with them
	if len(engine.DBBuilds()) == 0 {
		engine.StopDBBuilds(context.Background()) // none starts now
		return
	}
	if engine.DBBuildRunning() {
		fmt.Fprintln(e.stderr, "Stopping the perfect player's endgame database build, its progress saved for the next run…")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := engine.StopDBBuilds(ctx); err != nil {
		e.log.Warn("the perfect player's endgame database build did not stop in 30 s: its progress since its last checkpoint is lost", "err", err)
		return
	}
	if notes != nil && notes.Last() != "" {
		fmt.Fprintln(e.stderr, notes.Last())
	}
}
