// Package tournaments runs the engine and bot tournaments of a server:
// those started on the page or with POST /api/tournaments, kept by package
// tournament in the server's store, resumed after a restart, their games
// costed against the gate's work budget, and their part of the HTTP API.
// One Tournaments owns their state (which run, their games' ids on the
// server, their errors) under a lock that guards nothing else, and reaches
// the server (which plays every game, knows who asks and whose bots are
// waiting) only through its Host, and the people's tournaments beside
// them through People.
package tournaments

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"kalah"
	"kalah/internal/httpapi"
	"kalah/internal/identity"
	"kalah/internal/store"
	"kalah/server/core"
	"kalah/tournament"
	"net/http"
)

// Tournaments are the tournaments the server runs itself, started over
// HTTP (the page's Tournaments tab, POST /api/tournaments): kept by package
// tournament in the server's own store, run by its runner (Store.Run), and
// every game played by the Host's executor as an arranged game, under the
// server's limits, listed and watched with its other games. A player the
// server will not start is forfeited in its game, with the reason; no game
// of these tournaments is played anywhere else.
type Tournaments struct {
	host   Host
	people People
	st     *tournament.Store
	ctx    context.Context
	wait   time.Duration
	max    int
	log    *slog.Logger
	errMap *httpapi.Errors
	admin  string // the server's admin token, "" for none
	runs   sync.WaitGroup

	// mu guards the fields below it and nothing else; it is never held
	// while the Host or People are called.
	mu      sync.Mutex
	gameIDs map[int64]int64 // a tournament game's id to its server game
	running map[int64]bool
	// routes are the tournaments' part of the API (ServeHTTP), laid out
	// once.
	routes     http.Handler
	routesOnce sync.Once
	errs       map[int64]string
	stopping   bool // Wait was called: no run starts any more
}

// Host is what the tournaments need of the server that plays their games
// and answers their requests. It is never called with the Tournaments'
// lock held.
type Host interface {
	// Executor returns the executor that plays a tournament's games on
	// the server as arranged games, under its limits, one at a time: a
	// game waits at most wait for a bot that is not free, and onStart is
	// told each game's id on the server once it starts.
	Executor(wait time.Duration, log *slog.Logger, onStart func(job tournament.Job, game int64)) tournament.Executor
	// Startable refuses a player spec the server would not start for a
	// tournament (admin: asked for with the admin token).
	Startable(spec string, admin bool) error
	// MayEnter refuses bot name unless org may enter it in a tournament.
	MayEnter(ctx context.Context, org Organizer, name string) error
	// BotName parses a player spec: a bot's ("bot:NAME") gives its name
	// and isBot, another spec neither.
	BotName(spec string) (name string, isBot bool, err error)
	// WaitingBots returns the names of the bots logged in that take the
	// games the server arranges, sorted.
	WaitingBots() []string
	// GameWork estimates the computer time a game under r between specs
	// ("" for a seat that is no program of the server's) may cost.
	GameWork(r kalah.Rules, specs ...string) time.Duration
	// Charge pays work through the gate up front, against payer's budget
	// ("" for none) and the server's (never refused if force); free gives
	// it back. A refusal is counted, and returned as the server's callers
	// know it (a full server ErrBusy).
	Charge(payer string, work time.Duration, force bool) (free func(), err error)
	// Trusted reports whether r may start the server's work: a signed-in
	// person, the admin token, or a server without one.
	Trusted(r *http.Request) bool
	// SessionUser returns r's signed-in person, "" for none.
	SessionUser(r *http.Request) string
	// Actor returns who asks r (a person, a guest, a bot by its token).
	Actor(w http.ResponseWriter, r *http.Request) core.Actor
}

