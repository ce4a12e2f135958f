package server

import (
	"errors"
	"fmt"
	"time"

	"kalah"
	"kalah/internal/identity"
	"kalah/server/gate"
)

// Every game the server starts passes one gate (package gate): begin for
// the games of the page, the API, seeks, challenges, the queue and house
// games; the tournaments' own starts; and runRound itself, which admits a
// resumed game (always, counted). This file turns a game's seats into
// what the gate counts, and the gate's answers into the server's errors.

// newGate returns the server's gate for cfg.
func newGate(cfg *Config) *gate.Gate {
	return gate.New(gate.Limits{
		MaxGames: cfg.MaxGames, PerPerson: cfg.MaxOpenGames, GuestsPerAddr: cfg.MaxGuestGamesPerAddr,
		LeftAfter: cfg.LeftAfter, StartsPerMinute: cfg.GameStartsPerMinute, StartsBurst: cfg.GameStartsBurst,
		WorkPerIdentity: cfg.WorkPerIdentity, WorkTotal: cfg.WorkTotal,
	})
}

// parties are who sits in seats, for the gate: people and guests with the
// address they asked from (addrs, by seat, where known), and bots.
func parties(seats [2]*seat, addrs [2]string) []gate.Party {
	var out []gate.Party
	for i, st := range seats {
		if st == nil || st.St.ID.IsZero() {
			continue
		}
		switch st.St.ID.Kind {
		case identity.Person, identity.Guest:
			out = append(out, gate.Party{Who: st.St.ID.Key(), Addr: addrs[i], Person: true, Guest: st.St.ID.Kind == identity.Guest})
		case identity.Bot:
			out = append(out, gate.Party{Who: st.St.ID.Key()})
		}
	}
	return out
}

// gameWork estimates the computer time a game under r between specs may
// cost under the server's limits (gate.Work).
func (s *Server) gameWork(r kalah.Rules, specs ...string) time.Duration {
	return gate.Work(r, s.limits(), specs...)
}

// seatWork is gameWork of seats' programs.
func (s *Server) seatWork(r kalah.Rules, seats [2]*seat) time.Duration {
	var specs []string
	for _, st := range seats {
		if st != nil && st.St.Kind == "spec" {
			specs = append(specs, st.St.Spec)
		}
	}
	return s.gameWork(r, specs...)
}

// admit passes a game between seats through the gate, asked for by path
// (addrs: each person's address, where known).
func (s *Server) admit(path gate.Path, r kalah.Rules, seats [2]*seat, addrs [2]string) (*gate.Ticket, error) {
	req := gate.Request{Path: path, Parties: parties(seats, addrs)}
	if path != gate.Tournament { // a tournament paid for its games when it was made
		req.Work = s.seatWork(r, seats)
	}
	t, err := s.gate.Admit(req)
	if err != nil {
		s.refused("gate")
		return nil, gateError(err)
	}
	return t, nil
}

// gateError makes a refusal of the gate one the server's callers know:
// a full server is busy (ErrBusy, which the protocols tell as such); the
// rest are the asker's own limits, answered 429 (httperr.go).
func gateError(err error) error {
	if errors.Is(err, gate.ErrFull) {
		return fmt.Errorf("%w (%w)", err, ErrBusy)
	}
	return err
}

// watchTicket lets the gate see whether a guest has left rd and end it to
// make room for another guest of the address; the ticket is given back
// when the round ends.
func (s *Server) watchTicket(rd *round, t *gate.Ticket) {
	leftAfter := s.cfg.LeftAfter
	t.Watch(func() bool {
		v := rd.View()
		if v == nil || v.Over || v.Ended {
			return false
		}
		for i, st := range v.Seats {
			if st.ID.Kind == identity.Guest && v.Away[i] && time.Since(v.AwaySince[i]) >= leftAfter {
				return true
			}
		}
		return false
	}, func() {
		rd.EndLeft()
	})
}
