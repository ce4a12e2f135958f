package server

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"kalah"
	"kalah/internal/identity"
	"kalah/referee"
	"kalah/server/core"
	"kalah/server/lobby"
)

// The seeks and quick pairing live in server/lobby; this file is what the
// lobby asks of the server (lobbyHost) and the names the rest of package
// server, web and the tests know them by.

// Seek is one person's open offer of a game (lobby.Seek).
type Seek = lobby.Seek

// SeekGrace is how long a seek waits for its seeker's event stream before
// it is dropped as nobody's (lobby.Grace).
const SeekGrace = lobby.Grace

// StreamSeek is the kind of a seek's event stream among the long-lived
// requests (limits.go).
const StreamSeek = "seek"

// ErrSignIn refuses a guest what needs an account.
var ErrSignIn = core.ErrSignIn

// lobbyHost is the server as the lobby sees it. None of its methods is
// called with the lobby's lock held, and the server never calls the lobby
// with s.mu held, so the two locks are never taken in both orders.
type lobbyHost struct{ s *Server }

// newLobby returns the server's lobby.
func (s *Server) newLobby() *lobby.Lobby {
	return lobby.New(lobbyHost{s}, lobby.Config{Rules: s.cfg.Rules, Done: s.ctx.Done()})
}

func (h lobbyHost) Actor(w http.ResponseWriter, r *http.Request, create bool) (core.Actor, error) {
	return h.s.actorErr(w, r, "", create)
}

func (h lobbyHost) Rating(ctx context.Context, who identity.ID, rules kalah.Rules, clockMS, incrementMS int64) lobby.Rating {
	ref := referee.Referee{Budget: time.Duration(clockMS) * time.Millisecond, Increment: time.Duration(incrementMS) * time.Millisecond}
	sr := h.s.ratingIn(ctx, who, poolOf(rules, ref))
	return lobby.Rating{Rating: sr.Rating, Provisional: sr.Provisional}
}

// Start starts a paired game through StartGame (and so the gate), and
// tells each player why, if so, a game asked to be rated is played
// unrated.
func (h lobbyHost) Start(ctx context.Context, p lobby.Pairing) (lobby.Started, error) {
	req := GameRequest{Rules: p.Rules, South: "human", North: "human", ClockMS: p.ClockMS, IncrementMS: p.IncrementMS,
		Rated: p.Rated, Casual: !p.Rated, Seated: p.Seats, By: p.Seats[0], Path: p.Path, Addrs: p.Addrs}
	if p.NoTakebacks {
		req.Takebacks = new(bool)
	}
	st, err := h.s.StartGame(ctx, req)
	if err != nil {
		return lobby.Started{}, err
	}
	out := lobby.Started{ID: st.ID, Tokens: st.Tokens}
	if st.Limited >= 0 {
		for i, id := range p.Seats {
			out.Notes[i] = limitNote(strconv.Itoa(st.Limited), id, p.Seats, p.Names)
		}
	}
	return out, nil
}

func (h lobbyHost) Refused(reason string) { h.s.refused(reason) }
