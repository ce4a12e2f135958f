package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"kalah"
	"kalah/egdb"
	"kalah/player"
)

func init() {
	player.Register(player.Info{
		Name:    "engine",
		Usage:   "engine[:time=D][:egdb=K][:tt=MB][:threads=N]",
		Summary: "the strongest player: iterative-deepening MTD(f) under the clock with a transposition table and endgame databases (default time 1s a move when there is no clock)",
		Source:  "Irving, Donkers and Uiterwijk (2000), Solving Kalah; this project's engine",
		Work:    func(player.Spec, kalah.Rules) time.Duration { return time.Second },
		New: func(s player.Spec, o player.Options) (player.Player, error) {
			return newPlayer(s, o, false)
		},
	})
	player.Register(player.Info{
		Name:    "perfect",
		Usage:   "perfect[:time=D][:egdb=K][:tt=MB][:threads=N]",
		Summary: "plays a value-optimal move whenever it can solve the position within its time (default 5s without a clock), else the engine's best estimate",
		Source:  "this project's exact solver",
		Work:    func(player.Spec, kalah.Rules) time.Duration { return 5 * time.Second },
		New: func(s player.Spec, o player.Options) (player.Player, error) {
			return newPlayer(s, o, true)
		},
	})
	player.RegisterLevel(player.Level{Rank: 50, Name: "expert", Spec: "engine:time=300ms",
		Description: "the search engine at 0.3 s a move with endgame databases"})
	player.RegisterLevel(player.Level{Rank: 60, Name: "perfect", Spec: "perfect",
		Description: "perfect play wherever the position can be solved in time"})
}

// PlayerTableMB is the transposition table of the engine and perfect
// players in MiB unless tt= says otherwise: per game, so a server with many
// games keeps it small.
const PlayerTableMB = 64

// PerfectDBSeeds is the endgame database the perfect player's strategy
// books were measured with (package book, Book.Frontier), for six houses:
// the players use the largest one in the data directory, and with this one
// or larger, perfect answers within PerfectNodes where the books end. Built
// once with kalah egdb build --seeds 24 (1.25 GB, one to three minutes on
// two cores). A smaller database makes fewer positions fast: the strategy
// books of Kalah(6,4) would hold several times as many.
const PerfectDBSeeds = 24

// PerfectNodes is how much search a strategy book leaves to the perfect
// player: the positions it does not hold are answered, on one thread with a
// fresh table, in at most this many nodes (about 20 ms on the 2-core
// machine of docs/PERFORMANCE.md; its table, warm from the moves before,
// usually makes it less).
const PerfectNodes = 100_000

// Player plays with an Engine: anytime, within its clock.
type Player struct {
	e       *Engine
	exact   bool
	time    time.Duration
	mu      sync.Mutex
	last    player.Report
	dbSeeds int
	// auto: the player takes the database built on first use
	// (BuildDBOnFirstUse) once it is there, and starts its build when
	// first asked for a move (asked).
	auto  bool
	asked atomic.Bool
	// wantsDB: the player takes the largest database there is (no egdb=
	// given); memoryDB: the one it has was made in memory (none on disk).
	wantsDB, memoryDB bool
}

func newPlayer(s player.Spec, o player.Options, exact bool) (*Player, error) {
	if err := s.Check(0, "time", "egdb", "tt", "threads"); err != nil {
		return nil, err
	}
	if t := o.Rules.TotalSeeds(); t > 255 {
		return nil, fmt.Errorf("%w: %s has %d seeds (at most 255)", ErrTooLarge, o.Rules, t)
	}
	def := time.Second
	if exact {
		def = 5 * time.Second
	}
	t, err := s.Duration("time", def)
	if err != nil {
		return nil, err
	}
	k, err := s.Int("egdb", -1)
	if err != nil {
		return nil, err
	}
	mb, err := s.Int("tt", PlayerTableMB)
	if err != nil || mb < 1 || mb > 16384 {
		return nil, fmt.Errorf("player %s: tt=%s: want MiB from 1 to 16384", s.Name, s.Params["tt"])
	}
	threads, err := s.Int("threads", 1)
	if err != nil || threads < 1 || threads > 64 {
		return nil, fmt.Errorf("player %s: threads=%s: want 1 to 64", s.Name, s.Params["threads"])
	}
	db, err := sharedDB(o.Rules, k)
	if err != nil {
		return nil, err
	}
	tune := PlayerTuning()
	e, err := New(o.Rules, Options{TableMB: mb, DB: db, Threads: threads, Tuning: &tune, NoStrategyBook: !exact})
	if err != nil {
		return nil, err
	}
	p := &Player{e: e, exact: exact, time: t, auto: exact && k < 0}
	if db != nil {
		p.dbSeeds = db.Seeds()
	}
	p.memoryDB = db != nil && db.Path() == ""
	p.wantsDB = k < 0
	return p, nil
}

