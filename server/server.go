package server

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"kalah"
	"kalah/internal/httpapi"
	"kalah/internal/netx"
	"kalah/internal/store"
	"kalah/player"
	"kalah/protocol/line"
	"kalah/referee"
	"kalah/server/accounts"
	"kalah/server/arranged"
	"kalah/server/bots"
	"kalah/server/core"
	"kalah/server/gate"
	"kalah/server/lobby"
	"kalah/server/ratings"
	rnd "kalah/server/round"
	gamesetup "kalah/server/setup"
	"kalah/server/social"
	"kalah/server/views"
)

// Config configures a Server. Zero fields take the defaults given.
type Config struct {
	// Store keeps games and bot credentials; required.
	Store *store.Store
	// Rules are the rules of a queue entry that names none (default
	// kalah.Standard()).
	Rules kalah.Rules

	// Clocks for every game (see referee.Referee). PerMove defaults to 10s
	// unless Budget is set; set NoClock for games without any limit.
	PerMove   time.Duration
	Budget    time.Duration
	Increment time.Duration
	Delay     time.Duration
	NoClock   bool
	// Grace is latency allowed beyond a limit (default 200ms).
	Grace time.Duration
	// Reconnect is how long a bot that dropped out may take to come back
	// when its game has no clock (default 60s).
	Reconnect time.Duration
	// ResumeGrace is how long a game resumed after a restart waits for
	// each of its players (bots, people) to come back before that seat's
	// clock runs (default 30s): each seat has all of it.
	ResumeGrace time.Duration

	// MaxLine limits a line's length (default line.MaxLine, 4 KiB).
	MaxLine int
	// HandshakeTimeout is how long a new connection has to log in or
	// start watching (default 10s).
	HandshakeTimeout time.Duration
	// IdleTimeout closes a connection that sends nothing for this long
	// (default 2m, or twice PerMove if that is longer); the server pings
	// every IdleTimeout/4.
	IdleTimeout time.Duration
	// WriteTimeout drops a connection that does not take a line for this
	// long (default 10s).
	WriteTimeout time.Duration
	// MaxConns limits simultaneous connections (default 10000).
	MaxConns int
	// MaxGames limits games played at once (default 10000); beyond it
	// queue pairings, challenges and StartGame are refused as busy.
	MaxGames int
	// LoginRate and LoginBurst are the token bucket for login attempts
	// from one IP address (default 2 a second, burst 20).
	LoginRate  float64
	LoginBurst int
	// SignupRate and SignupBurst are the token bucket for sign-ups on the
	// whole server, from any address (default one every 2 s, burst 60);
	// sign-ins to one account are limited too (server/accounts/logins.go).
	SignupRate  float64
	SignupBurst int
	// AsyncMoves lets the referee ask for the next move while the last is
	// still being committed (in order, within milliseconds); the end of a
	// game still waits for every move. Faster under load, but a crash may
	// lose the last moment's moves, which a restart then replays from the
	// position before them. Off by default: each move is committed before
	// the next is asked for.
	AsyncMoves bool
	// MaxOpenGames bounds the unfinished games one person or guest holds
	// a seat in, however they were started (default 5).
	MaxOpenGames int
	// MaxGuestGamesPerAddr bounds the live games with a guest of one
	// client address (default 5); when an address is at it, the oldest of
	// its games whose guest has left (no page of it open for LeftAfter) is
	// ended to make room, so one pupil's closed tabs never lock out the
	// rest of a school, while a burst of fresh guests meets the cap.
	MaxGuestGamesPerAddr int
	// LeftAfter is how long a guest must have been gone from a game before
	// it may be ended so (default 15s: longer than a page's reload).
	LeftAfter time.Duration
	// GameStartsPerMinute and GameStartsBurst bound how fast the people
	// of one client address start games, in all (default 30 a minute,
	// bursts of 30).
	GameStartsPerMinute float64
	GameStartsBurst     int
	// WorkPerIdentity and WorkTotal bound the computer time the games and
	// tournaments not yet over may cost (player.Work over a game's
	// plies): what one identity asked for (default 2 hours), and the
	// server in all (default 48 hours). A game or tournament over either
	// is refused with its cost and the budget.
	WorkPerIdentity time.Duration
	WorkTotal       time.Duration
	// AdminToken, if set, must be given (Authorization: Bearer) to start
	// games between computers or bots over HTTP: POST /api/arranged, and
	// POST /api/games with no person seated. A stranger then cannot pull a
	// waiting bot into a game, nor fill the server with games.
	AdminToken string
	// Limits bound the engine settings a player spec from the network may
	// ask for (table size, threads, time a move); zero means
	// player.NetworkLimits.
	Limits player.Limits
	// AllowExec lets StartGame run exec: and mk: players (programs on the
	// server's machine); off by default.
	AllowExec bool
	// ArrangedWait is how long an arranged (tournament) game waits for a
	// bot that is not free when its Arranged.Wait is zero (default
	// DefaultArrangedWait).
	ArrangedWait time.Duration
	// AbortAfter aborts a game with a person in it in which no move was
	// made this long after it started (default 60s): it ends without a
	// result, and counts for no one.
	AbortAfter time.Duration
	// ClaimAfter lets a person claim the win in a game between people
	// without a clock when the opponent has not moved for this long
	// (default 2m).
	ClaimAfter time.Duration
	// AbandonAfter ends a game without a clock whose person, to move, has
	// been gone (no page of the game open, nothing done in it) this long:
	// they lose by leaving, or the game is aborted if they never moved
	// (default 10m; negative: never). Nobody is locked out of new games by
	// games they left.
	AbandonAfter time.Duration
	// HouseBotAfter, if positive, gives a bot that has waited alone in the
	// queue this long (a line-protocol or KGP client) an unrated game
	// against HouseBot, tagged House (server/bots/house.go); zero: never.
	HouseBotAfter time.Duration
	// HouseBot is the level or player spec of those games (default
	// DefaultHouseBot).
	HouseBot string
	// Hint, if set, suggests a move to a person in a casual game (Hint);
	// nil refuses hints.
	Hint func(ctx context.Context, g *kalah.Game) (kalah.Move, error)
	// Log receives the server's logs; nil discards them.
	Log *slog.Logger

	// TrustedProxies are the reverse proxies in front of the server: from
	// them, and only them, X-Forwarded-For names the client every limit
	// keyed by address counts, and X-Forwarded-Proto says whether it used
	// HTTPS (session cookies are Secure then). None by default.
	TrustedProxies netx.Proxies
	// MaxStreams bounds the long-lived requests open at once: event
	// streams and WebSockets (default 4/5 of MaxConns, so that streams
	// alone never fill the listeners and the page and API still answer).
	MaxStreams int
	// MaxStreamsPerAddr bounds those of one client address (an IPv6
	// client: its /64), so one address cannot take every place (default
	// 100: a school behind one address, a tab or two a pupil).
	MaxStreamsPerAddr int
	// MaxStreamsPerIdentity bounds those of one signed-in account, from
	// any address (default 20).
	MaxStreamsPerIdentity int
	// StreamLifetime closes an event stream after this long (default 1h);
	// a browser's EventSource reconnects by itself, a client of the API
	// asks again.
	StreamLifetime time.Duration
	// MaxChallenges bounds the challenges one bot or one person may have
	// open, unanswered, at once (default 3).
	MaxChallenges int
	// Hashers bounds the password hashes (argon2id, 19 MiB each) computed
	// at once for sign-ups and sign-ins (default store.DefaultHashers: the
	// cores, 2 to 4); others wait their turn, up to HashWait.
	Hashers int
	// HashWait is how long a sign-up or sign-in waits for a free hasher
	// before it is refused as busy (503; default 10s).
	HashWait time.Duration
}

