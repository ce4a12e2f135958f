package arena

import (
	"context"

	"kalah/internal/identity"
	"kalah/server/core"
	"kalah/server/tournaments"
)

// People are the people's tournaments as the server's own tournaments
// take them in beside theirs (tournaments.People): in their list, and on
// their routes.
type People struct{ T *Tours }

// IsID reports whether id names a people's tournament ("p7").
func (p People) IsID(id string) bool { return IsID(id) }

// Create stores the people's tournament req asks for (Tours.Create).
func (p People) Create(ctx context.Context, creator identity.ID, req tournaments.NewPeople) (string, error) {
	return p.T.Create(ctx, creator, New{Name: req.Name, Format: req.Format, Rules: req.Rules, ClockMS: req.ClockMS,
		IncrementMS: req.IncrementMS, Minutes: req.Minutes, Rounds: req.Rounds, StartsInS: req.StartsInS, Rated: req.Rated})
}

// State returns people's tournament id as viewer sees it (Tours.State).
func (p People) State(ctx context.Context, id string, viewer identity.ID) (any, error) {
	st, err := p.T.State(ctx, id, viewer)
	if err != nil {
		return nil, err
	}
	return st, nil
}

// Enter joins (or, withdraw, takes out) a, or org's bot named bot, in
// people's tournament id (Tours.Join, Tours.Withdraw).
func (p People) Enter(ctx context.Context, id string, a core.Actor, org tournaments.Organizer, bot string, withdraw bool) error {
	do := p.T.Join
	if withdraw {
		do = p.T.Withdraw
	}
	_, err := do(ctx, id, a, Organizer(org), bot)
	return err
}

// List returns the people's tournaments, newest first, as the list of
// tournaments shows them.
func (p People) List(ctx context.Context) ([]tournaments.State, error) {
	ts, err := p.T.List(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]tournaments.State, 0, len(ts))
	for _, t := range ts {
		starts := t.Starts
		out = append(out, tournaments.State{ID: t.ID, Name: t.Name, Format: t.Format, Rules: t.Rules, Players: t.Players,
			Running: t.Running, Created: t.Created, People: true, Status: t.Status, Starts: &starts})
	}
	return out, nil
}

// Resume starts the director of every unfinished people's tournament.
func (p People) Resume(ctx context.Context) error { return p.T.Resume(ctx) }
