package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"kalah"
	"kalah/book"
	"kalah/engine"
)

func init() {
	register(&command{name: "book", summary: "build and inspect opening books (exact values near the start)", run: runBook})
}

func runBook(ctx context.Context, e *env, args []string) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprint(e.stderr, "Usage: kalah book build [--rules R --seeds S ...] --plies N [--out FILE]\n       kalah book strategy [--rules R --seeds S ...] [--plies N] [--nodes L] [--out FILE]\n       kalah book count [--rules R ...] --plies N\n       kalah book info [FILE...]\n\n"+
			"An opening book holds the exact value of every move in every position\nwithin N plies of the start; a strategy book, the optimal moves of every\nposition the perfect player meets from there, whatever its opponent plays,\nuntil its own search answers at once. The books built into this binary\nanswer solve, analyze, hints, the perfect player and the web page's\nanalysis at once; info with no file lists them.\n")
		if len(args) == 0 {
			return usagef("book needs a subcommand: build, strategy, count or info")
		}
		return nil
	}
	switch args[0] {
	case "build":
		return runBookBuild(ctx, e, args[1:])
	case "strategy":
		return runBookStrategy(ctx, e, args[1:])
	case "count":
		return runBookCount(e, args[1:])
	case "info":
		fs := newFlags(e, "book info", "[FILE...]", "Checks and describes book files, or with no file the books built into kalah.")
		if err := parseFlags(fs, args[1:]); err != nil {
			return err
		}
		if fs.NArg() == 0 {
			books, err := book.Embedded()
			for _, b := range books {
				name := book.FileName(b.Variant())
				if b.Kind() == book.Strategy {
					name = book.StrategyFileName(b.Variant())
				}
				fmt.Fprintf(e.stdout, "built in: %s (%s)\n", b.Describe(), name)
			}
			if len(books) == 0 && err == nil {
				fmt.Fprintln(e.stdout, "no opening book is built in")
			}
			return err
		}
		for _, path := range fs.Args() {
			b, err := book.ReadFile(path)
			if err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "%s: %s\n", path, b.Describe())
		}
		return nil
	}
	return usagef("book: unknown subcommand %q (want build, strategy, count or info)", args[0])
}

func runBookCount(e *env, args []string) error {
	fs := newFlags(e, "book count", "[--rules R ...] --plies N", "Counts the positions a book of N plies holds, by the ply they are first reached at.")
	rf := addRulesFlags(fs)
	plies := fs.Int("plies", 4, "moves from the start")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	r, err := rf.rules()
	if err != nil {
		return err
	}
	if *plies < 0 || *plies > 12 {
		return usagef("--plies %d: want 0 to 12 to count", *plies)
	}
	counts, err := book.Count(r, *plies)
	if err != nil {
		return usageError{err}
	}
	sum := 0
	for d, c := range counts {
		sum += c
		fmt.Fprintf(e.stdout, "ply %d: %d positions (%d in all)\n", d, c, sum)
	}
	return nil
}

