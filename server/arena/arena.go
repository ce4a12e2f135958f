// Package arena runs the people's tournaments: an arena or a Swiss that
// people and bots join, each game a people's game of the server.
package arena

import (
	"cmp"
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
	"kalah/internal/identity"
	"kalah/internal/netx"
	"kalah/internal/store"
	"kalah/server/core"
)

// People's tournaments are those people and bots join on the page, as on
// the sites people know: an arena (a fixed time; whoever's game ends is
// paired again at once; points with a streak bonus) or a Swiss (rounds,
// pairings by score, a bye for the odd one out). Every game is a people's
// game of the server under a Fischer clock, listed, watched and rated like
// any other; a person plays it on the game page, a bot over its connection
// (a bot must be logged in and have sent wait, as for every game the
// server arranges). They are kept in the store's people_tournament tables,
// run by one director goroutine each (run.go), and resumed after a
// restart. The server starts their games and says when each ends (Host).

// Formats of people's tournaments.
const (
	FormatArena = "arena"
	FormatSwiss = "swiss"
)

// Prefix starts a people's tournament's id, which keeps it apart
// from the computer tournaments' numbers: "p7".
const Prefix = "p"

// Bounds of people's tournaments asked for over the network.
const (
	MaxEntrants        = 100 // entrants of one tournament
	maxPeopleOpen      = 20  // unfinished people's tournaments on a server
	MaxByCreator       = 3   // unfinished ones one person created
	maxArenaMinutes    = 12 * 60
	maxSwissRounds     = 20
	maxStartsIn        = 7 * 24 * 3600 // seconds
	minPeopleClock     = 10 * time.Second
	maxPeopleClock     = 3 * time.Hour
	maxPeopleIncrement = time.Minute
	// MaxListedGames bounds the games a state lists (the newest), so a
	// long arena's state stays small for the pages that ask every second.
	MaxListedGames = 200
)

// Arena points: a win scores 2, a draw 1, a loss nothing; from the third
// win in a row on (a player "on fire"), each game scores double until one
// is not won, as on lichess.
const (
	arenaWin  = 2
	arenaDraw = 1
	fireAfter = 2 // wins in a row that set a player on fire
)

// ErrTournamentOver refuses to join a tournament that is over, or a Swiss
// whose last round has begun.
var ErrTournamentOver = errors.New("the tournament is over")

// Organizer is who asks to enter or withdraw a bot, which decides the
// bots they may.
type Organizer struct {
	// Admin is set for a request with the server's admin token: it may
	// enter any bot.
	Admin bool
	// Account is the signed-in person, who may enter the bots they own;
	// "" for none.
	Account string
}

// New asks for a people's tournament (POST
// /api/tournaments with "people": true).
type New struct {
	Name string
	// Format is "arena" or "swiss".
	Format string
	// Rules of every game; zero means the server's.
	Rules kalah.Rules
	// ClockMS and IncrementMS are every game's Fischer clock.
	ClockMS, IncrementMS int64
	// Minutes is an arena's length; Rounds a Swiss's rounds.
	Minutes, Rounds int
	// StartsInS is how long from now it starts, in seconds.
	StartsInS int
	// Rated games count on the ladders (when their players may be rated
	// against each other); nil means rated.
	Rated *bool
}

// Standing is one player's line in a people's tournament's table.
type Standing struct {
	Rank   int         `json:"rank"`
	ID     identity.ID `json:"id"`
	Name   string      `json:"name"`
	Points int         `json:"points"`
	Games  int         `json:"games"`
	Wins   int         `json:"wins"`
	Draws  int         `json:"draws"`
	Losses int         `json:"losses"`
	Byes   int         `json:"byes,omitempty"`
	// Scores are the points of each counted game in the order they ended
	// (a Swiss's byes among them), as the page's score sheet shows them.
	Scores []int `json:"scores"`
	// Fire is set for an arena player on a streak: their next win counts
	// double.
	Fire bool `json:"fire,omitempty"`
	// Buchholz, in a Swiss, sums the points of the player's opponents: the
	// first tie-break.
	Buchholz int `json:"buchholz,omitempty"`
	// Active is false for a player who withdrew (or was withdrawn after a
	// game they never moved in).
	Active bool `json:"active"`
	// Playing is the server game the player is in now, if any.
	Playing string `json:"playing,omitempty"`
	seq     int
}