// People are the people's tournaments beside the server's own (arenas
// and Swiss that people and bots join, their ids "pN"): the list merges
// them, and the API serves them on the same routes. They are never called
// with the Tournaments' lock held.
type People interface {
	// IsID reports whether id names a people's tournament.
	IsID(id string) bool
	// Create stores a people's tournament asked for by person creator
	// (zero: none), enters them in it and returns its id.
	Create(ctx context.Context, creator identity.ID, req NewPeople) (string, error)
	// State returns people's tournament id as viewer (zero: anyone) sees
	// it, as the API answers it.
	State(ctx context.Context, id string, viewer identity.ID) (any, error)
	// Enter joins (or, withdraw, takes out) a (or org's bot named bot) in
	// people's tournament id.
	Enter(ctx context.Context, id string, a core.Actor, org Organizer, bot string, withdraw bool) error
	// List returns the people's tournaments as the list shows them.
	List(ctx context.Context) ([]State, error)
	// Resume goes on with the unfinished people's tournaments.
	Resume(ctx context.Context) error
}

// NewPeople asks for a people's tournament (POST /api/tournaments with
// "people": true).
type NewPeople struct {
	Name        string
	Format      string
	Rules       kalah.Rules
	ClockMS     int64
	IncrementMS int64
	Minutes     int
	Rounds      int
	StartsInS   int
	Rated       *bool
}

// Config configures New.
type Config struct {
	// Host is the server that plays the games; People are the people's
	// tournaments beside them.
	Host   Host
	People People
	// Store is the server's store, which keeps the tournaments.
	Store *store.Store
	// Errors map the API's errors to their statuses.
	Errors *httpapi.Errors
	Log    *slog.Logger
	// AdminToken is the server's admin token, "" for none.
	AdminToken string
	// DataDir, if set, is the data directory whose tournaments.db (where
	// an older release kept its tournaments) is moved into the server's
	// store once.
	DataDir string
	// Wait bounds how long a tournament game waits for a bot that is not
	// free.
	Wait time.Duration
	// Max bounds the tournaments running at once (default 8).
	Max int
}

// Organizer is who asks for a tournament, which decides the bots it may
// enter.
type Organizer struct {
	// Admin is set for a request with the server's admin token: it may
	// enter any bot.
	Admin bool
	// Account is the signed-in person, who may enter the bots they own;
	// "" for none.
	Account string
}

// OrganizerServer is the tournament.Config.Organizer of the tournaments
// the server runs itself, which it resumes after a restart.
const OrganizerServer = "server"

// botPrefix starts a bot's player spec ("bot:alice"), as the server's
// BotPrefix.
const botPrefix = "bot:"

// maxTournaments bounds the tournaments running at once by default.
const maxTournaments = 8

// New returns the server's tournaments, kept in its store (moving in
// those an older release kept in c.DataDir's tournaments.db). They run
// until ctx ends; Start goes on with those the server was running when it
// last stopped, and Wait waits for them to stop.
func New(ctx context.Context, c Config) (*Tournaments, error) {
	st := tournament.New(c.Store)
	if c.DataDir != "" {
		if err := st.MoveIn(ctx, c.DataDir); err != nil {
			return nil, fmt.Errorf("tournaments: %w", err)
		}
	}
	if c.Max <= 0 {
		c.Max = maxTournaments
	}
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
	return &Tournaments{host: c.Host, people: c.People, st: st, ctx: ctx, wait: c.Wait, max: c.Max, log: c.Log,
		errMap: c.Errors, admin: c.AdminToken, gameIDs: map[int64]int64{}, running: map[int64]bool{}, errs: map[int64]string{}}, nil
}

// Start goes on with the tournaments, the server's and the people's, that
// were running when the server last stopped.
func (t *Tournaments) Start(ctx context.Context) error {
	if _, err := t.Resume(ctx); err != nil {
		return fmt.Errorf("tournaments: %w", err)
	}
	if t.people != nil {
		if err := t.people.Resume(ctx); err != nil {
			return fmt.Errorf("tournaments: %w", err)
		}
	}
	return nil
}

// Context is the context the tournaments run under.
func (t *Tournaments) Context() context.Context { return t.ctx }

