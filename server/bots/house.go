package bots

import (
	"time"

	"kalah"
	"kalah/internal/identity"
	"kalah/internal/store"
	"kalah/player"
	"kalah/protocol/line"
	"kalah/server/round"
)

// House games: a bot that waits alone in the queue (our line protocol's
// queue, or a KGP client in freeplay) for Config.HouseBotAfter is given a
// game against one of the server's own players, as the reference KGP
// server pairs a lone client with its bots, so that a newcomer's bot plays
// without a second one started. Such a game is unrated and marked: the
// tag House is "yes", and the house seat is called "house:LEVEL".

// DefaultHouseBot is the level a house player plays at when
// Config.HouseBot is empty: Pekař's tree search three plies deep, quick on
// any machine and no pushover.
const DefaultHouseBot = "medium"

// houseWait arranges a house game for e if it still waits alone once
// Config.HouseBotAfter has passed. The queue calls it, under its lock,
// for every entry that found no one to play; taking e out of the queue
// stops it (stopHouse).
func (b *Bots) houseWait(e *Entry) {
	if b.cfg.HouseBotAfter <= 0 || !(e.conn != nil || e.seat.St.Kind == "kgp") {
		return
	}
	e.house = time.AfterFunc(b.cfg.HouseBotAfter, func() { b.houseGame(e) })
}

// stopHouse calls off e's house game, under the queue's lock: e left
// the queue (paired, gone, or taken by the house game itself).
func (e *Entry) stopHouse() {
	if e.house != nil {
		e.house.Stop()
		e.house = nil
	}
}

// houseBot returns the spec of the house player.
func (b *Bots) houseBot() string {
	if b.cfg.HouseBot != "" {
		return b.cfg.HouseBot
	}
	return DefaultHouseBot
}

// houseGame starts e's house game if e still waits in the queue.
func (b *Bots) houseGame(e *Entry) {
	if b.host.Context().Err() != nil || !b.queue.remove(e) {
		return // paired meanwhile, gone, or the server stops
	}
	if e.left() {
		e.Fail(errLeft) // its connection closed: no game
		return
	}
	r := b.cfg.Rules
	if e.rules != nil {
		r = *e.rules
	}
	level := b.houseBot()
	n := b.houseGames.Add(1)
	p, err := player.New(level, player.Options{Rules: r, Seed: n})
	if err == nil {
		name := "house:" + level
		house := &Entry{seat: &round.Seat{P: b.host.ThinkLimit(p), St: store.Seat{Name: name, Kind: "spec", Spec: level, ID: identity.Of(identity.Program, level)}},
			key: name, result: make(chan error, 1)}
		// The sides alternate from one house game to the next.
		es := [2]*Entry{e, house}
		if n%2 == 0 {
			es = [2]*Entry{house, e}
		}
		var g *kalah.Game
		if g, err = kalah.NewGame(r); err == nil {
			b.cfg.Log.Info("house game", "bot", e.seat.St.Name, "house", level, "waited", b.cfg.HouseBotAfter)
			err = b.host.StartHouse(g, es)
		} else {
			e.Fail(err)
		}
	} else {
		e.Fail(err)
	}
	if err != nil && e.conn != nil {
		// A line-protocol bot hears of it as of any failed pairing.
		e.conn.mu.Lock()
		if e.conn.queued == e {
			e.conn.queued = nil
		}
		e.conn.mu.Unlock()
		e.conn.SendMsg(line.Errorf(codeFor(err), "no house game: %v", err))
	}
}