// Game is one game of a people's tournament.
type Game struct {
	// Game is the server game's id, once it started.
	Game    string      `json:"game,omitempty"`
	Round   int         `json:"round,omitempty"`
	South   string      `json:"south"`
	North   string      `json:"north"`
	SouthID identity.ID `json:"south_id"`
	NorthID identity.ID `json:"north_id"`
	// Result is "1-0" (the seat that started South won), "0-1", "½-½",
	// "-" for none (aborted), or "" while it is played.
	Result string `json:"result"`
	Done   bool   `json:"done"`
	// Counted games count in the standings; Points are what each seat
	// scored in them.
	Counted bool   `json:"counted"`
	Points  [2]int `json:"points"`
	Note    string `json:"note,omitempty"`
}

// You is the requester's place in a people's tournament.
type You struct {
	ID     identity.ID `json:"id"`
	Joined bool        `json:"joined"`
	Active bool        `json:"active"`
	// Game is the requester's game of the tournament in play, if any.
	Game string `json:"game,omitempty"`
}

// State is a people's tournament as GET
// /api/tournaments/{id} shows it.
type State struct {
	ID          string `json:"id"`
	People      bool   `json:"people"`
	Name        string `json:"name"`
	Format      string `json:"format"`
	Rules       string `json:"rules"`
	ClockMS     int64  `json:"clock_ms"`
	IncrementMS int64  `json:"increment_ms"`
	Minutes     int    `json:"minutes,omitempty"`
	Rounds      int    `json:"rounds,omitempty"`
	// Round is the Swiss round being played (0 before the first).
	Round   int    `json:"round,omitempty"`
	Rated   bool   `json:"rated"`
	Creator string `json:"creator"`
	// Status is "waiting" (to start), "running" or "finished".
	Status  string    `json:"status"`
	Running bool      `json:"running"`
	Starts  time.Time `json:"starts"`
	// Ends is when an arena ends.
	Ends *time.Time `json:"ends,omitempty"`
	// StartsInMS and LeftMS count down to the start and, for an arena, to
	// its end, as of the answer.
	StartsInMS int64 `json:"starts_in_ms,omitempty"`
	LeftMS     int64 `json:"left_ms,omitempty"`
	// Played counts the games counted so far.
	Played    int        `json:"played"`
	Standings []Standing `json:"standings"`
	// Games, newest first: the last MaxListedGames of GamesTotal.
	Games      []Game `json:"games"`
	GamesTotal int    `json:"games_total"`
	// Winner, once it is over: the first of the standings (none if no
	// game counted).
	Winner   string      `json:"winner,omitempty"`
	WinnerID identity.ID `json:"winner_id,omitzero"`
	Note     string      `json:"note,omitempty"`
	You      *You        `json:"you,omitempty"`
	Created  time.Time   `json:"created"`
}

// Config is what a Tours is made of.
type Config struct {
	// Host is the server that plays the games.
	Host Host
	// Store keeps the tournaments, and the games the host stores.
	Store *store.Store
	Log   *slog.Logger
	// Rules are a tournament's games' when it asks for none.
	Rules kalah.Rules
	// Wait is how long a Swiss game waits for a bot in it to be free.
	Wait time.Duration
	// Pause is the pause between the rounds of a Swiss.
	Pause time.Duration
	// Context is what the directors run under: they stop when it ends.
	Context context.Context
	// Go runs f in the background as one of the tournaments' goroutines,
	// which the server waits for when it stops; it returns false, and runs
	// nothing, once they are stopping.
	Go func(f func()) bool
	// NoTournament is the error a tournament that is not there wraps (the
	// server's, shared with its computer tournaments); nil means
	// ErrNoTournament.
	NoTournament error
}

// ErrNoTournament is Config.NoTournament's default.
var ErrNoTournament = errors.New("no such tournament")

