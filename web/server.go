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

// ServerGames are the games of the match server, the page's only game
// runtime: the page starts its games there (people against the computer,
// two people by the game's link, the tournaments' games), lists them with
// the bots' and KGP clients' games, follows them live and moves people's
// seats with the tokens the server gives. Their ids carry the prefix "s";
// a game imported from an older release's page (web-games/) is also found
// by the id it had there.
type ServerGames struct {
	srv *server.Server
	// Finished is how many finished games List shows; zero means 50.
	Finished int
}

// NewServerGames returns the games of srv.
func NewServerGames(srv *server.Server) *ServerGames { return &ServerGames{srv: srv} }

const serverPrefix = "s"

func (sg *ServerGames) serverID(id string) (int64, error) {
	n, err := strconv.ParseInt(strings.TrimPrefix(id, serverPrefix), 10, 64)
	if err == nil && strings.HasPrefix(id, serverPrefix) {
		return n, nil
	}
	if id != "" && len(id) <= 40 {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if n, err := sg.srv.ImportedGame(ctx, id); err == nil {
			return n, nil
		}
	}
	return 0, fmt.Errorf("%w: game %q", ErrNotFound, id)
}

func gameID(n int64) string { return serverPrefix + strconv.FormatInt(n, 10) }

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
	case errors.Is(err, server.ErrNotCasual):
		return fmt.Errorf("%w: %w", ErrNotCasual, err)
	case errors.Is(err, server.ErrNoSeat):
		return fmt.Errorf("%w: %w", ErrNoSeat, err)
	case errors.Is(err, server.ErrBadRequest):
		return fmt.Errorf("%w: %w", ErrBadInput, err)
	case errors.Is(err, server.ErrTooMany):
		return fmt.Errorf("%w: %w", ErrTooMany, err)
	case errors.Is(err, server.ErrBusy):
		return fmt.Errorf("%w: %w", ErrBusy, err)
	}
	return err
}

// Create starts a game on the server. A second human seat is left open
// for whoever follows the game's link.
func (sg *ServerGames) Create(ctx context.Context, req NewGame) (Created, error) {
	if req.PerMoveMillis < 0 || req.PerMoveMillis > 3_600_000 || req.DelayMillis < 0 || req.DelayMillis > 60_000 {
		return Created{}, fmt.Errorf("%w: clock out of range", ErrBadInput)
	}
	if err := req.Rules.Validate(); err != nil {
		return Created{}, fmt.Errorf("%w: %w", ErrBadInput, err)
	}
	seat := func(spec string) string {
		if spec == "" || spec == Human {
			return "human"
		}
		return spec
	}
	gr := server.GameRequest{Rules: req.Rules, South: seat(req.South), North: seat(req.North), Start: req.Start,
		Opening: req.Opening, Names: req.Names, PerMoveMS: int64(req.PerMoveMillis), DelayMS: int64(req.DelayMillis),
		Casual: req.Casual, Invite: true, Seeds: req.PlayerSeeds}
	if gr.Seeds == [2]uint64{} && req.Seed != 0 {
		gr.Seeds = [2]uint64{req.Seed, req.Seed + 1}
	}
	for i, spec := range [2]string{req.South, req.North} {
		if (spec == "" || spec == Human) && gr.Names[i] == "" {
			gr.Names[i] = "Human"
		}
	}
	if req.Tournament != "" {
		gr.Tags = map[string]string{tagTournament: req.Tournament}
	}
	var st server.Started
	var err error
	if who, ok := ctx.Value(requesterKey{}).(string); ok {
		st, err = sg.srv.StartGameFor(ctx, who, gr)
	} else {
		st, err = sg.srv.StartGame(ctx, gr)
	}
	if err != nil {
		return Created{}, serverErr(err)
	}
	return Created{ID: gameID(st.ID), Tokens: st.Tokens}, nil
}

// tagTournament holds the id of the page's tournament a game belongs to.
const tagTournament = server.TournamentTag

// List returns the server's live games and its latest finished ones, live
// first, newest first.
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
		out = append(out, Summary{ID: gameID(g.ID), Players: [2]string{g.South, g.North},
			Rules: g.Rules.String(), Moves: g.Plies, Over: g.Status == store.Finished,
			Live: g.Status == store.Live, Result: g.Result, Score: [2]int{g.Score.South, g.Score.North},
			Tournament: g.Tags[tagTournament], Created: g.Created})
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

