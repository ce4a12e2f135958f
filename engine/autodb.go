package engine

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"time"

	"kalah"
	"kalah/egdb"
	"kalah/internal/cores"
	"kalah/internal/datadir"
)

// The perfect player answers at once only with the endgame database its
// strategy books were measured with (PerfectDBSeeds), 1.25 GB that a fresh
// machine does not have. A command that runs long (kalah play, kalah
// serve) calls BuildDBOnFirstUse: the first perfect player of a variant
// asked for a move (a game against it, a hint, an analysis; not one merely
// made) or engaged for a game (Player.Engage: kalah play's opponent
// chosen) then starts building that database in the background, written to
// the data directory for every later run, and every perfect player of the
// process takes it at its next move once it is built. Until then they play
// with the largest database there is (one of 10 seeds in memory at least),
// and from the first seconds of the build with one of 16 it makes first in
// memory (the bridge): slower beyond the books than with the large one.
//
// The build keeps its work on disk as it goes (egdb's checkpoints: a part
// file a seed count beside the database, and within the large counts
// every autoCheckpointEvery), so a process that quits stops it at once
// (StopDBBuilds: its progress saved, its lock file removed) and the next
// build, in this process or another, goes on from there; a process killed
// loses the work since its last checkpoint, and its lock, which the kernel
// releases, is taken over by the next.

// DBBuild is where the build of a perfect player's database stands, as
// BuildDBOnFirstUse's report is told: when it starts (Done 0, or From
// where it resumes), at every tenth of the work, and when it ends
// (Finished), or is stopped (Finished and Stopped). At the end Built says
// the database was built, and the players use it; Err why it was not, or
// why its file could not be written (then it serves this process only).
type DBBuild struct {
	Rules       kalah.Rules
	Seeds       int
	Path        string
	Done, Total uint64
	// Elsewhere says another process builds it (a kalah serve and a kalah
	// play on one data directory, say): this one waits for its file, and
	// builds it only if that process ends without writing it.
	Elsewhere bool
	// From is the work the build found done on disk when it started (a
	// build stopped or killed before, resumed): 0 for one from scratch.
	From            uint64
	Finished, Built bool
	// Stopped says the build was stopped before its end (StopDBBuilds):
	// Done is kept on disk, and the next build goes on from there.
	Stopped bool
	Err     error
}

// autoDBSeeds is the database built on first use: PerfectDBSeeds, or
// FirstUseSeedsEnv's, less in tests.
var autoDBSeeds = firstUseSeeds()

// FirstUseSeedsEnv names the environment variable that makes the
// database built on first use a smaller one, of 11 to PerfectDBSeeds
// seeds (another value is ignored): for a machine short of memory or
// disk (20 seeds: 243 MB), and for tests of the commands. Beyond its
// books perfect then answers slower.
const FirstUseSeedsEnv = "KALAH_FIRST_USE_SEEDS"

func firstUseSeeds() int {
	k, err := strconv.Atoi(os.Getenv(FirstUseSeedsEnv))
	if err != nil || k < 11 || k > PerfectDBSeeds {
		return PerfectDBSeeds
	}
	return k
}

var auto struct {
	mu     sync.Mutex
	report func(DBBuild)         // nil: no builds (the default)
	builds map[string]*autoBuild // by file; once built, the database is sharedDB's (dbCache)
	// stopped: StopDBBuilds was called, and no build starts until
	// BuildDBOnFirstUse is called again.
	stopped bool
	// present: files found with a database of autoDBSeeds or more, so
	// not looked for again.
	present map[string]bool
}

type autoBuild struct {
	done chan struct{}
	stop context.CancelFunc
	now  DBBuild // where it stands (auto.mu): what DBBuilds tells
}

// autoCheckpointEvery is how often a build on first use saves its work
// within a seed count, beside once each count is done and where it is
// stopped: the last counts of the 24-seed database are a third, a fifth,
// a seventh of the work (a minute or more each on half of two cores), and
// a write of one (up to 417 MB: 0.34-1.28 s here, 3 runs, its checksum
// included; dd wrote as much in 3.9 s at a busier hour) holds the build
// meanwhile, as it holds a stop: a kill loses at most a minute of work.
var autoCheckpointEvery = time.Minute