func runBookBuild(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "book build", "[--rules R ...] --plies N [--out FILE] [--egdb FILE | --egdb-seeds K] [--tt-mb N] [--threads N]",
		"Builds the opening book of the rules: solves every position first reached\nN plies from the start (its value and optimal moves, one after another on\none engine) and derives every move's value in the positions before them.\nThe file is written atomically; a checkpoint (FILE.partial) is saved every\nminute and when interrupted, and a build to the same FILE resumes from it.")
	rf := addRulesFlags(fs)
	plies := fs.Int("plies", 4, "moves from the start the book covers")
	out := fs.String("out", "", "file to write (default: the conventional name, such as kalah-6x4.kbook, in the current directory)")
	egdbFile := fs.String("egdb", "", "endgame database file to probe (one of the rules' variant, for any seeds a house)")
	egdbSeeds := fs.Int("egdb-seeds", -1, "endgame database of up to K seeds (default: as kalah solve picks)")
	ttMB := fs.Int("tt-mb", 1024, "transposition table size in MiB")
	threads := fs.Int("threads", 2, "search threads")
	every := fs.Duration("checkpoint", time.Minute, "how often to save the checkpoint")
	solvedFiles := fs.String("solved", "", "book files (comma-separated) whose values to take instead of solving a position they hold, such as a strategy book")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	r, err := rf.rules()
	if err != nil {
		return err
	}
	solved, err := readSolved(r, *solvedFiles)
	if err != nil {
		return err
	}
	v, err := book.VariantOf(r)
	switch {
	case err != nil:
		return usageError{err}
	case *plies < 0 || *plies > book.MaxPlies:
		return usagef("--plies %d: want 0 to %d", *plies, book.MaxPlies)
	case *ttMB < 1 || *ttMB > 1<<20 || *threads < 1 || *threads > 256:
		return usagef("--tt-mb must be 1 to %d and --threads 1 to 256", 1<<20)
	case *egdbSeeds < -1 || *egdbSeeds > 40:
		return usagef("--egdb-seeds %d: want 0 (none) to 40", *egdbSeeds)
	}
	path := *out
	if path == "" {
		path = book.FileName(v)
	}
	seeds := *egdbSeeds
	if seeds < 0 && *egdbFile == "" {
		seeds = autoSeeds(r, 2*r.Houses*r.Seeds)
	}
	db, err := loadDB(ctx, e, r, *egdbFile, max(seeds, 0))
	if err != nil {
		return err
	}
	if db != nil {
		defer db.Close()
	}
	// The book's own positions must be searched, not read from a book.
	eng, err := engine.New(r, engine.Options{TableMB: *ttMB, Threads: *threads, DB: db, NoBook: true})
	if err != nil {
		return err
	}
	partial := path + ".partial"
	var known *book.Book
	if k, err := book.ReadFile(partial); err == nil {
		known = k
		e.log.Info("resuming from a checkpoint", "file", partial, "positions", k.Len())
	} else if !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%w (delete it to start afresh)", err)
	}
	counts, _ := book.Count(r, *plies)
	e.log.Info("building opening book", "rules", v.String(), "plies", *plies, "positions", counts, "file", path)
	st := newStatus(e, "book")
	start := time.Now()
	b, err := book.Build(ctx, r, *plies, book.BuildOptions{
		Solve: func(ctx context.Context, p kalah.Position) ([]int, error) {
			if vals, ok := lookupSolved(solved, r, p); ok {
				return vals, nil
			}
			res, err := eng.Solve(ctx, p)
			if err != nil {
				return nil, err
			}
			return optimalValues(r, p, res), nil
		},
		Known:           known,
		Checkpoint:      func(b *book.Book) error { return b.WriteFile(partial) },
		CheckpointEvery: *every,
		Progress: func(pr book.BuildProgress) {
			left := ""
			if n := pr.Done - pr.Reused; n > 0 && pr.Done < pr.Total {
				rate := pr.Elapsed / time.Duration(n)
				left = fmt.Sprintf(", about %v left", (rate * time.Duration(pr.Total-pr.Done)).Round(time.Second))
			}
			st.show(fmt.Sprintf("%d of %d positions at ply %d (%.1f%%), %v%s", pr.Done, pr.Total, *plies,
				100*float64(pr.Done)/float64(max(pr.Total, 1)), pr.Elapsed.Round(time.Second), left))
		},
	})
	st.done()
	if err != nil {
		return err
	}
	if err := b.WriteFile(path); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	os.Remove(partial)
	size := len(b.Marshal())
	e.log.Info("opening book written", "file", path, "positions", b.Len(), "bytes", size, "time", time.Since(start).Round(time.Millisecond))
	fmt.Fprintf(e.stdout, "%s: %s, %d bytes, built in %v\n", path, b.Describe(), size, time.Since(start).Round(time.Millisecond))
	return nil
}