// Go runs f in the background as one of the tournaments' goroutines,
// which Wait waits for; it returns false, and runs nothing, once they are
// stopping.
func (t *Tournaments) Go(f func()) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stopping || t.ctx.Err() != nil {
		return false
	}
	t.runs.Add(1)
	go func() {
		defer t.runs.Done()
		f()
	}()
	return true
}

// Store returns the tournaments' store (the server's, shared).
func (t *Tournaments) Store() *tournament.Store { return t.st }

// Wait waits until every tournament run has stopped (after the context
// New was given ends); no tournament starts after it is
// called.
func (t *Tournaments) Wait() {
	t.mu.Lock()
	t.stopping = true
	t.mu.Unlock()
	t.runs.Wait()
}

// NewTournament asks for a round robin (every pair of players meets
// Rounds times on each side), a gauntlet or a Swiss tournament.
type NewTournament struct {
	Name string `json:"name"`
	// Format is "roundrobin" (the default), "gauntlet" or "swiss".
	Format        string      `json:"format,omitempty"`
	Rules         kalah.Rules `json:"rules"`
	Players       []string    `json:"players"`
	Rounds        int         `json:"rounds"`
	PerMoveMillis int         `json:"per_move_ms"`
	DelayMillis   int         `json:"delay_ms"`
	Seed          uint64      `json:"seed"`
}

// Standing is one player's line in the table.
type Standing struct {
	Player string  `json:"player"`
	Games  int     `json:"games"`
	Wins   int     `json:"wins"`
	Draws  int     `json:"draws"`
	Losses int     `json:"losses"`
	Points float64 `json:"points"`
	Elo    float64 `json:"elo"`
	// EloErr is the half width of the rating's 95% interval, when known.
	EloErr float64 `json:"elo_err,omitempty"`
}

// Pairing is one game of a tournament.
type Pairing struct {
	South string `json:"south"`
	North string `json:"north"`
	// Game is the server game's id once it has started.
	Game   string       `json:"game,omitempty"`
	Result kalah.Result `json:"result"`
	Score  [2]int       `json:"score"`
	Done   bool         `json:"done"`
	// Reason says why the game was forfeited or adjudicated, if it was.
	Reason string `json:"reason,omitempty"`
}

// State is a tournament's progress.
type State struct {
	ID        string      `json:"id"`
	Name      string      `json:"name"`
	Format    string      `json:"format"`
	Rules     string      `json:"rules"`
	Players   []string    `json:"players"`
	Games     []Pairing   `json:"games"`
	Played    int         `json:"played"`
	Total     int         `json:"total"`
	Running   bool        `json:"running"`
	Error     string      `json:"error,omitempty"`
	Standings []Standing  `json:"standings"`
	Cross     [][]float64 `json:"cross"` // Cross[i][j]: points of player i against player j
	Created   time.Time   `json:"created"`
	// People marks, in the list, a people's tournament (an arena or a
	// Swiss that people and bots join: GET its id for its state), with its
	// Status ("waiting", "running", "finished") and start.
	People bool       `json:"people,omitempty"`
	Status string     `json:"status,omitempty"`
	Starts *time.Time `json:"starts,omitempty"`
}

// ErrNoTournament is returned for a tournament id that is not there.
var ErrNoTournament = errors.New("no such tournament")