// Tours runs a server's people's tournaments. Its lock guards only the
// directors running and the snapshots kept; it is never held while the
// host or the store is called.
type Tours struct {
	cfg  Config
	host Host
	st   *store.Store
	log  *slog.Logger
	rate *netx.Limiter // creations, joins and withdrawals by identity

	mu        sync.Mutex
	directors map[int64]*director
	cache     map[int64]*snapshot // by tournament
}

// NewTours returns the people's tournaments of cfg; Resume starts those
// the store holds unfinished.
func NewTours(cfg Config) *Tours {
	if cfg.NoTournament == nil {
		cfg.NoTournament = ErrNoTournament
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	return &Tours{cfg: cfg, host: cfg.Host, st: cfg.Store, log: cfg.Log,
		rate: netx.NewLimiter(1, 10), directors: map[int64]*director{}, cache: map[int64]*snapshot{}}
}

// Store is the store the tournaments are kept in.
func (p *Tours) Store() *store.Store { return p.st }

// IsID reports whether id names a people's tournament ("p7").
func IsID(id string) bool { return strings.HasPrefix(id, Prefix) }

// number returns the number of people's tournament id ("p7": 7).
func (p *Tours) number(id string) (int64, error) {
	n, err := strconv.ParseInt(strings.TrimPrefix(id, Prefix), 10, 64)
	if !IsID(id) || err != nil || n <= 0 {
		return 0, fmt.Errorf("%w: %q", p.cfg.NoTournament, id)
	}
	return n, nil
}

// IDString is the id of people's tournament n: "p7".
func IDString(n int64) string { return Prefix + strconv.FormatInt(n, 10) }

// allow applies the rate of creations, joins and withdrawals to who.
func (p *Tours) allow(who identity.ID) error {
	if !p.rate.Allow(who.Key()) {
		p.host.Refused("tournament-rate")
		return fmt.Errorf("%w: too many tournament requests; wait a little", core.ErrTooMany)
	}
	return nil
}

// Create stores a people's tournament asked for by person creator, who
// joins it, and starts its director.
func (p *Tours) Create(ctx context.Context, creator identity.ID, req New) (string, error) {
	if creator.Kind != identity.Person {
		return "", fmt.Errorf("%w: sign in to start a tournament", core.ErrSignIn)
	}
	format := strings.ToLower(strings.TrimSpace(req.Format))
	clock, inc := time.Duration(req.ClockMS)*time.Millisecond, time.Duration(req.IncrementMS)*time.Millisecond
	switch {
	case format != FormatArena && format != FormatSwiss:
		return "", fmt.Errorf("%w: format %q: a people's tournament is an arena or a swiss", core.ErrBadRequest, req.Format)
	case clock < minPeopleClock || clock > maxPeopleClock || inc < 0 || inc > maxPeopleIncrement:
		return "", fmt.Errorf("%w: a clock of %v+%v: want %v to %v a game and at most %v a move", core.ErrBadRequest, clock, inc, minPeopleClock, maxPeopleClock, maxPeopleIncrement)
	case format == FormatArena && (req.Minutes < 1 || req.Minutes > maxArenaMinutes || req.Rounds != 0):
		return "", fmt.Errorf("%w: an arena lasts 1 to %d minutes (minutes), and has no rounds", core.ErrBadRequest, maxArenaMinutes)
	case format == FormatSwiss && (req.Rounds < 1 || req.Rounds > maxSwissRounds || req.Minutes != 0):
		return "", fmt.Errorf("%w: a swiss has 1 to %d rounds (rounds), and no minutes", core.ErrBadRequest, maxSwissRounds)
	case req.StartsInS < 0 || req.StartsInS > maxStartsIn:
		return "", fmt.Errorf("%w: starts_in_s %d: want 0 to %d", core.ErrBadRequest, req.StartsInS, maxStartsIn)
	}
	rules := req.Rules
	if rules.Houses == 0 && rules.Seeds == 0 {
		rules = p.cfg.Rules
	}
	if err := rules.Validate(); err != nil {
		return "", fmt.Errorf("%w: %w", core.ErrBadRequest, err)
	}
	name := identity.CleanText(strings.TrimSpace(req.Name), 60)
	if name == "" {
		name = creator.Display() + "'s " + map[string]string{FormatArena: "arena", FormatSwiss: "Swiss"}[format]
	}
	open, err := p.st.PeopleTournaments(ctx, true, 1000)
	if err != nil {
		return "", err
	}
	mine := 0
	for _, o := range open {
		if o.Creator.Is(creator) {
			mine++
		}
	}
	switch {
	case mine >= MaxByCreator:
		return "", fmt.Errorf("%w: you have %d tournaments not finished, the most one person may", core.ErrTooMany, mine)
	case len(open) >= maxPeopleOpen:
		return "", fmt.Errorf("%w: %d tournaments are not finished, the most this server holds", core.ErrBusy, len(open))
	}
	if err := p.allow(creator); err != nil {
		return "", err
	}
	t := store.PeopleTournament{Name: name, Format: format, Creator: creator, Rules: rules, ClockMS: req.ClockMS, IncrementMS: req.IncrementMS,
		Minutes: req.Minutes, Rounds: req.Rounds, Rated: req.Rated == nil || *req.Rated,
		Starts: time.Now().Add(time.Duration(req.StartsInS) * time.Second)}
	id, err := p.st.CreatePeopleTournament(ctx, t)
	if err != nil {
		return "", err
	}
	if _, err := p.st.JoinPeopleTournament(ctx, id, creator, MaxEntrants); err != nil {
		return "", err
	}
	if !p.Start(id) {
		return "", fmt.Errorf("%w: the server's tournaments are stopping; tournament %s starts with them next time", core.ErrClosed, IDString(id))
	}
	p.log.Info("people's tournament created", "tournament", IDString(id), "by", creator.Key(), "format", format)
	return IDString(id), nil
}

// entrant returns who a join or a withdrawal is for: the bot named (which
// org or the bot itself may enter; withdrawing, only its owner, the admin
// or itself), else the requester, who must be signed in or a bot.
func (p *Tours) entrant(ctx context.Context, a core.Actor, org Organizer, bot string, joining bool) (identity.ID, error) {
	if bot == "" {
		if a.ID.Kind != identity.Person && a.ID.Kind != identity.Bot {
			return identity.ID{}, fmt.Errorf("%w: sign in to take part in a tournament", core.ErrSignIn)
		}
		return a.ID, nil
	}
	name, err := p.host.BotName(bot)
	if err != nil {
		return identity.ID{}, fmt.Errorf("%w: %w", core.ErrBadRequest, err)
	}
	// The bot under its own spelling of its name: its owner's, or the one
	// it logged in with.
	mine, waiting := false, false
	if org.Account != "" {
		owned, err := p.st.BotsOf(ctx, org.Account)
		if err != nil {
			return identity.ID{}, err
		}
		for _, b := range owned {
			if strings.EqualFold(b, name) {
				name, mine = b, true
			}
		}
	}
	for _, b := range p.host.WaitingBots() {
		if strings.EqualFold(b, name) {
			name, waiting = b, true
		}
	}
	id := identity.Of(identity.Bot, name)
	switch {
	case a.ID.Is(id), org.Admin, mine, joining && waiting:
		return id, nil
	case joining:
		return identity.ID{}, fmt.Errorf("%w: bot %s is not yours and does not take games from anyone now: its owner may enter it, or the bot joins itself (by its token) or accepts games by logging in and sending wait (kalah bot --wait)", core.ErrForbidden, name)
	}
	return identity.ID{}, fmt.Errorf("%w: bot %s is not yours: only its owner, the admin or the bot itself may withdraw it", core.ErrForbidden, name)
}

// Join enters who (see entrant) in tournament id, or brings them back
// after a withdrawal: an arena takes players until it ends, a Swiss until
// its last round begins.
func (p *Tours) Join(ctx context.Context, id string, a core.Actor, org Organizer, bot string) (identity.ID, error) {
	n, err := p.number(id)
	if err != nil {
		return identity.ID{}, err
	}
	who, err := p.entrant(ctx, a, org, bot, true)
	if err != nil {
		return who, err
	}
	if err := p.allow(a.ID); err != nil {
		return who, err
	}
	t, err := p.tournament(ctx, n)
	if err != nil {
		return who, err
	}
	switch {
	case t.Status == store.TourFinished:
		return who, ErrTournamentOver
	case t.Format == FormatArena && t.Status == store.TourRunning && !time.Now().Before(arenaEnd(t)):
		return who, ErrTournamentOver
	case t.Format == FormatSwiss && t.Round >= t.Rounds:
		return who, fmt.Errorf("%w: its last round has begun", ErrTournamentOver)
	}
	if _, err := p.st.JoinPeopleTournament(ctx, n, who, MaxEntrants); err != nil {
		if errors.Is(err, store.ErrFull) {
			return who, fmt.Errorf("%w: %w", core.ErrTooMany, err)
		}
		return who, err
	}
	p.forget(n)
	p.nudge(n)
	return who, nil
}

// Withdraw takes who (see entrant) out of tournament id's pairings; they
// keep their points, and may join again. A game in play goes on.
func (p *Tours) Withdraw(ctx context.Context, id string, a core.Actor, org Organizer, bot string) (identity.ID, error) {
	n, err := p.number(id)
	if err != nil {
		return identity.ID{}, err
	}
	who, err := p.entrant(ctx, a, org, bot, false)
	if err != nil {
		return who, err
	}
	if err := p.allow(a.ID); err != nil {
		return who, err
	}
	if _, err := p.tournament(ctx, n); err != nil {
		return who, err
	}
	if err := p.st.WithdrawFromPeopleTournament(ctx, n, who); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return who, fmt.Errorf("%w: %s has not joined tournament %s", core.ErrBadRequest, who.Display(), id)
		}
		return who, err
	}
	p.forget(n)
	p.nudge(n)
	return who, nil
}

