package server

import (
	"context"

	matchclient "kalah/server/client"
)

// The HTTP client of a match server (Remote) and the wire types of its
// arranged games live in server/client; this file keeps the names the rest
// of package server, cmd/kalah, web and the tests know them by. The
// client keeps no state of the server's: what it shares with the server
// is the JSON of POST /api/arranged and the bot:NAME seats. The package is
// imported as matchclient, since the tests of package server have a
// client type of their own.

// Remote is a match server reached through its JSON API (client.Remote).
type Remote = matchclient.Remote

// ErrUnavailable is returned by Remote when the server cannot be reached,
// stops, or loses a game to a restart (client.ErrUnavailable).
var ErrUnavailable = matchclient.ErrUnavailable

// Dial checks that baseURL is a match server and returns it (client.Dial).
func Dial(ctx context.Context, baseURL string) (*Remote, error) {
	return matchclient.Dial(ctx, baseURL)
}

// Arranged describes one game for PlayArranged (client.Arranged).
type Arranged = matchclient.Arranged

// ArrangedResult is a game PlayArranged finished (client.ArrangedResult).
type ArrangedResult = matchclient.ArrangedResult

// ArrangedRequest is the JSON body of POST /api/arranged
// (client.ArrangedRequest).
type ArrangedRequest = matchclient.ArrangedRequest

// ArrangedReply is the JSON answer of POST /api/arranged
// (client.ArrangedReply).
type ArrangedReply = matchclient.ArrangedReply

// GameHeader names the response header of POST /api/arranged that carries
// the game's id (client.GameHeader).
const GameHeader = matchclient.GameHeader

// BotPrefix starts the player spec of a bot connected to the server
// (client.BotPrefix).
const BotPrefix = matchclient.BotPrefix

// ErrServerOnly is returned when a bot:NAME player is built outside a
// server (client.ErrServerOnly).
var ErrServerOnly = matchclient.ErrServerOnly

// BotName reports whether spec names a bot connected to a server
// ("bot:NAME") and, if so, which (client.BotName).
func BotName(spec string) (name string, ok bool, err error) {
	return matchclient.BotName(spec)
}