func (c *Config) setDefaults() {
	if c.AbortAfter <= 0 {
		c.AbortAfter = time.Minute
	}
	if c.ClaimAfter <= 0 {
		c.ClaimAfter = 2 * time.Minute
	}
	if c.AbandonAfter == 0 {
		c.AbandonAfter = 10 * time.Minute
	}
	if c.Rules.Houses == 0 {
		c.Rules = kalah.Standard()
	}
	if c.PerMove == 0 && c.Budget == 0 && !c.NoClock {
		c.PerMove = 10 * time.Second
	}
	if c.MaxOpenGames == 0 {
		c.MaxOpenGames = 5
	}
	if c.MaxGuestGamesPerAddr == 0 {
		c.MaxGuestGamesPerAddr = 5
	}
	if c.LeftAfter <= 0 {
		c.LeftAfter = 15 * time.Second
	}
	if c.GameStartsPerMinute == 0 {
		c.GameStartsPerMinute = 30
	}
	if c.GameStartsBurst == 0 {
		c.GameStartsBurst = 30
	}
	if c.WorkPerIdentity == 0 {
		c.WorkPerIdentity = 2 * time.Hour
	}
	if c.WorkTotal == 0 {
		c.WorkTotal = 48 * time.Hour
	}
	if c.SignupRate <= 0 {
		c.SignupRate = 0.5
	}
	if c.SignupBurst <= 0 {
		c.SignupBurst = 60
	}
	if c.ResumeGrace == 0 {
		c.ResumeGrace = 30 * time.Second
	}
	if c.Grace == 0 {
		c.Grace = 200 * time.Millisecond
	}
	if c.Reconnect == 0 {
		c.Reconnect = 60 * time.Second
	}
	if c.MaxLine <= 0 {
		c.MaxLine = line.MaxLine
	}
	if c.HandshakeTimeout == 0 {
		c.HandshakeTimeout = 10 * time.Second
	}
	if c.IdleTimeout == 0 {
		// Long enough for a bot that cannot answer pings while it thinks.
		c.IdleTimeout = max(2*time.Minute, 2*c.PerMove+c.Grace)
	}
	if c.WriteTimeout == 0 {
		c.WriteTimeout = 10 * time.Second
	}
	if c.MaxConns == 0 {
		c.MaxConns = 10000
	}
	if c.MaxGames == 0 {
		c.MaxGames = 10000
	}
	if c.ArrangedWait <= 0 {
		c.ArrangedWait = DefaultArrangedWait
	}
	if c.LoginRate == 0 {
		c.LoginRate = 2
	}
	if c.LoginBurst == 0 {
		c.LoginBurst = 20
	}
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
	if c.MaxStreams == 0 {
		c.MaxStreams = max(c.MaxConns*4/5, 1)
	}
	if c.MaxStreamsPerAddr == 0 {
		c.MaxStreamsPerAddr = 100
	}
	if c.MaxStreamsPerIdentity == 0 {
		c.MaxStreamsPerIdentity = 20
	}
	if c.StreamLifetime <= 0 {
		c.StreamLifetime = time.Hour
	}
	if c.MaxChallenges <= 0 {
		c.MaxChallenges = 3
	}
	if c.HashWait <= 0 {
		c.HashWait = 10 * time.Second
	}
}

