package server

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"time"

	"kalah"
	"kalah/internal/identity"
	"kalah/internal/store"
	"kalah/player"
	"kalah/referee"
	"kalah/server/core"
	"kalah/server/gate"
)

// Arranged games are those the server sets up itself rather than the
// queue or a challenge: a tournament run by kalah serve names a bot logged
// in to the server as the player "bot:NAME", and each of its games with
// that bot is played here, refereed and stored like any other. A bot takes
// such games by sending wait (answered "ok wait"); from then on, whenever
// it is logged in and neither playing nor queued, it may be given a game:
// it is sent start, go, moved and end as for a queue game. It stops taking
// them with leave.

// DefaultArrangedWait is how long PlayArranged waits for a bot to be free
// when neither Arranged.Wait nor Config.ArrangedWait is set.
const DefaultArrangedWait = time.Minute

// PlayArranged plays one game with bots connected to the server and
// server-side players, refereed and stored like a queue game (listed live,
// watchable), and returns it once it is over. A restarted server does not
// resume it but ends it adjudicated a draw: its caller plays it again. It
// first waits, up to a.Wait, until every bot seat's bot is free and then
// takes them all at once; see Arranged.Wait for bots that do not come. It
// returns an error, and no result, if a is malformed, the server is full
// (ErrBusy: try again later) or stops (ErrClosed), or ctx ends first; a
// game already started then plays on without its caller.
func (s *Server) PlayArranged(ctx context.Context, a Arranged) (ArrangedResult, error) {
	r := a.Rules
	if r.Houses == 0 {
		r = s.cfg.Rules
	}
	if err := r.Validate(); err != nil {
		return ArrangedResult{}, err
	}
	g, err := kalah.NewGame(r)
	if err != nil {
		return ArrangedResult{}, err
	}
	for i, m := range a.Opening {
		if g.Over() {
			break
		}
		if _, err := g.Play(m); err != nil {
			return ArrangedResult{}, fmt.Errorf("opening move %d: %w", i+1, err)
		}
	}
	g.Tags = a.Tags
	specs := [2]string{strings.TrimSpace(a.South), strings.TrimSpace(a.North)}
	var names [2]string // bot seats' names
	for i, spec := range specs {
		name, ok, err := BotName(spec)
		if err != nil {
			return ArrangedResult{}, err
		}
		if ok {
			names[i] = name
		}
	}
	if names[0] != "" && strings.EqualFold(names[0], names[1]) {
		return ArrangedResult{}, fmt.Errorf("%w: bot %s cannot play itself", ErrForbidden, names[0])
	}
	var seats [2]*seat
	for i, spec := range specs {
		if names[i] != "" {
			seats[i] = botSeatOf(identity.Of(identity.Bot, names[i]))
			continue
		}
		p, err := s.serverPlayer(spec, r, a.Seeds[i])
		if err != nil {
			// A player that cannot start loses, as in tournament.Play.
			p = absent{fmt.Errorf("%w: %w", player.ErrCrashed, err)}
		}
		seats[i] = &seat{P: p, St: programSeat(spec)}
	}
	wait := a.Wait
	if wait <= 0 {
		wait = s.cfg.ArrangedWait
	}
	ref := referee.Referee{PerMove: a.PerMove, Budget: a.Budget, Increment: a.Increment, Grace: a.Grace, Delay: a.Delay}
	if ref.Grace == 0 {
		ref.Grace = s.cfg.Grace
	}
	rd := s.newRound()
	taken, err := s.takeBots(ctx, rd, seats, wait)
	if err != nil {
		closeSeats(seats)
		return ArrangedResult{}, err
	}
	var missing []string
	for i, st := range seats {
		if st.Bot && !taken[i] {
			missing = append(missing, st.St.Name)
			// It loses when asked to move.
			seats[i] = &seat{P: absent{fmt.Errorf("%w: bot %s was not free for its game within %v (it must be logged in and have sent wait)", player.ErrDisconnected, st.St.Name, wait)}, St: st.St}
		}
	}
	release := func() { s.live.Release(rd, seats) }
	tags := maps.Clone(a.Tags)
	if tags == nil {
		tags = map[string]string{}
	}
	tags[arrangedTag] = "1"
	ticket, err := s.admit(gate.Tournament, r, seats, [2]string{})
	if err != nil {
		release()
		closeSeats(seats)
		return ArrangedResult{}, err
	}
	stored := [2]store.Seat{seats[0].St, seats[1].St}
	id, err := s.st.CreateGame(s.ctx, store.NewGame{Rules: r, Seats: stored, Tags: tags})
	if err == nil {
		for i, m := range g.Record().Moves {
			if err = s.st.AddMove(s.ctx, id, i, m); err != nil {
				break
			}
		}
	}
	if err != nil {
		ticket.Release()
		release()
		closeSeats(seats)
		return ArrangedResult{}, err
	}
	if len(missing) == 2 {
		// Neither bot came: nobody to blame more than the other.
		ticket.Release()
		release()
		closeSeats(seats)
		reason := fmt.Sprintf("neither %s nor %s was free for the game within %v", missing[0], missing[1], wait)
		if !g.Over() {
			if err := g.Adjudicate(kalah.Draw); err != nil {
				return ArrangedResult{}, err
			}
		}
		rec := g.Record()
		rec.Tags = map[string]string{ReasonTag: reason}
		if err := s.st.FinishGame(s.ctx, id, rec); err != nil {
			return ArrangedResult{}, err
		}
		s.log.Info("arranged game adjudicated", "game", id, "reason", reason)
		if a.OnStart != nil {
			a.OnStart(id)
		}
		rec.SetPlayers(specs[0], specs[1])
		return ArrangedResult{ID: id, Record: rec, Reason: reason}, nil
	}
	g.Players = [2]string{stored[0].Name, stored[1].Name}
	if s.runRound(rd, roundSetup{ID: id, G: g, Seats: seats, Ref: ref, Tags: tags, Opening: g.Len(), Ticket: ticket}) == nil {
		release()
		return ArrangedResult{ID: id}, ErrClosed
	}
	s.log.Info("arranged game started", "game", id, "south", stored[0].Name, "north", stored[1].Name, "rules", r.String())
	if a.OnStart != nil {
		a.OnStart(id)
	}
	select {
	case <-rd.Done():
	case <-ctx.Done():
		return ArrangedResult{ID: id}, ctx.Err()
	}
	o := rd.Outcome()
	if o == nil {
		return ArrangedResult{ID: id}, fmt.Errorf("game %d stopped unfinished: %w", id, ErrClosed)
	}
	res := ArrangedResult{ID: id, Record: o.Record, Reason: o.Reason}
	res.Record.SetPlayers(specs[0], specs[1])
	return res, nil
}