// State returns a server game as the page draws it.
func (sg *ServerGames) State(id string) (State, error) {
	n, err := sg.serverID(id)
	if err != nil {
		return State{}, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	v, err := sg.srv.Game(ctx, n)
	if err != nil {
		return State{}, serverErr(err)
	}
	g, err := store.Replay(v.Record)
	if err != nil {
		return State{}, fmt.Errorf("game %s: %w", id, err)
	}
	if v.Status == store.Finished {
		if g, err = v.Record.Game(); err != nil {
			return State{}, fmt.Errorf("game %s: %w", id, err)
		}
	}
	millis := make([]int64, len(v.Record.Moves))
	for i, m := range v.Record.Moves {
		millis[i] = m.Millis
	}
	st := gameState(g, millis)
	st.ID = gameID(n)
	st.Live = v.Status == store.Live
	st.PerMove = int(v.PerMoveMS)
	st.Casual = v.Casual
	st.Created = v.Created
	st.Tournament = v.Record.Tags[tagTournament]
	st.Reason = v.Reason
	if next := v.Record.Tags[server.RematchTag]; next != "" {
		st.Rematch = serverPrefix + next
	}
	joined := 0
	for i, name := range [2]string{v.South, v.North} {
		st.Seats[i] = Seat{Name: name, Human: v.Human[i], Joined: !v.Open[i], Spec: v.Specs[i]}
		if !v.Open[i] {
			joined++
		}
	}
	// The version grows with every change, across restarts too: a
	// takeback, a move, a seat taken, the end.
	takebacks := 0
	if tb := v.Record.Tags[store.TakebackTag]; tb != "" {
		takebacks = strings.Count(tb, ";") + 1
	}
	over := 0
	if g.Over() {
		over = 1
	}
	st.Version = ((takebacks*10_000+g.Len())*3+joined)*2 + over
	return st, nil
}

// Record returns a game's record and why it was forfeited, if it was.
func (sg *ServerGames) Record(id string) (kalah.Record, string, error) {
	n, err := sg.serverID(id)
	if err != nil {
		return kalah.Record{}, "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	v, err := sg.srv.Game(ctx, n)
	if err != nil {
		return kalah.Record{}, "", serverErr(err)
	}
	return v.Record, v.Reason, nil
}

// Watch returns a server game and a channel closed at its next event.
func (sg *ServerGames) Watch(id string) (State, <-chan struct{}, error) {
	n, err := sg.serverID(id)
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

// Join takes the game's open seat.
func (sg *ServerGames) Join(id string) (int, string, error) {
	n, err := sg.serverID(id)
	if err != nil {
		return 0, "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	seat, tok, err := sg.srv.Join(ctx, n)
	return seat, tok, serverErr(err)
}

// Move plays a human seat's move and returns the state once it is stored.
func (sg *ServerGames) Move(ctx context.Context, id, token string, m kalah.Move) (State, error) {
	n, err := sg.serverID(id)
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

// Undo takes back the person's last move (and the computer's reply) in a
// casual game against the computer.
func (sg *ServerGames) Undo(id, token string) (State, error) {
	n, err := sg.serverID(id)
	if err != nil {
		return State{}, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := sg.srv.TakeBack(ctx, n, token); err != nil {
		return State{}, serverErr(err)
	}
	return sg.State(id)
}

// Hint returns the server's suggestion for the token's seat in a casual
// game.
func (sg *ServerGames) Hint(ctx context.Context, id, token string) (kalah.Move, error) {
	n, err := sg.serverID(id)
	if err != nil {
		return kalah.NoMove, err
	}
	m, err := sg.srv.Hint(ctx, n, token)
	return m, serverErr(err)
}

// Resign resigns the token's seat, whether or not it is its turn.
func (sg *ServerGames) Resign(id, token string) (State, error) {
	n, err := sg.serverID(id)
	if err != nil {
		return State{}, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := sg.srv.Resign(ctx, n, token); err != nil {
		return State{}, serverErr(err)
	}
	return sg.State(id)
}

// abandon ends a game its tournament stopped following.
func (sg *ServerGames) abandon(id string) {
	n, err := sg.serverID(id)
	if err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	sg.srv.Abandon(ctx, n, "its tournament stopped; it will play this game again")
}

// requesterKey carries who asks for a game (Options.Requester) to Create.
type requesterKey struct{}

func withRequester(ctx context.Context, who string) context.Context {
	return context.WithValue(ctx, requesterKey{}, who)
}

// Rematch starts the game after a finished one for the token's seat, or
// takes its open seat when the opponent asked first.
func (sg *ServerGames) Rematch(id, token string) (Created, error) {
	n, err := sg.serverID(id)
	if err != nil {
		return Created{}, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	st, err := sg.srv.Rematch(ctx, n, token)
	if err != nil {
		return Created{}, serverErr(err)
	}
	return Created{ID: gameID(st.ID), Tokens: st.Tokens}, nil
}