// warnNoDB says, at a player's first move, that it plays without the
// database it should have, where no build on first use will (that says
// so itself): for the perfect player the one of PerfectDBSeeds its
// strategy books assume, for the engine any file at all.
func (p *Player) warnNoDB() {
	r := p.e.Rules()
	if !p.wantsDB || r.Houses != 6 || autoBuilds(r) {
		return
	}
	switch {
	case p.exact && p.dbSeeds < PerfectDBSeeds:
		have := fmt.Sprintf("it has one of %d seeds", p.dbSeeds)
		if p.memoryDB {
			have = fmt.Sprintf("it has one of %d seeds made in memory", p.dbSeeds)
		}
		warnOnce(r, fmt.Sprintf("the perfect player plays without its endgame database of %d seeds (%s): its searches beyond its books take longer, seconds for some replies; build the database once with kalah egdb build --seeds %d (1.25 GB, minutes; kalah match --build-egdb builds it too)",
			PerfectDBSeeds, have, PerfectDBSeeds))
	case !p.exact && p.memoryDB:
		warnOnce(r, "no endgame database for the engine's players: their searches take longer until one is built (kalah egdb build)")
	}
}

// warned holds the warnings of missing databases given, once each.
var warned sync.Map

// warnOnce logs the warning msg about rules r once in the process.
func warnOnce(r kalah.Rules, msg string) {
	if _, dup := warned.LoadOrStore(r.String()+"\x00"+msg, true); dup {
		return
	}
	dir, _ := egdb.DefaultDir()
	slog.Warn(msg, "rules", r.String(), "dir", dir)
}

var (
	dbMu    sync.Mutex
	dbCache = map[string]*egdb.DB{}
)

// sharedDB returns an endgame database for the rules, shared by every
// player of the process: k seeds from the default directory, or with k < 0
// the largest database already there (PerfectDBSeeds is the one the
// strategy books assume), else one of 10 seeds built in memory (a fraction
// of a second), with a warning that replies will be slower. k = 0 means
// none.
func sharedDB(r kalah.Rules, k int) (*egdb.DB, error) {
	if k == 0 || egdb.Supported(r) != nil {
		return nil, nil
	}
	dbMu.Lock()
	defer dbMu.Unlock()
	dir, dirErr := egdb.DefaultDir()
	open := func(k int) (*egdb.DB, error) {
		if dirErr != nil {
			return nil, dirErr
		}
		path := filepath.Join(dir, egdb.FileName(r, k))
		if db := dbCache[path]; db != nil {
			return db, nil
		}
		db, err := egdb.Open(path, false)
		if err != nil {
			return nil, err
		}
		dbCache[path] = db
		return db, nil
	}
	if k > 0 {
		db, err := open(k)
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("no endgame database of %d seeds for %s: build it with kalah egdb build --seeds %d (and the same rules flags)", k, r, k)
		}
		return db, err
	}
	for k := 24; k >= 10; k-- {
		if db, err := open(k); err == nil {
			return db, nil
		}
	}
	key := fmt.Sprintf("memory:%s:%d", egdb.FileName(r, 10), r.Houses)
	if db := dbCache[key]; db != nil {
		return db, nil
	}
	db, err := egdb.Build(context.Background(), r, 10, egdb.BuildOptions{})
	if err != nil {
		return nil, err
	}
	dbCache[key] = db
	return db, nil
}

// Engage tells the player it has a game to play, as its first move does:
// a perfect player starts the build of its database on first use now
// (BuildDBOnFirstUse), or says it plays without it. A player merely made
// (the hints' in kalah play, until one is asked) does neither.
func (p *Player) Engage() {
	if !p.asked.Swap(true) {
		if p.auto && p.dbSeeds < autoDBSeeds {
			startAutoDB(p.e.Rules(), p.dbSeeds)
		}
		p.warnNoDB()
	}
}

// Move chooses a move within the clock: the player's own time, cut to the
// clock's budget.
func (p *Player) Move(ctx context.Context, g *kalah.Game, c player.Clock) (kalah.Move, error) {
	p.Engage()
	p.takeAutoDB()
	pos := g.Position()
	limit := p.time
	if b := c.Budget(); b > 0 {
		// Keep a margin for scheduling on a busy machine.
		b -= b/5 + 2*time.Millisecond
		limit = min(limit, max(b, time.Millisecond))
	}
	start := time.Now()
	var res Result
	var err error
	if p.exact {
		// Try to solve in most of the time; if that fails, spend the rest
		// deepening the estimate over the table the attempt filled.
		res, _, err = p.e.search(ctx, pos, limit*3/5, true)
		if rem := limit - time.Since(start); err == nil && !res.Exact && ctx.Err() == nil && rem > time.Millisecond {
			res, _, err = p.e.search(ctx, pos, rem, false)
		}
	} else {
		res, _, err = p.e.search(ctx, pos, limit, false)
	}
	if err != nil {
		return kalah.NoMove, err
	}
	p.mu.Lock()
	p.last = player.Report{Nodes: res.Nodes, Depth: res.Depth, Score: res.Value, Exact: res.Exact, PV: res.Best, Time: res.Time, Book: res.Book}
	p.mu.Unlock()
	return res.Best[0], nil
}

// takeAutoDB has the engine probe the database built on first use, once
// it is there, if it is larger than the one the player started with.
func (p *Player) takeAutoDB() {
	if !p.auto || p.dbSeeds >= autoDBSeeds {
		return
	}
	if db := FirstUseDB(p.e.Rules()); db != nil && db.Seeds() > p.dbSeeds && p.e.setDB(db) == nil {
		p.dbSeeds = db.Seeds()
	}
}

// LastReport describes the last move's search.
func (p *Player) LastReport() player.Report {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.last
}
