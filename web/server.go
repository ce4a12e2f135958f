package web

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"kalah"
	"kalah/internal/store"
	"kalah/server"
)

// ServerGames shows the games of a match server (bots playing over the
// network, games started through its /api/) to the page: listed, watched
// live and replayed. Their ids carry the prefix "s". People move their
// seats with the tokens the server gave them; undo and hints belong to the
// page's own casual games and are refused here.
type ServerGames struct {
	srv *server.Server
	// Finished is how many finished games List shows; zero means 50.
	Finished int
}

// NewServerGames returns the games of srv.
func NewServerGames(srv *server.Server) *ServerGames { return &ServerGames{srv: srv} }

const serverPrefix = "s"

func serverID(id string) (int64, error) {
	n, err := strconv.ParseInt(strings.TrimPrefix(id, serverPrefix), 10, 64)
	if err != nil || !strings.HasPrefix(id, serverPrefix) {
		return 0, fmt.Errorf("%w: game %q", ErrNotFound, id)
	}
	return n, nil
}

func serverErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, server.ErrNotFound):
		return fmt.Errorf("%w: %w", ErrNotFound, err)
	case errors.Is(err, server.ErrForbidden):
		return fmt.Errorf("%w: %w", ErrForbidden, err)
	case errors.Is(err, server.ErrNotYourTurn):
		return fmt.Errorf("%w: %w", ErrNotYours, err)
	}
	return err
}

// Create is refused: the page starts its games on its own hub.
func (sg *ServerGames) Create(ctx context.Context, req NewGame) (Created, error) {
	return Created{}, fmt.Errorf("%w: games are started on the page's own hub", ErrBadInput)
}