// runBookStrategy builds a strategy book (book.BuildStrategy): its solves
// on an engine of --threads threads, its test of a fast position the
// perfect player's own search (one thread, a fresh table of the player's
// size, the same endgame database) within --nodes nodes.
func runBookStrategy(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "book strategy", "[--rules R ...] [--plies N] [--nodes L] [--out FILE] [--egdb FILE | --egdb-seeds K] [--tt-mb N] [--threads N]",
		"Builds the strategy book of the rules: from every position within N plies\nof the start, the perfect player's optimal move (the one nearest the store)\nand every move of its opponent, solving each position where the player is\nto move unless the player's own search (one thread, a fresh table) answers\nit within L nodes. The file is written atomically; a checkpoint\n(FILE.partial, and the positions found fast in FILE.partial.fast) is saved\nevery minute and when interrupted, and a build to the same FILE resumes\nfrom it.")
	rf := addRulesFlags(fs)
	plies := fs.Int("plies", 3, "moves from the start the strategy starts from (either side to move)")
	nodes := fs.Uint64("nodes", engine.PerfectNodes, "nodes of the player's search that count as fast")
	out := fs.String("out", "", "file to write (default: the conventional name, such as kalah-6x4-strategy.kbook, in the current directory)")
	egdbFile := fs.String("egdb", "", "endgame database file the player will use (one of the rules' variant)")
	egdbSeeds := fs.Int("egdb-seeds", engine.PerfectDBSeeds, "endgame database of up to K seeds in the default directory, built first if missing")
	ttMB := fs.Int("tt-mb", 1024, "transposition table of the solves in MiB")
	threads := fs.Int("threads", 2, "threads of the solves, and fast checks run at once (one thread each)")
	every := fs.Duration("checkpoint", time.Minute, "how often to save the checkpoint")
	solvedFiles := fs.String("solved", "", "book files (comma-separated) whose values to take instead of solving a position they hold: the values are exact whatever database found them")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	r, err := rf.rules()
	if err != nil {
		return err
	}
	solved, err := readSolved(r, *solvedFiles)
	if err != nil {
		return err
	}
	v, err := book.VariantOf(r)
	switch {
	case err != nil:
		return usageError{err}
	case *plies < 0 || *plies > 12:
		return usagef("--plies %d: want 0 to 12", *plies)
	case *nodes < 1024 || *nodes > 1<<32-1:
		return usagef("--nodes %d: want 1024 to %d", *nodes, uint64(1<<32-1))
	case *ttMB < 1 || *ttMB > 1<<20 || *threads < 1 || *threads > 256:
		return usagef("--tt-mb must be 1 to %d and --threads 1 to 256", 1<<20)
	case *egdbSeeds < 0 || *egdbSeeds > 40:
		return usagef("--egdb-seeds %d: want 0 (none) to 40", *egdbSeeds)
	}
	path := *out
	if path == "" {
		path = book.StrategyFileName(v)
	}
	db, err := loadDB(ctx, e, r, *egdbFile, *egdbSeeds)
	if err != nil {
		return err
	}
	dbSeeds := 0
	if db != nil {
		defer db.Close()
		dbSeeds = db.Seeds()
	}
	// The positions must be searched, not read from a book built before.
	solver, err := engine.New(r, engine.Options{TableMB: *ttMB, Threads: *threads, DB: db, NoBook: true})
	if err != nil {
		return err
	}
	// The fast checks, one engine a thread (each search on one thread with
	// a fresh table and the players' tuning, as the player's), run
	// --threads at once.
	fastEngines := make(chan *engine.Engine, *threads)
	tune := engine.PlayerTuning()
	for range *threads {
		fast, err := engine.New(r, engine.Options{TableMB: engine.PlayerTableMB, Threads: 1, DB: db, NoBook: true, NodeLimit: *nodes, Tuning: &tune})
		if err != nil {
			return err
		}
		fastEngines <- fast
	}
	var fastMu sync.Mutex // fastKnown, fastReused
	var opening *book.Book
	for _, b := range book.For(r) {
		if b.Kind() == book.Opening && b.Variant() == v && b.Plies() >= *plies {
			opening = b
			break
		}
	}
	partial := path + ".partial"
	var known *book.Book
	if k, err := book.ReadFile(partial); err == nil {
		known = k
		e.log.Info("resuming from a checkpoint", "file", partial, "positions", k.Len())
	} else if !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%w (delete it to start afresh)", err)
	}
	fastPath := partial + ".fast"
	fastKnown := newFastSet(v.String(), *nodes, dbSeeds)
	if err := fastKnown.read(fastPath); err != nil {
		return fmt.Errorf("%w (delete it to search its positions again)", err)
	}
	if fastKnown.len() > 0 {
		e.log.Info("resuming with the fast positions found before", "file", fastPath, "positions", fastKnown.len())
	}
	fastSaved, fastReused := fastKnown.len(), 0
	saveFast := func() error {
		fastMu.Lock()
		defer fastMu.Unlock()
		if fastKnown.len() == fastSaved {
			return nil
		}
		fastSaved = fastKnown.len()
		return fastKnown.write(fastPath)
	}
	e.log.Info("building strategy book", "rules", v.String(), "plies", *plies, "nodes", *nodes, "egdb", dbSeeds, "opening book", opening != nil, "file", path)
	st := newStatus(e, "strategy")
	start := time.Now()
	b, err := book.BuildStrategy(ctx, r, book.StrategyOptions{
		Plies:   *plies,
		Opening: opening,
		Solve: func(ctx context.Context, p kalah.Position) ([]int, error) {
			if vals, ok := lookupSolved(solved, r, p); ok {
				return vals, nil
			}
			res, err := solver.Solve(ctx, p)
			if err != nil {
				return nil, err
			}
			return optimalValues(r, p, res), nil
		},
		Fast: func(ctx context.Context, p kalah.Position) (bool, error) {
			k := book.Key(&p)
			fastMu.Lock()
			known := fastKnown.has(k)
			if known {
				fastReused++
			}
			fastMu.Unlock()
			if known {
				return true, nil
			}
			fast := <-fastEngines
			defer func() { fastEngines <- fast }()
			fast.Clear()
			_, err := fast.Best(ctx, p)
			if errors.Is(err, engine.ErrNodeLimit) {
				return false, nil
			}
			if err == nil {
				fastMu.Lock()
				fastKnown.add(k)
				fastMu.Unlock()
			}
			return err == nil, err
		},
		FastWorkers: *threads,
		DBSeeds:     dbSeeds,
		NodeLimit:   *nodes,
		Known:       known,
		Checkpoint: func(b *book.Book) error {
			if err := saveFast(); err != nil {
				return err
			}
			return b.WriteFile(partial)
		},
		CheckpointEvery: *every,
		Progress: func(pr book.StrategyProgress) {
			st.show(fmt.Sprintf("%d positions solved (%d from the checkpoint), %d left to the search, %d plies deep (deepest %d), %v",
				pr.Solved, pr.Reused, pr.Fast, pr.Depth, pr.Deepest, pr.Elapsed.Round(time.Second)))
		},
	})
	st.done()
	if err != nil {
		// Interrupted: keep the fast positions found since the last
		// checkpoint too (the build saves the book's).
		if ferr := saveFast(); ferr != nil {
			return fmt.Errorf("%w (and saving %s: %v)", err, fastPath, ferr)
		}
		return err
	}
	if err := b.WriteFile(path); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	os.Remove(partial)
	os.Remove(fastPath)
	size := len(b.Marshal())
	e.log.Info("strategy book written", "file", path, "positions", b.Len(), "bytes", size, "time", time.Since(start).Round(time.Millisecond), "fast positions not searched again", fastReused)
	fmt.Fprintf(e.stdout, "%s: %s, %d bytes, built in %v\n", path, b.Describe(), size, time.Since(start).Round(time.Millisecond))
	return nil
}

