package setup

import (
	"fmt"
	"strconv"

	"kalah"
	"kalah/internal/identity"
	"kalah/internal/store"
	"kalah/player"
	"kalah/server/core"
	"kalah/server/round"
)

// Resume restarts the unfinished games in the store.
func (m *Service) Resume() error {
	games, err := m.st.Unfinished(m.ctx)
	if err != nil {
		return fmt.Errorf("server: %w", err)
	}
	for _, sg := range games {
		if err := m.resumeGame(sg); err != nil {
			m.log.Error("cannot resume game", "game", sg.ID, "err", err)
		}
	}
	return nil
}

func (m *Service) resumeGame(sg store.Game) error {
	// A tournament's game left unfinished is played again by its
	// tournament, which counts only the games it sees end.
	if sg.Record.Tags[core.TagArranged] != "" || sg.Record.Tags[core.TournamentTag] != "" {
		return m.host.AbandonArranged(sg)
	}
	g, err := store.Replay(sg.Record)
	if err != nil {
		return m.AdjudicateBroken(sg, err)
	}
	var seats [2]*round.Seat
	var lost [2]bool
	for i, st := range sg.Seats {
		switch st.Kind {
		case "bot":
			seats[i] = &round.Seat{Bot: true, Returns: true, St: st}
			if st.ID.IsZero() {
				seats[i].St.ID = identity.Of(identity.Bot, st.Name)
			}
		case "human":
			if st.TokenHash == "" && !st.Open && st.ID.IsZero() {
				lost[i] = true // a person of an older release: no way back in
			}
			seats[i] = &round.Seat{Human: true, St: st}
		case "spec":
			p, err := player.New(st.Spec, player.Options{Rules: g.Rules(), Seed: uint64(sg.ID)*2 + uint64(i)})
			if err != nil {
				m.log.Warn("cannot rebuild player", "game", sg.ID, "spec", st.Spec, "err", err)
				lost[i] = true
				p = round.Absent(err)
			}
			seats[i] = &round.Seat{P: m.host.ThinkLimit(p), St: st}
		default:
			// A KGP client cannot come back to a game: it loses when its
			// turn comes, after the resume's grace.
			seats[i] = &round.Seat{P: round.Absent(fmt.Errorf("%w: %s cannot come back after the server restarted", player.ErrDisconnected, st.Name)), St: st}
		}
	}
	if lost[0] || lost[1] {
		CloseSeats(seats)
		switch {
		case lost[0] && lost[1]:
			err = g.Adjudicate(kalah.Draw)
		case lost[0]:
			err = g.Forfeit(g.PlayerSide(0), kalah.Disconnect)
		default:
			err = g.Forfeit(g.PlayerSide(1), kalah.Disconnect)
		}
		if err == nil {
			err = m.st.FinishGame(m.ctx, sg.ID, g.Record())
		}
		m.log.Info("adjudicated unfinished game", "game", sg.ID, "result", g.Result(), "termination", g.Termination())
		return err
	}
	millis := make([]int64, g.Len())
	for i, rm := range sg.Record.Moves {
		if i < len(millis) {
			millis[i] = rm.Millis
		}
	}
	su := SetupOf(sg.Record.Tags)
	ref := m.cfg.Referee
	if su.Ref != nil {
		ref = *su.Ref
	}
	opening := 0
	if n, err := strconv.Atoi(sg.Record.Tags[core.TagOpening]); err == nil {
		opening = n
	}
	m.log.Info("resuming game", "game", sg.ID, "moves", g.Len())
	m.host.StartRound(round.Setup{ID: sg.ID, G: g, Seats: seats, Ref: ref, Casual: su.Casual, Tags: sg.Record.Tags,
		Millis: millis, Created: sg.Created, Opening: opening, Resumed: true})
	return nil
}

// AdjudicateBroken ends a stored game whose moves cannot be replayed.
func (m *Service) AdjudicateBroken(sg store.Game, cause error) error {
	rec := sg.Record
	rec.Result = kalah.Draw
	rec.Termination = kalah.Adjudicated
	m.log.Error("adjudicating a game that does not replay", "game", sg.ID, "err", cause)
	return m.st.FinishGame(m.ctx, sg.ID, rec)
}