// Errors returned by the server's methods, matched with errors.Is (the
// values are core's, which every module of the server shares).
var (
	ErrNotFound    = core.ErrNotFound
	ErrNotYourTurn = core.ErrNotYourTurn
	ErrForbidden   = core.ErrForbidden
	ErrClosed      = core.ErrClosed
	ErrBusy        = core.ErrBusy
	ErrBadRequest  = core.ErrBadRequest
)

// Server referees games between bots and people. Create it with New;
// serve bots with Serve and Handler; stop it with Shutdown.
type Server struct {
	cfg   Config
	st    *store.Store
	log   *slog.Logger
	ctx   context.Context
	stop  context.CancelFunc
	games sync.WaitGroup // running games

	// live are the live games and the bots seated in them, under a lock
	// of their own (round.Registry).
	live *rnd.Registry

	// bots are the bots' side: their connections, sessions, queue and
	// challenges, each under a lock of its own (server/bots).
	bots *bots.Bots

	gate    *gate.Gate      // admits every game (admit.go)
	errs    *httpapi.Errors // the statuses of the API\'s errors (httperr.go)
	stats   *Stats
	streams *streams // long-lived requests open
	metrics *metrics
	lobby   *lobby.Lobby
	social  *social.Social[GameInfo] // games' chats, follows, profiles (social_host.go)
	// accounts are the accounts, sessions and guests of the HTTP side
	// (package server/accounts).
	accounts *accounts.Service
	// ratings rates the games between identities (server/ratings).
	ratings *ratings.Ratings
	// views build what the API and the page show of games (server/views).
	views *views.Views
	// gameSetup sets up, starts and resumes games (server/setup).
	gameSetup *gamesetup.Service
	// arrangedGames plays the games the server arranges for tournaments
	// (server/arranged).
	arrangedGames *arranged.Service
}

