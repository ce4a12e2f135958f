package server

import (
	"time"

	"kalah"
	"kalah/internal/identity"
	"kalah/internal/store"
	"kalah/player"
	"kalah/protocol/line"
	"kalah/server/core"
	"kalah/server/gate"
)

// House games: a bot that waits alone in the queue (our line protocol's
// queue, or a KGP client in freeplay) for Config.HouseBotAfter is given a
// game against one of the server's own players, as the reference KGP
// server pairs a lone client with its bots, so that a newcomer's bot plays
// without a second one started. Such a game is unrated and marked: the
// tag House is "yes", and the house seat is called "house:LEVEL".

// tagHouse marks a game between a waiting bot and a house player.
const tagHouse = core.TagHouse

// DefaultHouseBot is the level a house player plays at when
// Config.HouseBot is empty: Pekař's tree search three plies deep, quick on
// any machine and no pushover.
const DefaultHouseBot = "medium"

// houseWait arranges a house game for e if it still waits alone once
// Config.HouseBotAfter has passed. The queue calls it for every entry
// that found no one to play.
func (s *Server) houseWait(e *entrant) {
	if s.cfg.HouseBotAfter <= 0 || !(e.conn != nil || e.seat.St.Kind == "kgp") {
		return
	}
	time.AfterFunc(s.cfg.HouseBotAfter, func() { s.houseGame(e) })
}

// houseBot returns the spec of the house player.
func (s *Server) houseBot() string {
	if s.cfg.HouseBot != "" {
		return s.cfg.HouseBot
	}
	return DefaultHouseBot
}

// houseGame starts e's house game if e still waits in the queue.
func (s *Server) houseGame(e *entrant) {
	if s.ctx.Err() != nil || !s.dequeue(e) {
		return // paired meanwhile, gone, or the server stops
	}
	if e.left() {
		e.fail(errLeft) // its connection closed: no game
		return
	}
	r := s.cfg.Rules
	if e.rules != nil {
		r = *e.rules
	}
	level := s.houseBot()
	n := s.houseGames.Add(1)
	p, err := player.New(level, player.Options{Rules: r, Seed: n})
	if err == nil {
		name := "house:" + level
		house := &entrant{seat: &seat{P: s.thinkLimit(p), St: store.Seat{Name: name, Kind: "spec", Spec: level, ID: identity.Of(identity.Program, level)}},
			key: name, result: make(chan error, 1)}
		// The sides alternate from one house game to the next.
		es := [2]*entrant{e, house}
		if n%2 == 0 {
			es = [2]*entrant{house, e}
		}
		var g *kalah.Game
		if g, err = kalah.NewGame(r); err == nil {
			s.log.Info("house game", "bot", e.seat.St.Name, "house", level, "waited", s.cfg.HouseBotAfter)
			err = s.startEntrants(g, es, setup{tags: map[string]string{tagHouse: "yes"}, path: gate.House})
		} else {
			e.fail(err)
		}
	} else {
		e.fail(err)
	}
	if err != nil && e.conn != nil {
		// A line-protocol bot hears of it as of any failed pairing.
		e.conn.mu.Lock()
		if e.conn.queued == e {
			e.conn.queued = nil
		}
		e.conn.mu.Unlock()
		e.conn.sendMsg(line.Errorf(codeFor(err), "no house game: %v", err))
	}
}