// tournament reads people's tournament n, ErrNoTournament if there is
// none.
func (p *Tours) tournament(ctx context.Context, n int64) (store.PeopleTournament, error) {
	t, err := p.st.PeopleTournament(ctx, n)
	if errors.Is(err, store.ErrNotFound) {
		return t, fmt.Errorf("%w: %s", p.cfg.NoTournament, IDString(n))
	}
	return t, err
}

func arenaEnd(t store.PeopleTournament) time.Time {
	return t.Starts.Add(time.Duration(t.Minutes) * time.Minute)
}

// table holds a tournament's standings and each counted game's points.
type table struct {
	standings []Standing
	points    map[int64][2]int // by pairing
	played    int
}

// seatScores returns what each seat of a finished pairing scored: 1 a win,
// ½ a draw, as halves (2, 1, 0).
func seatScores(result string) ([2]int, bool) {
	switch result {
	case store.PairSouth:
		return [2]int{2, 0}, true
	case store.PairNorth:
		return [2]int{0, 2}, true
	case store.PairDraw:
		return [2]int{1, 1}, true
	}
	return [2]int{}, false
}

// standings ranks a tournament's entrants from its pairings (in the order
// their games ended) and byes: an arena by points with the streak bonus,
// then wins, then fewer games; a Swiss by points (a bye a win), then the
// Buchholz score, then wins. Ties keep the order of joining.
func standings(t store.PeopleTournament, entrants []store.PeopleEntrant, pairings []store.PeoplePairing, byes map[int]identity.ID) table {
	lines := map[string]*Standing{}
	var order []*Standing
	lineOf := func(id identity.ID) *Standing {
		if l := lines[id.Key()]; l != nil {
			return l
		}
		l := &Standing{ID: id, Name: id.Display(), Scores: []int{}, seq: len(entrants) + len(order)}
		lines[id.Key()] = l
		order = append(order, l)
		return l
	}
	for _, e := range entrants {
		l := lineOf(e.ID)
		l.Active, l.seq = e.Active, e.Seq
	}
	streak := map[string]int{}
	opponents := map[string][]string{}
	out := table{points: map[int64][2]int{}}
	arena := t.Format == FormatArena
	for _, pr := range pairings {
		ids := [2]identity.ID{pr.South, pr.North}
		if pr.Result == "" && pr.Game != 0 {
			for _, id := range ids {
				lineOf(id).Playing = strconv.FormatInt(pr.Game, 10)
			}
			continue
		}
		sc, ok := seatScores(pr.Result)
		if !pr.Counted || !ok {
			continue
		}
		out.played++
		var pts [2]int
		for i, id := range ids {
			l := lineOf(id)
			k := id.Key()
			l.Games++
			switch sc[i] {
			case 2:
				l.Wins++
				pts[i] = arenaWin
			case 1:
				l.Draws++
				pts[i] = arenaDraw
			default:
				l.Losses++
			}
			if arena {
				if streak[k] >= fireAfter {
					pts[i] *= 2
				}
				if sc[i] == 2 {
					streak[k]++
				} else {
					streak[k] = 0
				}
			}
			l.Points += pts[i]
			l.Scores = append(l.Scores, pts[i])
			opponents[k] = append(opponents[k], ids[1-i].Key())
		}
		out.points[pr.ID] = pts
	}
	rounds := make([]int, 0, len(byes))
	for r := range byes {
		rounds = append(rounds, r)
	}
	slices.Sort(rounds)
	for _, r := range rounds {
		l := lineOf(byes[r])
		l.Byes++
		l.Points += arenaWin
		l.Scores = append(l.Scores, arenaWin)
	}
	for _, l := range order {
		l.Fire = arena && streak[l.ID.Key()] >= fireAfter
		if !arena {
			for _, o := range opponents[l.ID.Key()] {
				l.Buchholz += lines[o].Points
			}
		}
	}
	slices.SortStableFunc(order, func(a, b *Standing) int {
		return cmp.Or(cmp.Compare(b.Points, a.Points), cmp.Compare(b.Buchholz, a.Buchholz), cmp.Compare(b.Wins, a.Wins),
			cmp.Compare(a.Games, b.Games), cmp.Compare(a.seq, b.seq))
	})
	for i, l := range order {
		l.Rank = i + 1
		out.standings = append(out.standings, *l)
	}
	return out
}

