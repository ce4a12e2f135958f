package server

import "kalah/server/bots"

// The bots' side of the server is package bots's (server/bots): a bot's
// connection over the line protocol is a bots.Wire, which the server's
// conn (conn.go) wraps with what its lines mean.

// wireConfig is the server's settings as a bot's connection needs them.
func (s *Server) wireConfig() bots.Config {
	return bots.Config{MaxLine: s.cfg.MaxLine, HandshakeTimeout: s.cfg.HandshakeTimeout,
		IdleTimeout: s.cfg.IdleTimeout, WriteTimeout: s.cfg.WriteTimeout, Log: s.log}
}

// The KGP bridge's bookkeeping: the labels of anonymous clients (kgp.go)
// and the connections of bots known by a token (tokens.go).
type (
	anonLabels = bots.Labels
	kgpBots    = bots.KGPBots
)

// tokenReplaced is what a connection of a bot whose token its owner
// replaced is told before it is closed.
const tokenReplaced = bots.TokenReplaced

// botSessions are the logged-in bots' connections, by identity key, under
// a lock of their own: it may be taken under s.mu, never the reverse.
type botSessions = bots.Sessions[*conn]
