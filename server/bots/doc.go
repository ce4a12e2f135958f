// Package bots is the bots' side of the server, its socket layer as
// lila's is: the connection of a bot over the line protocol (TCP or
// WebSocket), with its queue of lines to send, its writer and reader
// loops, its pings and timeouts, and the bookkeeping of the KGP bridge
// (the labels of anonymous KGP clients, the KGP connections of bots known
// by a token).
//
// Each Wire is owned by its two goroutines: the writer takes its outbox,
// everyone else fills it under the outbox's own lock. The labels and the
// KGP registry each have a lock that guards nothing else. What a bot's
// line means (logging in, the queue, challenges, games) is the server's:
// a Wire's reader hands every message to its Handler.
package bots