// Create checks a tournament asked for by org, stores it and starts it.
// Its players are computer players the server may start (within its
// limits, no programs unless the admin asks on a server that allows
// them) and bots (bot:NAME) that org may enter: any for the admin, their
// own for a signed-in person, and any bot that accepts tournament games
// from anyone (logged in and waiting: it sent wait).
func (t *Tournaments) Create(ctx context.Context, org Organizer, req NewTournament) (string, error) {
	if req.PerMoveMillis < 0 || req.PerMoveMillis > 60_000 || req.DelayMillis < 0 || req.DelayMillis > 10_000 {
		return "", fmt.Errorf("%w: clock out of range", core.ErrBadRequest)
	}
	if req.Rounds < 0 || req.Rounds > 20 || len(req.Players) > 12 {
		return "", fmt.Errorf("%w: at most 20 rounds and 12 players", core.ErrBadRequest)
	}
	if len(req.Name) > 100 {
		return "", fmt.Errorf("%w: a name of at most 100 bytes", core.ErrBadRequest)
	}
	format, err := tournament.ParseFormat(req.Format)
	if err != nil || format == tournament.SPRT {
		return "", fmt.Errorf("%w: format %q (want roundrobin, gauntlet or swiss)", core.ErrBadRequest, req.Format)
	}
	if err := req.Rules.Validate(); err != nil {
		return "", fmt.Errorf("%w: %w", core.ErrBadRequest, err)
	}
	var bots []string
	for _, p := range req.Players {
		if strings.EqualFold(p, "human") || p == "" {
			return "", fmt.Errorf("%w: tournaments are between computer players", core.ErrBadRequest)
		}
		name, isBot, err := t.host.BotName(p)
		if err != nil {
			return "", fmt.Errorf("%w: %w", core.ErrBadRequest, err)
		}
		if isBot {
			if slices.Contains(bots, name) {
				return "", fmt.Errorf("%w: bot %s entered twice (a bot cannot play itself)", core.ErrBadRequest, name)
			}
			bots = append(bots, name)
			continue
		}
		if err := t.host.Startable(p, org.Admin); err != nil {
			return "", err
		}
	}
	for _, name := range bots {
		if err := t.host.MayEnter(ctx, org, name); err != nil {
			return "", err
		}
	}
	cfg := tournament.Config{Name: req.Name, Format: format, Players: req.Players, Rounds: max(req.Rounds, 1),
		Rules: req.Rules, Seed: req.Seed, Organizer: OrganizerServer, Clock: tournament.Clock{
			PerMove: time.Duration(req.PerMoveMillis) * time.Millisecond, Delay: time.Duration(req.DelayMillis) * time.Millisecond,
			Grace: 250 * time.Millisecond}}
	if cfg.Name == "" {
		cfg.Name = "Web tournament"
	}
	t.mu.Lock()
	busy, stopping := t.busyLocked(), t.stopping || t.ctx.Err() != nil
	t.mu.Unlock()
	if stopping {
		return "", fmt.Errorf("%w: the server's tournaments are stopping", core.ErrClosed)
	}
	if busy {
		return "", fmt.Errorf("%w: %d tournaments are running, the most this server runs at once", core.ErrBusy, t.max)
	}
	// Its games are the server's computers' work: paid for up front,
	// against the organizer's budget and the server's, given back when it
	// ends (the admin's is charged, never refused).
	payer := ""
	if org.Account != "" {
		payer = identity.Of(identity.Person, org.Account).Key()
	}
	free, err := t.host.Charge(payer, t.work(cfg), org.Admin)
	if err != nil {
		return "", fmt.Errorf("a tournament of %d games: %w", len(tournament.PlannedGames(cfg)), err)
	}
	id, err := t.st.Create(ctx, cfg)
	if err != nil {
		free()
		if errors.Is(err, tournament.ErrConfig) {
			return "", fmt.Errorf("%w: %w", core.ErrBadRequest, err)
		}
		return "", err
	}
	if !t.start(id, free) {
		return "", fmt.Errorf("%w: the server's tournaments are stopping; tournament %d starts with them next time", core.ErrClosed, id)
	}
	t.log.Info("tournament created", "tournament", id, "by", org.Account, "admin", org.Admin, "players", len(cfg.Players))
	return strconv.FormatInt(id, 10), nil
}