// List returns the server's live games and its latest finished ones.
func (sg *ServerGames) List() []Summary {
	live := sg.srv.LiveGames()
	limit := sg.Finished
	if limit <= 0 {
		limit = 50
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	done, _ := sg.srv.FinishedGames(ctx, limit, 0, "")
	out := make([]Summary, 0, len(live)+len(done))
	for _, g := range slices.Concat(live, done) {
		out = append(out, Summary{ID: serverPrefix + strconv.FormatInt(g.ID, 10), Players: [2]string{g.South, g.North},
			Rules: g.Rules.String(), Moves: g.Plies, Over: g.Status == store.Finished,
			Live: g.Status == store.Live, Result: g.Result, Score: [2]int{g.Score.South, g.Score.North}, Created: g.Created})
	}
	return out
}

// State returns a server game as the page draws it.
func (sg *ServerGames) State(id string) (State, error) {
	n, err := serverID(id)
	if err != nil {
		return State{}, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	v, err := sg.srv.Game(ctx, n)
	if err != nil {
		return State{}, serverErr(err)
	}
	g, err := v.Record.Game()
	if err != nil {
		return State{}, fmt.Errorf("game %s: %w", id, err)
	}
	millis := make([]int64, len(v.Record.Moves))
	for i, m := range v.Record.Moves {
		millis[i] = m.Millis
	}
	st := gameState(g, millis)
	st.ID = id
	// The version must grow with every change: moves, then the ending.
	st.Version = 2 * g.Len()
	if g.Over() {
		st.Version++
	}
	st.Live = v.Status == store.Live
	st.PerMove = int(v.PerMoveMS)
	st.Created = v.Created
	for i, name := range [2]string{v.South, v.North} {
		st.Seats[i] = Seat{Name: name, Human: v.Human[i], Joined: true}
	}
	return st, nil
}

// Watch returns a server game and a channel closed at its next event.
func (sg *ServerGames) Watch(id string) (State, <-chan struct{}, error) {
	n, err := serverID(id)
	if err != nil {
		return State{}, nil, err
	}
	// Subscribe before reading, so no event falls between the two.
	events, stop, serr := sg.srv.Subscribe(n)
	st, err := sg.State(id)
	if err != nil {
		if serr == nil {
			stop()
		}
		return State{}, nil, err
	}
	if serr != nil {
		return st, nil, nil // finished: nothing more will happen
	}
	changed := make(chan struct{})
	go func() {
		defer stop()
		defer close(changed)
		select {
		case <-events:
		case <-time.After(time.Minute): // let the watcher look again
		}
	}()
	return st, changed, nil
}

// Join is refused: server games take people only through their tokens.
func (sg *ServerGames) Join(id string) (int, string, error) {
	return 0, "", fmt.Errorf("%w: join a server game with the token the server gave", ErrNoSeat)
}

// Move plays a human seat's move.
func (sg *ServerGames) Move(ctx context.Context, id, token string, m kalah.Move) (State, error) {
	n, err := serverID(id)
	if err != nil {
		return State{}, err
	}
	// The server asks a seat for its move only after its pause between
	// moves, so a move sent as soon as the page shows the turn may come
	// early: try again for a while.
	deadline := time.Now().Add(3 * time.Second)
	for {
		err = sg.srv.Move(n, token, m)
		if !errors.Is(err, server.ErrNotYourTurn) || time.Now().After(deadline) {
			break
		}
		select {
		case <-ctx.Done():
			return State{}, ctx.Err()
		case <-time.After(25 * time.Millisecond):
		}
	}
	if err != nil {
		return State{}, serverErr(err)
	}
	return sg.State(id)
}

// Undo is refused for server games.
func (sg *ServerGames) Undo(id, token string) (State, error) {
	return State{}, fmt.Errorf("undo: %w on the page's own games", ErrNotCasual)
}

// Hint is refused for server games.
func (sg *ServerGames) Hint(ctx context.Context, id, token string) (kalah.Move, error) {
	return kalah.NoMove, fmt.Errorf("hint: %w on the page's own games", ErrNotCasual)
}

// Resign resigns a human seat.
func (sg *ServerGames) Resign(id, token string) (State, error) {
	return sg.Move(context.Background(), id, token, kalah.NoMove)
}

// Combined puts the page's own hub and a server's games together: new
// games start on the hub; ids with the server's prefix go to the server.
type Combined struct {
	Local  Games
	Server Games
}

func (c Combined) pick(id string) Games {
	if c.Server != nil && strings.HasPrefix(id, serverPrefix) {
		return c.Server
	}
	return c.Local
}

// Create starts a game on the local hub.
func (c Combined) Create(ctx context.Context, req NewGame) (Created, error) {
	return c.Local.Create(ctx, req)
}

// List returns the hub's games, then the server's.
func (c Combined) List() []Summary {
	out := c.Local.List()
	if c.Server != nil {
		out = append(out, c.Server.List()...)
	}
	slices.SortStableFunc(out, func(a, b Summary) int {
		if a.Live != b.Live {
			if a.Live {
				return -1
			}
			return 1
		}
		return b.Created.Compare(a.Created)
	})
	return out
}

// State implements Games.
func (c Combined) State(id string) (State, error) { return c.pick(id).State(id) }

// Watch implements Games.
func (c Combined) Watch(id string) (State, <-chan struct{}, error) { return c.pick(id).Watch(id) }

// Join implements Games.
func (c Combined) Join(id string) (int, string, error) { return c.pick(id).Join(id) }

// Move implements Games.
func (c Combined) Move(ctx context.Context, id, token string, m kalah.Move) (State, error) {
	return c.pick(id).Move(ctx, id, token, m)
}

// Undo implements Games.
func (c Combined) Undo(id, token string) (State, error) { return c.pick(id).Undo(id, token) }

// Hint implements Games.
func (c Combined) Hint(ctx context.Context, id, token string) (kalah.Move, error) {
	return c.pick(id).Hint(ctx, id, token)
}

// Resign implements Games.
func (c Combined) Resign(id, token string) (State, error) { return c.pick(id).Resign(id, token) }