// autoOne holds the build that runs: the others wait for it.
var autoOne = make(chan struct{}, 1)

// BuildDBOnFirstUse makes the perfect players of this process build the
// endgame database their books assume where the data directory lacks it
// (see above); report, called from the building goroutine, is told how
// the build goes; nil turns builds off. Only the variants of the strategy
// books get one (autoDBPath).
func BuildDBOnFirstUse(report func(DBBuild)) {
	auto.mu.Lock()
	defer auto.mu.Unlock()
	auto.report = report
	auto.stopped = false
	auto.present = nil // a test's directory may have changed
}

// autoBuilds reports whether the perfect player of rules r builds its
// database on first use.
func autoBuilds(r kalah.Rules) bool {
	if _, ok := autoDBPath(r); !ok {
		return false
	}
	auto.mu.Lock()
	defer auto.mu.Unlock()
	return auto.report != nil
}

// autoDBPath returns the file the perfect player of rules r would have
// built, and whether it builds one at all: only the two databases of the
// variants its strategy books are for (six houses, the standard end,
// either capture rule, whatever the seeds a house or the pie rule), so
// that a server's visitors, choosing rules, can make it build at most
// those (2.5 GB on disk).
func autoDBPath(r kalah.Rules) (string, bool) {
	std := kalah.Standard()
	if r.Houses != 6 || r.End != std.End || r.SowOpponentStore != std.SowOpponentStore || egdb.Supported(r) != nil {
		return "", false
	}
	dir, err := egdb.DefaultDir()
	if err != nil {
		return "", false
	}
	return filepath.Join(dir, egdb.FileName(r, autoDBSeeds)), true
}

// startAutoDB starts building the perfect player's database of rules r
// unless it is being built, was built, builds are off, or the data
// directory has one of autoDBSeeds or more (a file of autoDBSeeds whose
// header is wrong is built again). have is the seeds of the database the
// player has now (it spares looking on disk).
func startAutoDB(r kalah.Rules, have int) {
	path, ok := autoDBPath(r)
	if !ok || have >= autoDBSeeds {
		return
	}
	// At once where it is built, being built or found before: the page's
	// analysis asks at every request.
	auto.mu.Lock()
	known := auto.report == nil || auto.stopped || auto.builds[path] != nil || auto.present[path]
	auto.mu.Unlock()
	if known {
		return
	}
	found := false
	for k := autoDBSeeds + 1; k <= egdb.MaxSeeds && !found; k++ {
		_, err := os.Stat(filepath.Join(filepath.Dir(path), egdb.FileName(r, k)))
		found = err == nil
	}
	if !found {
		if db, err := egdb.Open(path, true); err == nil { // the header only: no reading 1.25 GB
			db.Close()
			found = true
		}
	}
	auto.mu.Lock()
	defer auto.mu.Unlock()
	if found {
		if auto.present == nil {
			auto.present = map[string]bool{}
		}
		auto.present[path] = true
		return
	}
	if auto.report == nil || auto.stopped || auto.builds[path] != nil {
		return
	}
	if auto.builds == nil {
		auto.builds = map[string]*autoBuild{}
	}
	total := egdb.Size(r.Houses, autoDBSeeds)
	st := DBBuild{Rules: r, Seeds: autoDBSeeds, Path: path, Total: total}
	ctx, stop := context.WithCancel(context.Background())
	b := &autoBuild{done: make(chan struct{}), stop: stop, now: st}
	auto.builds[path] = b
	// tell keeps where the build stands for DBBuilds; report tells it to
	// BuildDBOnFirstUse's function too.
	tell := func(st DBBuild) {
		auto.mu.Lock()
		b.now = st
		auto.mu.Unlock()
	}
	told := auto.report
	report := func(st DBBuild) {
		tell(st)
		told(st)
	}
	go func() {
		defer close(b.done)
		defer stop()
		if !buildAuto(ctx, r, st, report, tell) {
			// Stopped: a later ask (after BuildDBOnFirstUse again, in
			// tests) resumes it.
			auto.mu.Lock()
			delete(auto.builds, path)
			auto.mu.Unlock()
		}
	}()
}