// work estimates the computer time cfg's games may cost: each game's
// programs' most time a move over its plies (bots compute on their own
// machines).
func (t *Tournaments) work(cfg tournament.Config) time.Duration {
	spec := func(p string) string {
		if _, isBot, _ := t.host.BotName(p); isBot {
			return ""
		}
		return p
	}
	var w time.Duration
	for _, g := range tournament.PlannedGames(cfg) {
		w += t.host.GameWork(cfg.Rules, spec(cfg.Players[g[0]]), spec(cfg.Players[g[1]]))
	}
	return w
}

// start runs tournament id in the background, unless it runs already or
// the tournaments are stopping; free gives back its charge of work when
// it ends (or at once if it does not start).
func (t *Tournaments) start(id int64, free func()) bool {
	t.mu.Lock()
	if t.stopping || t.ctx.Err() != nil || t.running[id] {
		t.mu.Unlock()
		free()
		return false
	}
	t.running[id] = true
	delete(t.errs, id)
	t.runs.Add(1)
	t.mu.Unlock()
	go func() {
		defer t.runs.Done()
		defer free()
		x := t.host.Executor(t.wait, t.log, func(job tournament.Job, game int64) {
			t.mu.Lock()
			t.gameIDs[job.Game.ID] = game
			t.mu.Unlock()
		})
		err := t.st.Run(t.ctx, id, tournament.RunOptions{Executor: x, Log: t.log})
		t.mu.Lock()
		defer t.mu.Unlock()
		t.running[id] = false
		if err != nil && t.ctx.Err() == nil {
			t.errs[id] = err.Error()
			t.log.Error("tournament stopped", "tournament", id, "err", err)
		}
	}()
	return true
}

// busyLocked reports whether as many tournaments as allowed are running;
// t.mu is held.
func (t *Tournaments) busyLocked() bool {
	n := 0
	for _, r := range t.running {
		if r {
			n++
		}
	}
	return n >= t.max
}

// Resume goes on with the tournaments the server was running when it
// stopped: the unfinished ones it organized and, from older releases,
// those whose players may all be started here and whose games so far were
// all played by the page. Results are stored once per game, so even a
// tournament also resumed from the command line counts no game twice. It
// returns the ids resumed.
func (t *Tournaments) Resume(ctx context.Context) ([]string, error) {
	infos, err := t.st.List(ctx)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, in := range infos {
		if in.Status == tournament.StatusFinished || !t.ours(ctx, in) {
			continue
		}
		t.mu.Lock()
		skip := t.running[in.ID] || t.busyLocked()
		t.mu.Unlock()
		if skip {
			continue
		}
		// A tournament taken on before the restart is charged again,
		// never refused.
		free, _ := t.host.Charge("", t.work(in.Config), true)
		if t.start(in.ID, free) {
			out = append(out, strconv.FormatInt(in.ID, 10))
		}
	}
	return out, nil
}

// ours reports whether the server runs a tournament: one it organized, or
// one the page of an older release ran (every game so far played by
// worker "web", at least one if it has bots, and every player one the
// page could start).
func (t *Tournaments) ours(ctx context.Context, in tournament.Info) bool {
	if in.Config.Organizer == OrganizerServer {
		return true
	}
	if in.Config.Organizer != "" {
		return false
	}
	bots := false
	for _, p := range in.Config.Players {
		if _, ok, _ := t.host.BotName(p); ok {
			bots = true
			continue
		}
		if t.host.Startable(p, false) != nil {
			return false
		}
	}
	played, err := t.st.Games(ctx, in.ID)
	if err != nil || bots && len(played) == 0 {
		return false
	}
	for _, g := range played {
		if g.Worker != "web" {
			return false
		}
	}
	return true
}

func tournamentID(id string) (int64, error) {
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%w: %q", ErrNoTournament, id)
	}
	return n, nil
}

