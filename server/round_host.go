package server

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"kalah"
	"kalah/internal/identity"
	"kalah/internal/store"
	"kalah/server/gate"
	"kalah/server/ratings"
	rnd "kalah/server/round"
)

// The live games are package round's (server/round): each a Round whose
// loop owns it. These are the names the rest of the server knows them by.
type (
	round      = rnd.Round
	roundSetup = rnd.Setup
	seat       = rnd.Seat
	// Event is something that happened in a game, for subscribers.
	Event = rnd.Event
)

// The actions of POST /api/games/{id}/draw and of the line protocol's
// draw message.
const (
	DrawOffer   = rnd.DrawOffer
	DrawAccept  = rnd.DrawAccept
	DrawDecline = rnd.DrawDecline
	DrawCancel  = rnd.DrawCancel
)

// GiveTime is what GiveTime adds to the opponent's clock.
const GiveTime = rnd.GiveTime

// Errors of draw offers, matched with errors.Is.
var (
	ErrNoOffer = rnd.ErrNoOffer
	ErrNoDraw  = rnd.ErrNoDraw
)

// newRound returns a round not yet started (runRound starts it).
func (s *Server) newRound() *round { return rnd.New(0) }

// startRound registers a new round and starts its loop; it returns nil if
// the server is stopping (the game stays live in the store for the next).
func (s *Server) startRound(su roundSetup) *round {
	return s.runRound(rnd.New(su.ID), su)
}

// runRound registers r and starts its loop on su; a resumed game (no
// ticket) is admitted here.
func (s *Server) runRound(r *round, su roundSetup) *round {
	if su.Ticket == nil {
		su.Ticket, _ = s.gate.Admit(gate.Request{Path: gate.Resumed, Parties: parties(su.Seats, [2]string{})})
	}
	s.watchTicket(r, su.Ticket)
	return rnd.Start(roundHost{s}, r, su)
}

// botSeatOf returns a new seat for bot id, which plays over our protocol.
func botSeatOf(id identity.ID) *seat { return rnd.BotSeat(id) }

// Draw does action (DrawOffer, DrawAccept, DrawDecline or DrawCancel) on
// the draw negotiation of game id for the person a. Offering when the
// opponent has offered accepts.
func (s *Server) Draw(ctx context.Context, id int64, a Actor, action string) error {
	r, err := s.round(id)
	if err != nil {
		return err
	}
	return r.Draw(ctx, a, action)
}

// apiDraw serves POST /api/games/{id}/draw {"action": "offer"|"accept"|
// "decline"|"cancel"}, answered with the game's Board.
func (s *Server) apiDraw(w http.ResponseWriter, r *http.Request) {
	id, a, req, ok := s.seatRequest(w, r)
	if !ok {
		return
	}
	s.answerBoard(w, r, id, s.Draw(r.Context(), id, a, req.Action))
}

// roundHost is the server as its rounds see it (round.Host).
type roundHost struct{ s *Server }

func (h roundHost) Context() context.Context { return h.s.ctx }
func (h roundHost) Log() *slog.Logger        { return h.s.log }

func (h roundHost) Config() rnd.Config {
	c := h.s.cfg
	return rnd.Config{AbortAfter: c.AbortAfter, ClaimAfter: c.ClaimAfter, AbandonAfter: c.AbandonAfter, Reconnect: c.Reconnect,
		ResumeGrace: c.ResumeGrace, AsyncMoves: c.AsyncMoves, Hints: c.Hint != nil}
}

func (h roundHost) AddMoveAsync(ctx context.Context, id int64, ply int, rm kalah.RecordMove) <-chan error {
	return h.s.st.AddMoveAsync(ctx, id, ply, rm)
}

func (h roundHost) AddMove(ctx context.Context, id int64, ply int, rm kalah.RecordMove) error {
	return h.s.st.AddMove(ctx, id, ply, rm)
}

func (h roundHost) FinishGame(ctx context.Context, rec kalah.Record, g rnd.Rated) error {
	r, ok := ratings.Rating(ratings.Game{ID: g.ID, Tags: g.Tags, Seats: g.Seats, Rules: g.G.Rules(), Referee: g.Ref, Finished: true,
		Termination: g.G.Termination(), Result: g.G.Result(), Swapped: g.G.Swapped(), BothMoved: g.BothMoved})
	if !ok {
		return h.s.st.FinishGame(ctx, g.ID, rec)
	}
	err := h.s.st.FinishRated(ctx, g.ID, rec, r)
	if errors.Is(err, store.ErrNotRated) {
		h.s.log.Error("cannot rate game", "game", g.ID, "err", err)
		return nil
	}
	return err
}

func (h roundHost) TakeBack(ctx context.Context, id int64, ply int, what string) error {
	return h.s.st.TakeBack(ctx, id, ply, what)
}

func (h roundHost) SetTag(ctx context.Context, id int64, tag, value string) error {
	return h.s.st.SetTag(ctx, id, tag, value)
}

func (h roundHost) SetSeats(ctx context.Context, id int64, seats [2]store.Seat) error {
	return h.s.st.SetSeats(ctx, id, seats)
}

func (h roundHost) UnratedWhy(g *kalah.Game, opening int, tags map[string]string) string {
	seats := rnd.MoveSeats(g)
	return ratings.UnratedWhy(tags, g.Termination(), seats[min(opening, len(seats)):])
}

func (h roundHost) Ratable(ctx context.Context, ids [2]identity.ID) bool {
	return h.s.ratable(ctx, ids)
}

func (h roundHost) ReserveRated(ctx context.Context, ids [2]identity.ID) (bool, int, func()) {
	return h.s.reserveRated(ctx, ids)
}

// Register makes r live and keeps its bots for it, unless the server is
// stopping, then hands it the connections of its bots logged in. A bot
// logging in meanwhile finds it seated after its session is kept (login),
// so one of the two attaches it, or both: attaching is idempotent.
func (h roundHost) Register(r *round, seats [2]*seat, attach func(int, rnd.Link)) bool {
	s := h.s
	if !s.live.Add(r, seats, func() { s.games.Add(1) }) {
		return false
	}
	for i, st := range seats {
		if st.Bot {
			if c := s.bots.Link(st.St.ID.Key()); c != nil {
				attach(i, c)
			}
		}
	}
	return true
}

func (h roundHost) Unregister(r *round) { h.s.live.Remove(r) }

// Release frees r's bots for other games.
func (h roundHost) Release(r *round, seats [2]*seat) { h.s.live.Release(r, seats) }

func (h roundHost) Exited() { h.s.games.Done() }

func (h roundHost) CountMove(d time.Duration) { h.s.stats.Add(d) }

func (h roundHost) MoveConfirmed(d time.Duration) { h.s.metrics.Confirm.Observe(d.Seconds()) }