// bridgeDBSeeds is the database a build on first use makes in memory
// before its own, on every core within seconds, for the players to take
// at their next move meanwhile: with 16 seeds perfect answers Kalah(6,4)
// in about 60 ms a move, every move exact, where with the 10 it starts
// with it takes about 350 ms and estimates some (docs/PERFORMANCE.md, P6
// and P7). It is kept (30 MB): players may be probing it when the large
// one arrives.
var bridgeDBSeeds = 16

// bridgeKey is the bridge's key in dbCache for the database at path.
func bridgeKey(path string) string { return "bridge:" + path }

// buildBridge builds the bridge for the database at path, unless it is
// too small to be one.
func buildBridge(ctx context.Context, r kalah.Rules, path string) {
	k := min(bridgeDBSeeds, autoDBSeeds-2)
	if k <= 10 {
		return
	}
	db, err := egdb.Build(ctx, r, k, egdb.BuildOptions{}) // every core: seconds
	if err != nil {
		return
	}
	dbMu.Lock()
	dbCache[bridgeKey(path)] = db
	dbMu.Unlock()
}

// autoPoll is how often a process waiting for another's build looks for
// its file.
var autoPoll = 2 * time.Second

// buildAuto builds the database st names, writes it and hands it to the
// players (dbCache), telling report how it goes; false if ctx ended
// first (StopDBBuilds), its work kept on disk. Where another process
// builds it (its lock file held: a kalah serve and a kalah play, say), it
// waits for that one's file instead of building it twice, and builds it
// itself, from that one's checkpoints, if that process ends without
// writing it.
func buildAuto(ctx context.Context, r kalah.Rules, st DBBuild, report, tell func(DBBuild)) bool {
	path := st.Path
	bridged := false
	bridge := func() {
		if !bridged {
			bridged = true
			buildBridge(ctx, r, path)
		}
	}
	stopped := func() bool {
		st.Stopped, st.Finished = true, true
		report(st)
		return false
	}
	var unlock func()
	warned := false
	for {
		db, openErr := egdb.Open(path, false)
		if openErr == nil { // written by another process meanwhile
			dbMu.Lock()
			dbCache[path] = db
			dbMu.Unlock()
			st.Done, st.Finished, st.Built = st.Total, true, true
			report(st)
			return true
		}
		if !errors.Is(openErr, os.ErrNotExist) && !warned {
			slog.Warn("the perfect player's endgame database cannot be read: it is built again", "file", path, "err", openErr)
			warned = true
		}
		err := os.MkdirAll(filepath.Dir(path), 0o755) // as the file's write would
		if err == nil {
			unlock, err = datadir.TryLock(path+".lock", "kalah building "+filepath.Base(path))
		}
		if err == nil {
			if _, err := os.Stat(path); err == nil && errors.Is(openErr, os.ErrNotExist) { // written between the look and the lock
				unlock()
				continue
			}
			// Gone once the file is there: a process that takes the lock
			// of the file removed looks for the database first.
			defer func() {
				os.Remove(path + ".lock")
				unlock()
			}()
			break
		}
		if !errors.Is(err, datadir.ErrLocked) {
			// A directory that cannot take the lock cannot take the file
			// either, which the write reports, the database still serving
			// this process.
			break
		}
		if !st.Elsewhere {
			st.Elsewhere = true
			report(st)
		}
		bridge()
		select {
		case <-ctx.Done():
			return stopped()
		case <-time.After(autoPoll):
		}
	}
	st.Elsewhere = false
	// Where a build stopped before left it, told at once: the build
	// checks the checkpoints' values as it loads them.
	st.From = egdb.Checkpointed(path, r, st.Seeds)
	st.Done = st.From
	report(st)
	bridge()
	select {
	case autoOne <- struct{}{}: // one build at a time (the bridges are quick)
	case <-ctx.Done():
		return stopped()
	}
	defer func() { <-autoOne }()
	// Half the cores: a server's games and a person's go on meanwhile.
	tenth := uint64(0)
	saveWarned := false
	db, err := egdb.Build(ctx, r, st.Seeds, egdb.BuildOptions{
		Workers:         max(1, cores.N()/2),
		Checkpoints:     path,
		CheckpointEvery: autoCheckpointEvery,
		Saved: func(seeds int, done uint64, err error) {
			if err != nil && !saveWarned {
				saveWarned = true // once: the next would fail alike
				slog.Warn("the perfect player's endgame database: its progress could not be saved (a stop would lose it)", "file", egdb.PartPath(path, seeds), "err", err)
			}
		},
		Resumed: func(done, total uint64) { // where the checkpoints left it, checked
			tenth = done * 10 / max(total, 1)
			if done != st.From {
				st.Done, st.From = done, done
				report(st)
			}
		},
		Progress: func(done, total uint64) {
			st.Done = done
			if t := done * 10 / max(total, 1); t > tenth && done < total {
				tenth = t
				report(st)
			} else {
				tell(st)
			}
		},
	})
	if err != nil && ctx.Err() != nil {
		return stopped()
	}
	st.Done, st.Finished = st.Total, true
	if err != nil {
		st.Err = err
		report(st)
		return true
	}
	st.Built, st.Err = true, db.WriteFile(path)
	if st.Err == nil {
		egdb.RemoveCheckpoints(path) // the database is there: they served their turn
		// The file mapped, not the 1.25 GB built: pages the system may
		// evict and share with other processes.
		if mapped, err := egdb.Open(path, true); err == nil {
			db.Close()
			db = mapped
		}
	}
	dbMu.Lock()
	dbCache[path] = db
	dbMu.Unlock()
	report(st)
	return true
}

