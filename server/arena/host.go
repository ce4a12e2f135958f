package arena

import (
	"context"
	"errors"
	"strconv"
	"time"

	"kalah"
	"kalah/internal/identity"
	"kalah/internal/store"
	"kalah/server/core"
)

// Host is what the people's tournaments need of the server that plays
// their games. It is never called with the Tours' lock held.
type Host interface {
	// StartGame starts a people's game (see Game): a person's seat is
	// theirs by identity (they move it on the game page, or by the API
	// signed in), a bot's is played over its connection. The bots must be
	// free within spec.Wait (0: now); if one is not, no game starts, the
	// error is ErrNotFree and missing says which seats were not free.
	StartGame(ctx context.Context, spec GameSpec) (g LiveGame, missing [2]bool, err error)
	// Live returns live game id, nil if it is not live here.
	Live(id int64) LiveGame
	// BotFree reports whether the bot of identity key could be given a
	// game now: logged in, waiting for games, neither playing nor queued.
	BotFree(key string) bool
	// WaitingBots returns the names of the bots logged in that take the
	// games the server arranges, sorted.
	WaitingBots() []string
	// BotName checks the name of a bot asked for ("alice" of bot:alice).
	BotName(name string) (string, error)
	// Refused counts a request refused for reason, for the metrics.
	Refused(reason string)
}

// GameSpec is a game a tournament asks its host to start.
type GameSpec struct {
	Rules kalah.Rules
	// IDs are the players, South first.
	IDs [2]identity.ID
	// Clock and Increment are the game's Fischer clock.
	Clock, Increment time.Duration
	// Rated asks for a rated game: it is, if the players may be rated
	// against each other and have not played too many rated games
	// together today.
	Rated bool
	// Tags are stored with the game.
	Tags map[string]string
	// Wait bounds how long the bots may take to be free.
	Wait time.Duration
	// Tournament is the tournament's id, for the log.
	Tournament string
}

// LiveGame is a game the host plays.
type LiveGame interface {
	// ID is the stored game's id.
	ID() int64
	// Done is closed once the game has ended, or the server stops.
	Done() <-chan struct{}
	// Ended reports, once Done is closed, whether the game ended (false:
	// the server stopped with it in play, and the next one resumes it).
	Ended() bool
}

// ErrNotFree is why a pairing's game did not start: a bot in it was not
// free in time.
var ErrNotFree = errors.New("not free")

// startTournamentGame starts a game of people's tournament t between ids
// (South first) under the tournament's Fischer clock, rated if the
// tournament is and the players may be. Bots must be free within wait (0:
// now); if one is not, no game starts and the error is ErrNotFree, with
// the seats that were missing.
func (d *director) startTournamentGame(ctx context.Context, t store.PeopleTournament, round int, ids [2]identity.ID, wait time.Duration) (LiveGame, [2]bool, error) {
	tags := map[string]string{core.PeopleTournamentTag: IDString(t.ID), "Event": t.Name,
		core.TagPerMove: "0", core.TagDelay: "0", core.TagClock: strconv.FormatInt(t.ClockMS, 10), core.TagInc: strconv.FormatInt(t.IncrementMS, 10)}
	if round > 0 {
		tags["Round"] = strconv.Itoa(round)
	}
	return d.p.host.StartGame(ctx, GameSpec{Rules: t.Rules, IDs: ids, Clock: time.Duration(t.ClockMS) * time.Millisecond,
		Increment: time.Duration(t.IncrementMS) * time.Millisecond, Rated: t.Rated, Tags: tags, Wait: wait, Tournament: IDString(t.ID)})
}
