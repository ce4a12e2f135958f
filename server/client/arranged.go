package client

import (
	"fmt"
	"strings"
	"time"

	"kalah"
	"kalah/player"
	"kalah/protocol/line"
	"kalah/server/core"
)

// Arranged games are those a match server sets up itself rather than the
// queue or a challenge: a tournament names a bot logged in to the server
// as the player "bot:NAME", and each of its games with that bot is played
// there (Server.PlayArranged in package server, or Remote.PlayArranged
// from another machine). This file holds what both sides of POST
// /api/arranged share: the game asked for, its answer, and the bot:NAME
// seats.

// BotPrefix starts the player spec of a bot connected to the server:
// "bot:alice".
const BotPrefix = "bot:"

// ErrServerOnly is returned when a bot:NAME player is built outside a
// server: such players play only in games the server arranges. It wraps
// player.ErrUnknownPlayer, so a tournament worker leaves the game for
// another (and a tournament run without a server stops with this error
// rather than forfeiting the bot's games).
var ErrServerOnly = fmt.Errorf("%w here: bot:NAME players play only in games kalah serve arranges (tournaments started on the server's web page, with POST /web/api/tournaments, or by kalah tournament --server URL)", player.ErrUnknownPlayer)

func init() {
	player.Register(player.Info{
		Name:    "bot",
		Usage:   "bot:NAME",
		Summary: "the bot NAME logged in to kalah serve (it sent wait): plays in tournaments run by that server",
		Source:  "kalah's line protocol (docs/PROTOCOL.md)",
		Server:  true,
		New: func(sp player.Spec, o player.Options) (player.Player, error) {
			if _, err := botName(sp); err != nil {
				return nil, err
			}
			return nil, ErrServerOnly
		},
	})
}

func botName(sp player.Spec) (string, error) {
	if err := sp.Check(1); err != nil {
		return "", err
	}
	name := sp.Arg(0, "")
	if !line.ValidName(name) {
		return "", fmt.Errorf("player bot: %q is not a bot's name (bot:NAME, NAME 1 to 32 letters, digits, '-', '_' or '.')", name)
	}
	return name, nil
}

// BotName reports whether spec names a bot connected to a server
// ("bot:NAME") and, if so, which; a malformed bot spec is an error.
func BotName(spec string) (name string, ok bool, err error) {
	spec = strings.TrimSpace(spec)
	if !strings.HasPrefix(strings.ToLower(spec), BotPrefix) {
		return "", false, nil
	}
	sp, err := player.ParseSpec(spec)
	if err != nil {
		return "", true, err
	}
	name, err = botName(sp)
	return name, true, err
}

// Arranged describes one arranged game.
type Arranged struct {
	// Rules of the game; zero means the server's.
	Rules kalah.Rules
	// South and North are "bot:NAME" for a bot logged in to the server, or
	// a player spec (see kalah players) played by the server itself.
	South, North string
	// Opening moves are played before anyone is asked.
	Opening []kalah.Move
	// The game's clock, as for referee.Referee; Grace zero means the
	// server's (its Config.Grace).
	PerMove, Budget, Increment, Grace, Delay time.Duration
	// Seeds feed the randomness of server-side players, by seat.
	Seeds [2]uint64
	// Tags are stored with the game and kept in its record.
	Tags map[string]string
	// Wait bounds how long to wait for a bot that is not free (logged out,
	// not waiting, or busy in another game); zero means the server's
	// (its Config.ArrangedWait). A bot still not free loses the game by
	// disconnection; if neither seat's bot is free, the game is
	// adjudicated a draw.
	Wait time.Duration
	// OnStart, if set, is called with the server's game id once the game
	// is stored, before its first move.
	OnStart func(id int64)
}

// ArrangedResult is a finished arranged game.
type ArrangedResult struct {
	ID int64 // the game's id on the server (and in its store)
	// Record is the finished game with each move's time; its players are
	// the specs given in Arranged.
	Record kalah.Record
	// Reason explains a forfeit or an adjudication; empty for a game
	// played to its end.
	Reason string
}