// arrangedTag marks an arranged game in the store, so a restarted server
// does not resume it: its caller (a tournament) is gone and plays the game
// again from the start.
const arrangedTag = core.TagArranged

// abandonArranged ends an arranged game found unfinished after a restart:
// adjudicated a draw, which no tournament counts (it plays the game
// again), freeing its bots for that.
func (s *Server) abandonArranged(sg store.Game) error {
	g, err := store.Replay(sg.Record)
	if err != nil {
		return s.adjudicateBroken(sg, err)
	}
	if !g.Over() {
		if err := g.Adjudicate(kalah.Draw); err != nil {
			return err
		}
	}
	s.log.Info("abandoned an arranged game left unfinished; its tournament plays it again", "game", sg.ID, "moves", g.Len())
	return s.st.FinishGame(s.ctx, sg.ID, g.Record())
}

// serverPlayer builds a server-side player, refusing programs unless the
// server allows them.
func (s *Server) serverPlayer(spec string, r kalah.Rules, seed uint64) (player.Player, error) {
	info, _, err := player.Lookup(spec)
	if err != nil {
		return nil, err
	}
	if info.Raw && !s.cfg.AllowExec {
		return nil, fmt.Errorf("%w: %s players run programs on the server; start the server with exec allowed", ErrForbidden, info.Name)
	}
	if err := s.checkLimits(spec); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrForbidden, err)
	}
	p, err := player.New(spec, player.Options{Rules: r, Seed: seed})
	if err != nil {
		return nil, err
	}
	return s.thinkLimit(p), nil
}

// takeBots waits until every bot seat's bot is free, or until wait has
// passed, and then reserves for rd those that are free, in the live
// games' registry, which takes them all at once so nothing else takes
// them in between (round.Registry.Reserve). It reports which seats it
// took, and ErrBusy when the server plays as many games as it may.
func (s *Server) takeBots(ctx context.Context, rd *round, seats [2]*seat, wait time.Duration) ([2]bool, error) {
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	late := false
	for {
		// Asked before the bots are looked at, so that a bot freed after
		// the look wakes this loop.
		freed := s.live.Freed()
		if s.cfg.MaxGames > 0 && s.gate.Live() >= s.cfg.MaxGames {
			return [2]bool{}, gateError(fmt.Errorf("%w: %d games are being played", gate.ErrFull, s.cfg.MaxGames))
		}
		var free [2]bool
		for i, st := range seats {
			free[i] = st.Bot && s.freeConn(st.St.ID.Key())
		}
		taken, ok := s.live.Reserve(rd, seats, free, !late)
		if !ok {
			return taken, ErrClosed
		}
		if taken[0] || taken[1] || late || (!seats[0].Bot && !seats[1].Bot) {
			return taken, nil
		}
		select {
		case <-freed:
		case <-deadline.C:
			late = true
		case <-ctx.Done():
			return taken, ctx.Err()
		case <-s.ctx.Done():
			return taken, ErrClosed
		}
	}
}
