package server

import (
	"context"
	"kalah"
	"kalah/internal/identity"
	"kalah/internal/store"
	"kalah/referee"
	"kalah/server/gate"
	"strconv"
)

// start creates and runs a game between two entrants, the first as South
// under the rules' first-mover convention (seat 0). Games the queue and
// challenges pair are rated when their players may be.
func (s *Server) start(r kalah.Rules, es [2]*entrant, path gate.Path) error {
	g, err := kalah.NewGame(r)
	if err != nil {
		for _, e := range es {
			e.fail(err)
		}
		return err
	}
	return s.startEntrants(g, es, setup{rated: true, path: path})
}

// startEntrants begins g between two entrants (South's first) and tells
// each its seat, or why there is no game.
func (s *Server) startEntrants(g *kalah.Game, es [2]*entrant, su setup) error {
	rd, err := s.begin(s.ctx, g, [2]*seat{es[0].seat, es[1].seat}, su)
	if err == nil {
		for i, e := range es {
			e.game = rd
			if e.seated != nil {
				e.seated(i)
			}
		}
	}
	for _, e := range es {
		e.fail(err)
	}
	return err
}

// setup is what a game has beyond its players.
type setup struct {
	start  string            // a set-up position, empty for the rules' start
	tags   map[string]string // stored with the game
	ref    *referee.Referee  // the game's own clock; nil: the server's
	casual bool
	// rated asks for a game that counts on the ladders: it does if its
	// players may be rated against each other (ratable), or, for a seat
	// still open, once it is taken by someone who may.
	rated bool
	// path is how the game was asked for, and addrs each person's address
	// where known, for the gate (admit).
	path  gate.Path
	addrs [2]string
	// limited, if not nil, is set by begin to the rated games the players
	// had played with each other today when that made the game unrated
	// (farming.go); begin's caller reads it, not the tags the game owns.
	limited *int
}

// begin stores and runs g (which may hold opening moves, stored with it)
// between seats.
func (s *Server) begin(ctx context.Context, g *kalah.Game, seats [2]*seat, su setup) (*round, error) {
	ticket, err := s.admit(su.path, g.Rules(), seats, su.addrs)
	if err != nil {
		closeSeats(seats)
		return nil, err
	}
	if su.tags == nil {
		su.tags = map[string]string{}
	}
	ids := [2]identity.ID{seats[0].St.ID, seats[1].St.ID}
	if su.rated && !su.casual {
		switch {
		case seats[0].St.Open || seats[1].St.Open:
			su.tags[tagRatedAsked] = "yes"
		case s.ratable(ctx, ids):
			// At most maxRatedPerDay a pair (farming.go).
			ok, n, release := s.reserveRated(ctx, ids)
			defer release()
			if ok {
				su.tags[tagRated] = "yes"
			} else {
				su.tags[tagRatedLimit] = strconv.Itoa(n)
				if su.limited != nil {
					*su.limited = n
				}
			}
		}
	}
	ref := s.referee()
	if su.ref != nil {
		ref = *su.ref
	}
	if g.Len() > 0 {
		su.tags[tagOpening] = strconv.Itoa(g.Len())
	}
	stored := [2]store.Seat{seats[0].St, seats[1].St}
	id, err := s.st.CreateGame(s.ctx, store.NewGame{Rules: g.Rules(), Seats: stored, Start: su.start, Tags: su.tags})
	if err == nil {
		for i, rm := range g.Record().Moves {
			if err = s.st.AddMove(s.ctx, id, i, rm); err != nil {
				break
			}
		}
	}
	if err != nil {
		ticket.Release()
		closeSeats(seats)
		return nil, err
	}
	g.Players = [2]string{stored[0].Name, stored[1].Name}
	rd := s.startRound(roundSetup{ID: id, G: g, Seats: seats, Ref: ref, Casual: su.casual, Tags: su.tags, Opening: g.Len(), Ticket: ticket})
	if rd == nil {
		return nil, ErrClosed
	}
	s.log.Info("game started", "game", id, "south", stored[0].Name, "north", stored[1].Name, "rules", g.Rules().String())
	return rd, nil
}

// closeSeats closes the players of seats whose game does not start.
func closeSeats(seats [2]*seat) {
	for _, st := range seats {
		if st != nil && st.P != nil {
			if c, ok := st.P.(interface{ Close() error }); ok {
				c.Close()
			}
		}
	}
}