// FirstUseDB returns the perfect player's database of rules r built on
// first use in this process, or while it is built the smaller one made
// first (the bridge); nil if neither is there. Other engines of the
// process (the page's analysis) may probe it too: it is never closed.
func FirstUseDB(r kalah.Rules) *egdb.DB {
	path, ok := autoDBPath(r)
	if !ok {
		return nil
	}
	dbMu.Lock()
	defer dbMu.Unlock()
	if db := dbCache[path]; db != nil {
		return db
	}
	return dbCache[bridgeKey(path)]
}

// StartDBBuild starts building the perfect player's database of rules r
// now, as the variant's first perfect player asked for a move would,
// where the data directory has none of PerfectDBSeeds or more (builds on
// first use must be on). The page's analysis calls it when one is asked:
// it looks for a larger database now and then, and is exact too once it
// is built.
func StartDBBuild(r kalah.Rules) {
	startAutoDB(r, 0)
}

// StopDBBuilds stops every build on first use of this process, and the
// waits for another process's, and starts none until BuildDBOnFirstUse
// is called again; it returns once they have saved their work and removed
// their lock files (a level of the build cut short, a checkpoint written:
// up to 417 MB, seconds on a slow disk), or ctx ends. Each is reported Stopped.
// A command that ends (kalah play quitting, kalah serve shutting down)
// calls it: the next run resumes the build.
func StopDBBuilds(ctx context.Context) error {
	auto.mu.Lock()
	auto.stopped = true
	var running []*autoBuild
	for _, b := range auto.builds {
		if !b.now.Finished {
			b.stop()
			running = append(running, b)
		}
	}
	auto.mu.Unlock()
	for _, b := range running {
		select {
		case <-b.done:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// WaitDBBuilds waits until no build on first use runs in this process
// (one waiting for another process's is not waited for), or ctx ends:
// for a command asked to build the database (kalah match --build-egdb).
func WaitDBBuilds(ctx context.Context) error {
	auto.mu.Lock()
	var running []*autoBuild
	for _, b := range auto.builds {
		if !b.now.Elsewhere && !b.now.Finished {
			running = append(running, b)
		}
	}
	auto.mu.Unlock()
	for _, b := range running {
		select {
		case <-b.done:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// DBBuildRunning reports whether a build on first use runs in this
// process.
func DBBuildRunning() bool {
	return slices.ContainsFunc(DBBuilds(), func(b DBBuild) bool { return !b.Elsewhere })
}

// DBBuilds returns where each build on first use that has not finished
// stands (Done 0 for one waiting for another to end), by file, as a page
// tells its visitors why perfect play is slow.
// Done is kept more often than BuildDBOnFirstUse's report is told.
func DBBuilds() []DBBuild {
	auto.mu.Lock()
	defer auto.mu.Unlock()
	var out []DBBuild
	for _, b := range auto.builds {
		if !b.now.Finished {
			out = append(out, b.now)
		}
	}
	slices.SortFunc(out, func(a, b DBBuild) int { return cmp.Compare(a.Path, b.Path) })
	return out
}