// optimalValues is a solve's answer as a book entry: the value of each
// optimal move, Unknown for the other legal moves, NoMove for empty houses.
func optimalValues(r kalah.Rules, p kalah.Position, res engine.Result) []int {
	out := make([]int, r.Houses)
	for i := range out {
		out[i] = book.NoMove
	}
	for _, m := range p.Moves() {
		out[int(m)-1] = book.Unknown
	}
	for _, m := range res.Best {
		out[int(m)-1] = res.Value
	}
	return out
}

// readSolved reads the books of --solved, which must hold values of r's
// variant (any seeds a house).
func readSolved(r kalah.Rules, files string) ([]*book.Book, error) {
	var out []*book.Book
	for _, path := range strings.Split(files, ",") {
		if path = strings.TrimSpace(path); path == "" {
			continue
		}
		b, err := book.ReadFile(path)
		if err != nil {
			return nil, err
		}
		if !b.Fits(r) {
			return nil, usagef("--solved %s: %s, not %s", path, b.Describe(), r)
		}
		out = append(out, b)
	}
	return out, nil
}

// lookupSolved returns p's entry from the first of books that holds it, as
// a Solve function answers: the values it knows, Unknown for the others.
func lookupSolved(books []*book.Book, r kalah.Rules, p kalah.Position) ([]int, bool) {
	for _, b := range books {
		if vals, ok := b.Lookup(&p); ok {
			out := make([]int, r.Houses)
			for i, v := range vals {
				out[i] = int(v)
			}
			return out, true
		}
	}
	return nil, false
}