// resultText shows a pairing's result as the page does.
func resultText(result string) string {
	return map[string]string{store.PairSouth: "1-0", store.PairNorth: "0-1", store.PairDraw: "½-½", store.PairNone: "-"}[result]
}

// snapshot is what a tournament's state is computed from, read at one
// moment; nothing in it changes once made.
type snapshot struct {
	t        store.PeopleTournament
	entrants []store.PeopleEntrant
	pairings []store.PeoplePairing
	byes     map[int]identity.ID
	at       time.Time
}

// snapshotTTL is how long a snapshot answers for a tournament: however
// many pages watch it (each asks every second), the store reads it a few
// times a second at most. A join or a withdrawal shows at once.
const snapshotTTL = 300 * time.Millisecond

// snapshot returns tournament n as of at most snapshotTTL ago.
func (p *Tours) snapshot(ctx context.Context, n int64) (*snapshot, error) {
	p.mu.Lock()
	s := p.cache[n]
	p.mu.Unlock()
	if s != nil && time.Since(s.at) < snapshotTTL {
		return s, nil
	}
	s = &snapshot{at: time.Now()}
	var err error
	if s.t, err = p.tournament(ctx, n); err != nil {
		return nil, err
	}
	if s.entrants, err = p.st.PeopleEntrants(ctx, n); err != nil {
		return nil, err
	}
	if s.pairings, err = p.st.PeoplePairings(ctx, n); err != nil {
		return nil, err
	}
	if s.byes, err = p.st.PeopleByes(ctx, n); err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for k, old := range p.cache {
		if time.Since(old.at) >= snapshotTTL {
			delete(p.cache, k)
		}
	}
	p.cache[n] = s
	return s, nil
}

