package server

import (
	"context"

	"kalah"
	"kalah/internal/identity"
	"kalah/internal/store"
	"kalah/player"
	"kalah/referee"
	"kalah/server/core"
	"kalah/server/gate"
	rnd "kalah/server/round"
	gamesetup "kalah/server/setup"
)

// How games are set up, started and resumed is package setup's
// (server/setup). These are the names the rest of the server, the web
// page and the command know it by.
type (
	// GameRequest asks StartGame for a game.
	GameRequest = gamesetup.GameRequest
	// Started is a game StartGame began.
	Started = gamesetup.Started
	// Actor is who makes a request on a game (core.Actor).
	Actor = core.Actor
)

// Errors of people's games, matched with errors.Is.
var (
	ErrNotCasual   = core.ErrNotCasual
	ErrNoTakebacks = core.ErrNoTakebacks
	ErrNoSeat      = core.ErrNoSeat
	ErrTooMany     = core.ErrTooMany
	ErrNoHints     = core.ErrNoHints
	ErrTooLate     = core.ErrTooLate
)

// Tags under which a game keeps its settings (core's).
const (
	tagPerMove    = core.TagPerMove
	tagDelay      = core.TagDelay
	tagCasual     = core.TagCasual
	tagClock      = core.TagClock
	tagInc        = core.TagInc
	ImportTag     = core.ImportTag
	TournamentTag = core.TournamentTag
	ReasonTag     = core.ReasonTag
	RematchTag    = core.RematchTag
	RematchOfTag  = core.RematchOfTag
)

// newGameSetup returns the server's module of games' set-up.
func (s *Server) newGameSetup() *gamesetup.Service {
	return gamesetup.New(gamesetup.Config{Context: s.ctx, Store: s.st, Live: s.live, Log: s.log, Rules: s.cfg.Rules,
		PerMove: s.cfg.PerMove, Referee: s.referee(), Hint: s.cfg.Hint}, setupHost{s})
}

// setupHost is the server as package setup sees it (setup.Host).
type setupHost struct{ s *Server }

func (h setupHost) Admit(path gate.Path, r kalah.Rules, seats [2]*seat, addrs [2]string) (*gate.Ticket, error) {
	return h.s.admit(path, r, seats, addrs)
}

func (h setupHost) Ratable(ctx context.Context, ids [2]identity.ID) bool {
	return h.s.ratable(ctx, ids)
}

func (h setupHost) ReserveRated(ctx context.Context, ids [2]identity.ID) (bool, int, func()) {
	return h.s.reserveRated(ctx, ids)
}

func (h setupHost) StartRound(su roundSetup) *round { return h.s.startRound(su) }

func (h setupHost) ServerPlayer(spec string, r kalah.Rules, seed uint64) (player.Player, error) {
	return h.s.serverPlayer(spec, r, seed)
}

func (h setupHost) ThinkLimit(p player.Player) player.Player { return h.s.thinkLimit(p) }

func (h setupHost) AbandonArranged(sg store.Game) error { return h.s.abandonArranged(sg) }

// StartGame starts a game between server-side players and people.
func (s *Server) StartGame(ctx context.Context, req GameRequest) (Started, error) {
	return s.gameSetup.StartGame(ctx, req)
}

// Rematch starts, for a person of finished game id, the game after it
// (setup.Service.Rematch).
func (s *Server) Rematch(ctx context.Context, id int64, a Actor) (Started, error) {
	return s.gameSetup.Rematch(ctx, id, a)
}

// Join takes an open seat of game id for a, an invitation's (invite is
// its secret) or a seat kept for a's identity; it returns the seat and a
// token that moves it.
func (s *Server) Join(ctx context.Context, id int64, a Actor, invite string) (int, string, error) {
	return s.gameSetup.Join(ctx, id, a, invite)
}

// ImportedGame returns the id of the game imported under webID (ImportTag).
func (s *Server) ImportedGame(ctx context.Context, webID string) (int64, error) {
	return s.gameSetup.ImportedGame(ctx, webID)
}

// ImportGame stores a game played elsewhere; one not over goes on here at
// once, as a game resumed after a restart does.
func (s *Server) ImportGame(ctx context.Context, im Imported) (int64, error) {
	return s.gameSetup.ImportGame(ctx, im)
}

// round returns live game id's round; for a game that is over, the error
// says so (kalah.ErrGameOver).
func (s *Server) round(id int64) (*round, error) { return s.gameSetup.Round(id) }

