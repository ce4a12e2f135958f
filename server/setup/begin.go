package setup

import (
	"context"
	"log/slog"
	"strconv"

	"kalah"
	"kalah/internal/identity"
	"kalah/internal/store"
	"kalah/referee"
	"kalah/server/core"
	"kalah/server/gate"
	"kalah/server/round"
)

// Setup is what a game has beyond its players.
type Setup struct {
	Start  string            // a set-up position, empty for the rules' start
	Tags   map[string]string // stored with the game
	Ref    *referee.Referee  // the game's own clock; nil: the server's
	Casual bool
	// Rated asks for a game that counts on the ladders: it does if its
	// players may be rated against each other (Host.Ratable), or, for a
	// seat still open, once it is taken by someone who may.
	Rated bool
	// Path is how the game was asked for, and Addrs each person's address
	// where known, for the gate (Host.Admit).
	Path  gate.Path
	Addrs [2]string
	// Limited, if not nil, is set by Begin to the rated games the players
	// had played with each other today when that made the game unrated
	// (server/ratings' daily limit); Begin's caller reads it, not the tags
	// the game owns.
	Limited *int
}

// Begin stores and runs g (which may hold opening moves, stored with it)
// between seats: the one way every game starts after the gate.
func (m *Service) Begin(ctx context.Context, g *kalah.Game, seats [2]*round.Seat, su Setup) (*round.Round, error) {
	ticket, err := m.host.Admit(su.Path, g.Rules(), seats, su.Addrs)
	if err != nil {
		CloseSeats(seats)
		return nil, err
	}
	if su.Tags == nil {
		su.Tags = map[string]string{}
	}
	ids := [2]identity.ID{seats[0].St.ID, seats[1].St.ID}
	if su.Rated && !su.Casual {
		switch {
		case seats[0].St.Open || seats[1].St.Open:
			su.Tags[core.TagRatedAsked] = "yes"
		case m.host.Ratable(ctx, ids):
			// At most so many rated games a pair a day (server/ratings).
			ok, n, release := m.host.ReserveRated(ctx, ids)
			defer release()
			if ok {
				su.Tags[core.TagRated] = "yes"
			} else {
				su.Tags[core.TagRatedLimit] = strconv.Itoa(n)
				if su.Limited != nil {
					*su.Limited = n
				}
			}
		}
	}
	ref := m.cfg.Referee
	if su.Ref != nil {
		ref = *su.Ref
	}
	if g.Len() > 0 {
		su.Tags[core.TagOpening] = strconv.Itoa(g.Len())
	}
	stored := [2]store.Seat{seats[0].St, seats[1].St}
	id, err := m.st.CreateGame(m.ctx, store.NewGame{Rules: g.Rules(), Seats: stored, Start: su.Start, Tags: su.Tags})
	if err == nil {
		for i, rm := range g.Record().Moves {
			if err = m.st.AddMove(m.ctx, id, i, rm); err != nil {
				break
			}
		}
	}
	if err != nil {
		ticket.Release()
		CloseSeats(seats)
		return nil, err
	}
	g.Players = [2]string{stored[0].Name, stored[1].Name}
	rd := m.host.StartRound(round.Setup{ID: id, G: g, Seats: seats, Ref: ref, Casual: su.Casual, Tags: su.Tags, Opening: g.Len(), Ticket: ticket})
	if rd == nil {
		return nil, core.ErrClosed
	}
	// At debug, as a game's end (the store and the metrics have both).
	if m.log.Enabled(ctx, slog.LevelDebug) {
		m.log.Debug("game started", "game", id, "south", stored[0].Name, "north", stored[1].Name, "rules", g.Rules().String())
	}
	return rd, nil
}

// CloseSeats closes the players of seats whose game does not start.
func CloseSeats(seats [2]*round.Seat) {
	for _, st := range seats {
		if st != nil && st.P != nil {
			if c, ok := st.P.(interface{ Close() error }); ok {
				c.Close()
			}
		}
	}
}