// forget drops tournament n's snapshot: it has just changed.
func (p *Tours) forget(n int64) {
	p.mu.Lock()
	delete(p.cache, n)
	p.mu.Unlock()
}

// State returns people's tournament id as viewer (zero: anyone) sees it.
func (p *Tours) State(ctx context.Context, id string, viewer identity.ID) (State, error) {
	n, err := p.number(id)
	if err != nil {
		return State{}, err
	}
	snap, err := p.snapshot(ctx, n)
	if err != nil {
		return State{}, err
	}
	t, entrants, pairings, byes := snap.t, snap.entrants, snap.pairings, snap.byes
	now := time.Now()
	out := State{ID: id, People: true, Name: t.Name, Format: t.Format, Rules: t.Rules.String(), ClockMS: t.ClockMS,
		IncrementMS: t.IncrementMS, Minutes: t.Minutes, Rounds: t.Rounds, Round: t.Round, Rated: t.Rated, Creator: t.Creator.Display(),
		Status: t.Status, Running: t.Status == store.TourRunning, Starts: t.Starts, Note: t.Note, Created: t.Created, Games: []Game{}}
	if t.Status == store.TourWaiting && t.Starts.After(now) {
		out.StartsInMS = t.Starts.Sub(now).Milliseconds()
	}
	if t.Format == FormatArena {
		end := arenaEnd(t)
		out.Ends = &end
		if t.Status != store.TourFinished && end.After(now) {
			out.LeftMS = end.Sub(now).Milliseconds()
		}
	}
	tb := standings(t, entrants, pairings, byes)
	out.Standings, out.Played = tb.standings, tb.played
	if out.Standings == nil {
		out.Standings = []Standing{}
	}
	if t.Status == store.TourFinished && tb.played+len(byes) > 0 && len(out.Standings) > 0 {
		out.Winner, out.WinnerID = out.Standings[0].Name, out.Standings[0].ID
	}
	for i := len(pairings) - 1; i >= 0; i-- {
		pr := pairings[i]
		if pr.Game == 0 && pr.Result == store.PairNone {
			continue // never started: nothing to show
		}
		g := Game{Round: pr.Round, South: pr.South.Display(), North: pr.North.Display(), SouthID: pr.South, NorthID: pr.North,
			Result: resultText(pr.Result), Done: pr.Result != "", Counted: pr.Counted, Points: tb.points[pr.ID], Note: pr.Note}
		if pr.Game != 0 {
			g.Game = strconv.FormatInt(pr.Game, 10)
		}
		out.Games = append(out.Games, g)
	}
	// Newest first: by when each was paired.
	slices.SortStableFunc(out.Games, func(a, b Game) int {
		an, _ := strconv.ParseInt(a.Game, 10, 64)
		bn, _ := strconv.ParseInt(b.Game, 10, 64)
		return cmp.Compare(bn, an)
	})
	out.GamesTotal = len(out.Games)
	out.Games = out.Games[:min(len(out.Games), MaxListedGames)]
	if !viewer.IsZero() {
		you := &You{ID: viewer}
		for _, e := range entrants {
			if e.ID.Is(viewer) {
				you.Joined, you.Active = true, e.Active
			}
		}
		for _, s := range out.Standings {
			if s.ID.Is(viewer) {
				you.Game = s.Playing
			}
		}
		out.You = you
	}
	return out, nil
}

// Listed is a people's tournament in the list of tournaments.
type Listed struct {
	ID, Name, Format, Rules string
	Players                 []string
	Running                 bool
	Created                 time.Time
	Status                  string
	Starts                  time.Time
}

// List returns the people's tournaments, newest first, as the list of
// tournaments shows them.
func (p *Tours) List(ctx context.Context) ([]Listed, error) {
	ts, err := p.st.PeopleTournaments(ctx, false, 100)
	if err != nil {
		return nil, err
	}
	out := make([]Listed, 0, len(ts))
	for _, t := range ts {
		entrants, err := p.st.PeopleEntrants(ctx, t.ID)
		if err != nil {
			return nil, err
		}
		names := make([]string, 0, len(entrants))
		for _, e := range entrants {
			names = append(names, e.ID.Display())
		}
		out = append(out, Listed{ID: IDString(t.ID), Name: t.Name, Format: t.Format, Rules: t.Rules.String(), Players: names,
			Running: t.Status == store.TourRunning, Created: t.Created, Status: t.Status, Starts: t.Starts})
	}
	return out, nil
}