// ArrangedRequest is the JSON body of POST /api/arranged: an Arranged
// game, with durations in milliseconds.
type ArrangedRequest struct {
	// Rules of the game; omitted or zero: the server's.
	Rules kalah.Rules `json:"rules,omitzero"`
	// South and North are "bot:NAME" or a player spec the server plays.
	South string `json:"south"`
	North string `json:"north"`
	// Opening moves played before anyone is asked: house numbers from 1,
	// -1 for the swap.
	Opening     []kalah.Move      `json:"opening,omitempty"`
	PerMoveMS   int64             `json:"per_move_ms,omitempty"`
	BudgetMS    int64             `json:"budget_ms,omitempty"`
	IncrementMS int64             `json:"increment_ms,omitempty"`
	GraceMS     int64             `json:"grace_ms,omitempty"`
	DelayMS     int64             `json:"delay_ms,omitempty"`
	Seeds       [2]uint64         `json:"seeds,omitzero"`
	Tags        map[string]string `json:"tags,omitempty"`
	// WaitMS bounds the wait for a bot that is not free; 0: the server's.
	WaitMS int64 `json:"wait_ms,omitempty"`
}

// ArrangedReply is the JSON answer of POST /api/arranged once the game is
// over: its id in the server's store, its record and, for a forfeit or
// adjudication, why. Error is set instead when the game started but
// could not be followed to its end (the server is stopping).
type ArrangedReply struct {
	ID     int64        `json:"id"`
	Record kalah.Record `json:"record,omitzero"`
	Reason string       `json:"reason,omitempty"`
	Error  string       `json:"error,omitempty"`
}

// GameHeader names the response header of POST /api/arranged that carries
// the game's id as soon as it has started.
const GameHeader = "Kalah-Game"

// maxArrangedMS bounds the durations of an ArrangedRequest (a week).
const maxArrangedMS = 7 * 24 * 3600 * 1000

// Request returns a as the body of POST /api/arranged (OnStart is not
// sent).
func (a Arranged) Request() ArrangedRequest {
	return ArrangedRequest{Rules: a.Rules, South: a.South, North: a.North, Opening: a.Opening,
		PerMoveMS: a.PerMove.Milliseconds(), BudgetMS: a.Budget.Milliseconds(), IncrementMS: a.Increment.Milliseconds(),
		GraceMS: a.Grace.Milliseconds(), DelayMS: a.Delay.Milliseconds(), Seeds: a.Seeds, Tags: a.Tags, WaitMS: a.Wait.Milliseconds()}
}

// Arranged converts the request to an Arranged, checking that each seat
// is a bot:NAME or a player known here. A player the server will not
// start (a program where programs are not allowed, one over its limits)
// is not refused here: the server forfeits its seat with the reason, and
// the game is stored, so a tournament counts it lost rather than playing
// it anywhere else.
func (req ArrangedRequest) Arranged() (Arranged, error) {
	a := Arranged{Rules: req.Rules, South: strings.TrimSpace(req.South), North: strings.TrimSpace(req.North),
		Opening: req.Opening, Seeds: req.Seeds, Tags: req.Tags}
	for _, d := range []struct {
		name string
		ms   int64
		to   *time.Duration
	}{{"per_move_ms", req.PerMoveMS, &a.PerMove}, {"budget_ms", req.BudgetMS, &a.Budget},
		{"increment_ms", req.IncrementMS, &a.Increment}, {"grace_ms", req.GraceMS, &a.Grace},
		{"delay_ms", req.DelayMS, &a.Delay}, {"wait_ms", req.WaitMS, &a.Wait}} {
		if d.ms < 0 || d.ms > maxArrangedMS {
			return a, fmt.Errorf("%w: %s %d: want 0 to %d", core.ErrBadRequest, d.name, d.ms, maxArrangedMS)
		}
		*d.to = time.Duration(d.ms) * time.Millisecond
	}
	for _, spec := range []string{a.South, a.North} {
		if spec == "" {
			return a, fmt.Errorf("%w: south and north are required: bot:NAME or a player spec", core.ErrBadRequest)
		}
		if _, ok, err := BotName(spec); ok || err != nil {
			if err != nil {
				return a, fmt.Errorf("%w: %w", core.ErrBadRequest, err)
			}
			continue
		}
		if _, _, err := player.Lookup(spec); err != nil {
			return a, err
		}
	}
	if n, ok, _ := BotName(a.South); ok {
		if m, _, _ := BotName(a.North); m == n {
			return a, fmt.Errorf("%w: bot %s cannot play itself", core.ErrForbidden, n)
		}
	}
	return a, nil
}
