// Package core is what every module of the match server shares and nothing
// owns: the errors its API answers with (mapped to statuses where the server
// is assembled, server.Errors), who asks (Actor), the client address every
// limit keys on, and the tags under which a stored game keeps its settings.
// It holds no state and imports no module of the server.
package core

import (
	"errors"
	"fmt"
	"kalah"
	"net/http"

	"kalah/internal/httpapi"
	"kalah/internal/identity"
	"kalah/internal/netx"
)

// Errors of the server's modules, matched with errors.Is.
var (
	ErrNotFound    = errors.New("no such game")
	ErrNotYourTurn = errors.New("not your turn")
	ErrForbidden   = errors.New("forbidden")
	ErrClosed      = errors.New("server closed")
	ErrBusy        = errors.New("already playing or queued")
	ErrBadRequest  = httpapi.ErrBadRequest

	// ErrNotCasual refuses a takeback against the computer or a hint in a
	// game that is not casual (or, for hints, not against the computer).
	ErrNotCasual = errors.New("only in casual games")
	// ErrNoTakebacks refuses a takeback in a game started with takebacks
	// refused.
	ErrNoTakebacks = errors.New("takebacks are off in this game")
	// ErrNoSeat refuses to join a game with no open seat for the caller.
	ErrNoSeat = errors.New("no open seat")
	// ErrTooMany refuses what is over one of the server's limits on the
	// asker (429): requests too fast, too many open seeks, challenges,
	// streams or follows. The limits on starting games are the gate's
	// (gate.ErrTooMany and the rest), answered 429 as well.
	ErrTooMany = errors.New("limit reached")
	// ErrNoHints is returned when the server has no analyser for hints.
	ErrNoHints = errors.New("hints are not available on this server")
	// ErrTooLate refuses an abort once both sides have moved.
	ErrTooLate = errors.New("too late")
	// ErrSignIn refuses a guest what needs an account.
	ErrSignIn = errors.New("sign in first")
	// ErrAdminToken refuses what needs the server's admin token without it.
	ErrAdminToken = errors.New("admin token needed")
	// ErrMethod answers a route asked with a method it does not take.
	ErrMethod = errors.New("method not allowed")
	// ErrNoAnswer is a bot that did not answer a person's challenge in time.
	ErrNoAnswer = errors.New("no answer in time")
)

// Actor is who makes a request on a game: an identity (a signed-in person,
// a guest, a bot) and, for API clients without a session, a seat's token;
// Addr is the client address it asks from, where known (for the gate).
type Actor struct {
	ID    identity.ID
	Token string
	Addr  string
}

// HostOf is the client address of r every limit keys on (netx.Key: the
// real client behind trusted proxies, an IPv6 client by its /64).
func HostOf(r *http.Request) string { return netx.Key(r) }

// Tags under which a stored game keeps its settings, so a restarted server
// plays it on as it was, and what happened to it.
const (
	TagPerMove = "PerMove" // milliseconds a move
	TagDelay   = "Delay"   // milliseconds before each move
	TagCasual  = "Casual"  // "yes": takebacks and hints
	TagClock   = "Clock"   // milliseconds each player has for the game
	TagInc     = "Increment"
	// TagOpening is how many moves the game started with (an opening or a
	// set-up's): a side has moved only after them.
	TagOpening = "OpeningPlies"
	// TagRatedAsked marks a game asked to be rated whose second seat is
	// not taken yet: it is rated if whoever takes it may be.
	TagRatedAsked = "RatedAsked"
	// TagNoTakebacks "yes": the game was started with takebacks refused,
	// so neither person may ask for one (store.TakebackTag keeps the
	// takebacks made).
	TagNoTakebacks = "NoTakebacks"
	// TagRated marks a game that counts on the rating ladders.
	TagRated = "Rated"
	// TagUnrated says why a game asked to be rated was not.
	TagUnrated = "Unrated"
	// TagRatedLimit, on a game asked to be rated and played unrated for
	// the pair's limit, is that limit.
	TagRatedLimit = "RatedLimit"
	// TagGiven keeps the time each seat was given by its opponent:
	// "MS,MS" (South's seat first).
	TagGiven = "TimeGiven"
	// TagHouse marks a game between a waiting bot and a house player.
	TagHouse = "House"
	// TagArranged marks an arranged game, which a restarted server does
	// not resume: its caller (a tournament) plays it again.
	TagArranged = "Arranged"
	// ImportTag holds the id a game had where it was imported from (the
	// web page's own games of older releases), so old links still find it.
	ImportTag = "WebID"
	// TournamentTag marks a game one of the page's tournaments plays: left
	// unfinished by a restart, it is abandoned, for its tournament plays
	// it again.
	TournamentTag = "Tournament"
	// PeopleTournamentTag holds, on each game of a people's tournament,
	// the tournament's id ("p7").
	PeopleTournamentTag = "PeopleTournament"
	// ReasonTag says why a game was forfeited, in words.
	ReasonTag = "Reason"
	// RematchTag names, on a finished game, the game that followed it;
	// RematchOfTag, on that game, the one before.
	RematchTag   = "Rematch"
	RematchOfTag = "RematchOf"
)

// CheckSettings checks the settings of a game a person asks for (a seek,
// a challenge to a bot): rules, where none (zero houses and seeds) means
// def, and a clock of clockMS with incrementMS a move, at most 3 hours and
// a minute a move (no increment without a clock). The errors are
// ErrBadRequest's.
func CheckSettings(r *kalah.Rules, def kalah.Rules, clockMS, incrementMS int64) error {
	if r.Houses == 0 && r.Seeds == 0 {
		*r = def
	}
	if err := r.Validate(); err != nil {
		return fmt.Errorf("%w: %w", ErrBadRequest, err)
	}
	if clockMS < 0 || clockMS > 3*3600_000 || incrementMS < 0 || incrementMS > 60_000 || (incrementMS > 0 && clockMS == 0) {
		return fmt.Errorf("%w: a clock of %d ms with %d ms a move", ErrBadRequest, clockMS, incrementMS)
	}
	return nil
}