// New starts a server on cfg.Store and resumes the unfinished games in it.
func New(cfg Config) (*Server, error) {
	if cfg.Store == nil {
		return nil, errors.New("server: no store")
	}
	cfg.setDefaults()
	if err := cfg.Rules.Validate(); err != nil {
		return nil, err
	}
	if cfg.HouseBotAfter > 0 {
		if _, _, err := player.Lookup(cfg.HouseBot); cfg.HouseBot != "" && err != nil {
			return nil, fmt.Errorf("house bot: %w", err)
		}
	}
	ctx, stop := context.WithCancel(context.Background())
	s := &Server{
		cfg: cfg, st: cfg.Store, log: cfg.Log, ctx: ctx, stop: stop,
		live:    rnd.NewRegistry(),
		gate:    newGate(&cfg),
		errs:    Errors(),
		stats:   &Stats{},
		streams: newStreams(&cfg),
	}
	s.bots = s.newBots(netx.NewLimiter(cfg.LoginRate, cfg.LoginBurst))
	s.ratings = s.newRatings()
	s.views = views.New(viewsHost{s})
	s.lobby = s.newLobby()
	s.social = social.New[GameInfo](cfg.Store, socialHost{s})
	s.metrics = s.newMetrics()
	s.accounts = s.newAccounts()
	s.gameSetup = s.newGameSetup()
	s.arrangedGames = arranged.New(arrangedHost{s})
	s.stats.SetProm(s.metrics.Move)
	if cfg.Hashers > 0 {
		cfg.Store.SetHashers(cfg.Hashers)
	}
	if err := s.gameSetup.Resume(); err != nil {
		stop()
		return nil, err
	}
	return s, nil
}

// Stats returns the server's counters.
func (s *Server) Stats() *Stats { return s.stats }

// referee returns a referee with the configured clocks.
func (s *Server) referee() referee.Referee {
	return referee.Referee{PerMove: s.cfg.PerMove, Budget: s.cfg.Budget, Increment: s.cfg.Increment, Delay: s.cfg.Delay, Grace: s.cfg.Grace}
}

// Shutdown stops accepting connections, stops every game (leaving it
// unfinished in the store, to be resumed by the next server), closes every
// connection and waits for the server's goroutines, or for ctx.
func (s *Server) Shutdown(ctx context.Context) error {
	s.bots.Close()
	s.live.Close()
	s.stop()
	s.bots.Drop()
	done := make(chan struct{})
	go func() {
		s.games.Wait()
		s.bots.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// limits are the bounds on engine settings from the network.
func (s *Server) limits() player.Limits {
	if s.cfg.Limits == (player.Limits{}) {
		return player.NetworkLimits
	}
	return s.cfg.Limits
}

// admitted reports whether r carries the admin token, when the server has
// one; it writes the refusal (401) otherwise.
// Trusted reports whether r comes from a signed-in person or carries the
// server's admin token (or the server has none): who may give the server
// work of its own, such as a game between two computers.
func (s *Server) Trusted(r *http.Request) bool {
	if s.cfg.AdminToken == "" || s.sessionUser(r) != "" {
		return true
	}
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return ok && subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), []byte(s.cfg.AdminToken)) == 1
}

func (s *Server) admitted(w http.ResponseWriter, r *http.Request, what string) bool {
	if s.cfg.AdminToken == "" {
		return true
	}
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if ok && subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), []byte(s.cfg.AdminToken)) == 1 {
		return true
	}
	w.Header().Set("WWW-Authenticate", `Bearer realm="kalah"`)
	httpapi.WriteError(w, fmt.Errorf("%w: %s needs the server's admin token (Authorization: Bearer TOKEN; kalah serve keeps it in admin.token in its data directory)", ErrAdminToken, what))
	return false
}