// State returns a tournament's progress, standings and cross-table.
func (t *Tournaments) State(ctx context.Context, id string) (State, error) {
	n, err := tournamentID(id)
	if err != nil {
		return State{}, err
	}
	// Whether it runs is read before the store: a run that ends in between
	// has stored its status by then.
	t.mu.Lock()
	running, runErr := t.running[n], t.errs[n]
	t.mu.Unlock()
	in, err := t.st.Tournament(ctx, n)
	if errors.Is(err, tournament.ErrNotFound) {
		return State{}, fmt.Errorf("%w: %s", ErrNoTournament, id)
	}
	if err != nil {
		return State{}, err
	}
	out := State{ID: id, Name: in.Name, Format: string(in.Config.Format), Rules: in.Config.Rules.String(), Players: in.Config.Players,
		Played: in.Played, Total: in.Games, Created: in.Created, Games: []Pairing{}, Running: running, Error: runErr}
	if !out.Running && in.Status != tournament.StatusFinished && out.Error == "" {
		out.Error = fmt.Sprintf("%s, not running here: resume it with kalah tournament --resume %d", in.Status, n)
	}
	standings, err := t.st.Standings(ctx, n)
	if err != nil {
		return State{}, err
	}
	for _, s := range standings {
		out.Standings = append(out.Standings, Standing{Player: s.Player, Games: s.Games, Wins: s.Wins, Draws: s.Draws,
			Losses: s.Losses, Points: float64(s.Points) / tournament.WinPoints, Elo: s.Elo, EloErr: s.EloErr})
	}
	cross, err := t.st.CrossTable(ctx, n)
	if err != nil {
		return State{}, err
	}
	for _, row := range cross {
		r := make([]float64, len(row))
		for j, c := range row {
			r[j] = float64(c.Points) / tournament.WinPoints
		}
		out.Cross = append(out.Cross, r)
	}
	sched, err := t.st.Schedule(ctx, n)
	if err != nil {
		return State{}, err
	}
	played, err := t.st.Games(ctx, n)
	if err != nil {
		return State{}, err
	}
	done := map[int64]tournament.Played{}
	for _, p := range played {
		done[p.ID] = p
	}
	name := func(i int) string {
		if i >= 0 && i < len(in.Config.Players) {
			return in.Config.Players[i]
		}
		return "?"
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, g := range sched {
		pr := Pairing{South: name(g.South), North: name(g.North)}
		if gid, ok := t.gameIDs[g.ID]; ok {
			pr.Game = strconv.FormatInt(gid, 10)
		}
		if p, ok := done[g.ID]; ok {
			pr.Done, pr.Score, pr.Reason = true, [2]int{p.SouthSeeds, p.NorthSeeds}, p.Reason
			switch {
			case p.SouthSeeds > p.NorthSeeds:
				pr.Result = kalah.SouthWins
			case p.SouthSeeds < p.NorthSeeds:
				pr.Result = kalah.NorthWins
			default:
				pr.Result = kalah.Draw
			}
		}
		out.Games = append(out.Games, pr)
	}
	return out, nil
}

// List returns every tournament in the store, computers' and people's,
// newest first.
func (t *Tournaments) List(ctx context.Context) ([]State, error) {
	infos, err := t.st.List(ctx)
	if err != nil {
		return nil, err
	}
	var people []State
	if t.people != nil {
		if people, err = t.people.List(ctx); err != nil {
			return nil, err
		}
	}
	out := make([]State, 0, len(infos)+len(people))
	t.mu.Lock()
	for _, in := range infos {
		out = append(out, State{ID: strconv.FormatInt(in.ID, 10), Name: in.Name, Format: string(in.Config.Format),
			Rules: in.Config.Rules.String(), Players: in.Config.Players, Played: in.Played, Total: in.Games, Created: in.Created,
			Running: t.running[in.ID]})
	}
	t.mu.Unlock()
	out = append(out, people...)
	slices.SortStableFunc(out, func(a, b State) int { return b.Created.Compare(a.Created) })
	return out, nil
}

// Bots returns the bots waiting for tournament games, as player specs
// ("bot:alice"), for the page to offer.
func (t *Tournaments) Bots() []string {
	var out []string
	for _, name := range t.host.WaitingBots() {
		out = append(out, botPrefix+name)
	}
	return out
}