// Move plays a person's move in game id. An illegal move is refused, not
// forfeited.
func (s *Server) Move(ctx context.Context, id int64, a Actor, m kalah.Move) error {
	return s.gameSetup.Move(ctx, id, a, m)
}

// Resign ends game id with a loss for the person's seat; before both
// sides have moved it aborts the game instead.
func (s *Server) Resign(ctx context.Context, id int64, a Actor) error {
	return s.gameSetup.Resign(ctx, id, a)
}

// Abort calls game id off, with no result and no rating, as long as one
// side has not moved yet.
func (s *Server) Abort(ctx context.Context, id int64, a Actor) error {
	return s.gameSetup.Abort(ctx, id, a)
}

// TakeBack takes back moves in game id (round.Round.TakeBack).
func (s *Server) TakeBack(ctx context.Context, id int64, a Actor) error {
	return s.gameSetup.TakeBack(ctx, id, a)
}

// DeclineTakeBack refuses the opponent's request to take back a move.
func (s *Server) DeclineTakeBack(ctx context.Context, id int64, a Actor) error {
	return s.gameSetup.DeclineTakeBack(ctx, id, a)
}

// Claim ends a game between people without a clock in the person's
// favour when the opponent, to move, has not moved for Config.ClaimAfter.
func (s *Server) Claim(ctx context.Context, id int64, a Actor) error {
	return s.gameSetup.Claim(ctx, id, a)
}

// GiveTime adds GiveTime to the opponent's clock, in a game with a clock
// between people.
func (s *Server) GiveTime(ctx context.Context, id int64, a Actor) error {
	return s.gameSetup.GiveTime(ctx, id, a)
}

// Hint returns the move the server's analyser (Config.Hint) suggests to a
// person in a casual game against the computer, on their turn.
func (s *Server) Hint(ctx context.Context, id int64, a Actor) (kalah.Move, error) {
	return s.gameSetup.Hint(ctx, id, a)
}

// Abandon ends live game id as an adjudicated draw that counts for no one,
// with reason given.
func (s *Server) Abandon(ctx context.Context, id int64, reason string) error {
	return s.gameSetup.Abandon(ctx, id, reason)
}

// start creates and runs a game between two entrants, the first as South
// under the rules' first-mover convention (seat 0). Games the queue and
// challenges pair are rated when their players may be.
func (s *Server) start(r kalah.Rules, es [2]*entrant, path gate.Path) error {
	g, err := kalah.NewGame(r)
	if err != nil {
		for _, e := range es {
			e.fail(err)
		}
		return err
	}
	return s.startEntrants(g, es, setup{rated: true, path: path})
}

// startEntrants begins g between two entrants (South's first) and tells
// each its seat, or why there is no game.
func (s *Server) startEntrants(g *kalah.Game, es [2]*entrant, su setup) error {
	rd, err := s.begin(s.ctx, g, [2]*seat{es[0].seat, es[1].seat}, su)
	if err == nil {
		for i, e := range es {
			e.game = rd
			if e.seated != nil {
				e.seated(i)
			}
		}
	}
	for _, e := range es {
		e.fail(err)
	}
	return err
}

// setup is what a game has beyond its players (setup.Setup).
type setup struct {
	start   string
	tags    map[string]string
	ref     *referee.Referee
	casual  bool
	rated   bool
	path    gate.Path
	addrs   [2]string
	limited *int
}

// begin stores and runs g between seats (setup.Service.Begin).
func (s *Server) begin(ctx context.Context, g *kalah.Game, seats [2]*seat, su setup) (*round, error) {
	return s.gameSetup.Begin(ctx, g, seats, gamesetup.Setup{Start: su.start, Tags: su.tags, Ref: su.ref, Casual: su.casual,
		Rated: su.rated, Path: su.path, Addrs: su.addrs, Limited: su.limited})
}

// setupOf rebuilds a stored game's clock and casualness from its tags.
func (s *Server) setupOf(tags map[string]string) setup {
	su := gamesetup.SetupOf(tags)
	return setup{ref: su.Ref, casual: su.Casual}
}

// adjudicateBroken ends a stored game whose moves cannot be replayed.
func (s *Server) adjudicateBroken(sg store.Game, cause error) error {
	return s.gameSetup.AdjudicateBroken(sg, cause)
}

// newToken returns a fresh secret (128 bits) and its stored hash.
func newToken() (token, hash string) { return rnd.NewToken() }

// hashIs reports whether secret hashes to hash, in constant time.
func hashIs(hash, secret string) bool { return rnd.HashIs(hash, secret) }
