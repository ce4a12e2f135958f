package web

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"kalah"
	"kalah/player"
	"kalah/referee"
)

// Errors of the game hub, matched with errors.Is; the handlers map them to
// HTTP status codes.
var (
	ErrNotFound  = errors.New("not found")
	ErrForbidden = errors.New("not your seat")
	ErrNotYours  = errors.New("not your turn")
	ErrNoSeat    = errors.New("no free seat")
	ErrNotCasual = errors.New("only in casual games")
	ErrBadInput  = errors.New("bad input")
	ErrBusy      = errors.New("too many games in progress; try again later")
)

// Human is the spec of a seat played from a browser.
const Human = "human"

// NewGame asks for a game: the rules, a start position (empty for the
// rules' start), the two seats by the side they start on (a player spec,
// a level name, or "human"), and the clock.
type NewGame struct {
	Rules kalah.Rules `json:"rules"`
	Start string      `json:"start,omitempty"`
	South string      `json:"south"`
	North string      `json:"north"`
	Names [2]string   `json:"names,omitempty"`
	// PerMoveMillis limits each move; zero means no limit.
	PerMoveMillis int `json:"per_move_ms,omitempty"`
	// DelayMillis pauses before each move so people can follow.
	DelayMillis int `json:"delay_ms,omitempty"`
	// Casual games allow undo and hints.
	Casual bool `json:"casual"`
	// Seed feeds the computer players that draw at random.
	Seed uint64 `json:"seed,omitempty"`
	// Tournament, if set, names the tournament the game belongs to.
	Tournament string `json:"tournament,omitempty"`
	// Opening holds moves made before the players take over.
	Opening []kalah.Move `json:"opening,omitempty"`
	// PlayerSeeds, if not zero, seed each seat's player instead of Seed.
	PlayerSeeds [2]uint64 `json:"player_seeds,omitzero"`
}

// Created is a new game and the seat tokens of its creator.
type Created struct {
	ID string `json:"id"`
	// Tokens holds, for each human seat, the token that moves it; empty for
	// a computer seat and for a human seat left open for someone to join.
	Tokens [2]string `json:"tokens"`
}

// Seat describes one seat of a game.
type Seat struct {
	Name   string `json:"name"`
	Human  bool   `json:"human"`
	Joined bool   `json:"joined"`
	Spec   string `json:"spec,omitempty"`
}

// PlayedMove is one move of a game state, with the board after it.
type PlayedMove struct {
	Side    kalah.Side `json:"side"`
	Move    string     `json:"move"`
	Extra   bool       `json:"extra"`
	Capture bool       `json:"capture"`
	End     bool       `json:"end"`
	Pits    []int      `json:"pits"` // the board after the move, in sowing order
	Millis  int64      `json:"ms"`
}

// State is everything a page needs to draw a game.
type State struct {
	ID          string       `json:"id"`
	Version     int          `json:"version"`
	Rules       kalah.Rules  `json:"rules"`
	RulesText   string       `json:"rules_text"`
	Seats       [2]Seat      `json:"seats"`
	Start       []int        `json:"start"`
	StartText   string       `json:"start_text"`
	StartToMove kalah.Side   `json:"start_to_move"`
	Moves       []PlayedMove `json:"moves"`
	MoveText    string       `json:"move_text"`
	Position    string       `json:"position"`
	Pits        []int        `json:"pits"`
	ToMove      kalah.Side   `json:"to_move"`
	ToMoveSeat  int          `json:"to_move_seat"`
	Swapped     bool         `json:"swapped"`
	Legal       []string     `json:"legal"`
	Over        bool         `json:"over"`
	Result      kalah.Result `json:"result"`
	Termination string       `json:"termination,omitempty"`
	Reason      string       `json:"reason,omitempty"`
	Score       [2]int       `json:"score"`
	Casual      bool         `json:"casual"`
	PerMove     int          `json:"per_move_ms,omitempty"`
	Live        bool         `json:"live"`
	Tournament  string       `json:"tournament,omitempty"`
	Record      string       `json:"record"`
	Created     time.Time    `json:"created"`
}

// Summary is a line of the list of games.
type Summary struct {
	ID         string       `json:"id"`
	Players    [2]string    `json:"players"`
	Rules      string       `json:"rules"`
	Moves      int          `json:"moves"`
	Over       bool         `json:"over"`
	Live       bool         `json:"live"`
	Result     kalah.Result `json:"result"`
	Score      [2]int       `json:"score"`
	Tournament string       `json:"tournament,omitempty"`
	Created    time.Time    `json:"created"`
}

// Games is what the page needs of the games on the server: start them, list
// them, follow them and move their human seats.
type Games interface {
	Create(ctx context.Context, req NewGame) (Created, error)
	List() []Summary
	State(id string) (State, error)
	// Watch returns the state now and a channel closed at the next change.
	Watch(id string) (State, <-chan struct{}, error)
	Join(id string) (seat int, token string, err error)
	Move(ctx context.Context, id, token string, m kalah.Move) (State, error)
	Undo(id, token string) (State, error)
	Hint(ctx context.Context, id, token string) (kalah.Move, error)
	Resign(id, token string) (State, error)
}

// Hub is the built-in Games: it runs every game in this process through
// referee.Referee, with browser-backed players for human seats. The zero
// value is not usable; call NewHub.
type Hub struct {
	analyzer Analyzer
	log      *slog.Logger
	ctx      context.Context
	cancel   context.CancelFunc
	wg       sync.WaitGroup

	mu    sync.Mutex
	games map[string]*session
	order []string
	seq   uint64
	// maxGames bounds the games kept; the oldest finished ones go first.
	maxGames int
	// maxLive bounds the games in progress between two computer players,
	// so a flood of requests cannot keep the processor busy without end. A
	// game with a person moves no faster than the person.
	maxLive int
	dir     string // where games are saved (Persist); empty: nowhere
}

// NewHub returns a hub whose hints come from a (nil: Engine). Close stops
// its games.
func NewHub(a Analyzer, log *slog.Logger) *Hub {
	if a == nil {
		a = &Engine{}
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Hub{analyzer: a, log: log, ctx: ctx, cancel: cancel, games: map[string]*session{}, maxGames: 500, maxLive: 64}
}

// Close stops every game in progress and waits for them.
func (h *Hub) Close() {
	h.cancel()
	h.wg.Wait()
}

type session struct {
	hub     *Hub
	id      string
	created time.Time
	req     NewGame

	mu      sync.Mutex
	game    *kalah.Game // owned by the referee while running
	view    *kalah.Game // a copy for readers, replaced after each change
	seats   [2]Seat
	tokens  [2]string
	millis  []int64
	version int
	changed chan struct{}
	running bool
	cancel  context.CancelFunc
	done    chan struct{}
	reason  string
	moves   [2]chan kalah.Move
	players [2]player.Player
}

func token() string {
	var b [12]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Create starts a game.
func (h *Hub) Create(ctx context.Context, req NewGame) (Created, error) {
	r := req.Rules
	if err := r.Validate(); err != nil {
		return Created{}, fmt.Errorf("%w: %w", ErrBadInput, err)
	}
	var g *kalah.Game
	var err error
	if req.Start != "" {
		p, perr := kalah.ParsePosition(req.Start)
		if perr != nil {
			return Created{}, fmt.Errorf("%w: %w", ErrBadInput, perr)
		}
		g, err = kalah.NewGameFrom(r, p)
	} else {
		g, err = kalah.NewGame(r)
	}
	if err != nil {
		return Created{}, fmt.Errorf("%w: %w", ErrBadInput, err)
	}
	for i, m := range req.Opening {
		if _, err := g.Play(m); err != nil {
			return Created{}, fmt.Errorf("%w: opening move %d: %w", ErrBadInput, i+1, err)
		}
	}
	if req.PerMoveMillis < 0 || req.PerMoveMillis > 3_600_000 || req.DelayMillis < 0 || req.DelayMillis > 60_000 {
		return Created{}, fmt.Errorf("%w: clock out of range", ErrBadInput)
	}
	if req.South != "" && req.South != Human && req.North != "" && req.North != Human && h.live() >= h.maxLive {
		return Created{}, ErrBusy
	}
	h.mu.Lock()
	h.seq++
	seed := req.Seed
	if seed == 0 {
		seed = h.seq
	}
	h.mu.Unlock()
	s := &session{hub: h, id: token()[:10], created: time.Now(), req: req, game: g, changed: make(chan struct{})}
	var out Created
	out.ID = s.id
	specs := [2]string{req.South, req.North}
	humans := 0
	for seat, spec := range specs {
		name := req.Names[seat]
		if spec == "" || spec == Human {
			humans++
			if name == "" {
				name = "Human"
			}
			s.seats[seat] = Seat{Name: name, Human: true}
			s.tokens[seat] = token()
			s.moves[seat] = make(chan kalah.Move, 1)
			s.players[seat] = &browserPlayer{s: s, seat: seat}
			continue
		}
		pseed := seed + uint64(seat)
		if req.PlayerSeeds != [2]uint64{} {
			pseed = req.PlayerSeeds[seat]
		}
		p, err := player.New(spec, player.Options{Rules: r, Seed: pseed})
		if err != nil {
			return Created{}, fmt.Errorf("%w: %s: %w", ErrBadInput, kalah.Side(seat), err)
		}
		if name == "" {
			name = spec
		}
		s.seats[seat] = Seat{Name: name, Spec: spec}
		s.players[seat] = p
	}
	// The creator holds the first human seat; a second human seat waits for
	// someone to join by the game's link.
	for seat := range s.seats {
		if s.seats[seat].Human {
			s.seats[seat].Joined = true
			out.Tokens[seat] = s.tokens[seat]
			break
		}
	}
	g.Players = [2]string{s.seats[0].Name, s.seats[1].Name}
	g.Tags = map[string]string{"Site": "kalah web"}
	if req.Tournament != "" {
		g.Tags["Event"] = req.Tournament
	}
	s.view = g.Clone()
	s.millis = make([]int64, g.Len()) // the opening took no one's time

	h.mu.Lock()
	h.games[s.id] = s
	h.order = append(h.order, s.id)
	h.prune()
	h.mu.Unlock()

	s.mu.Lock()
	s.saveLocked()
	s.startLocked()
	s.mu.Unlock()
	return out, nil
}

// live counts the games in progress between computer players.
func (h *Hub) live() int {
	h.mu.Lock()
	ss := make([]*session, 0, len(h.games))
	for _, s := range h.games {
		ss = append(ss, s)
	}
	h.mu.Unlock()
	n := 0
	for _, s := range ss {
		s.mu.Lock()
		if s.running && !s.seats[0].Human && !s.seats[1].Human {
			n++
		}
		s.mu.Unlock()
	}
	return n
}

// prune forgets the oldest finished games beyond maxGames. h.mu is held.
func (h *Hub) prune() {
	for len(h.order) > h.maxGames {
		dropped := false
		for i, id := range h.order {
			s := h.games[id]
			s.mu.Lock()
			live := s.running
			s.mu.Unlock()
			if !live {
				delete(h.games, id)
				h.order = slices.Delete(h.order, i, i+1)
				dropped = true
				break
			}
		}
		if !dropped {
			return
		}
	}
}

// startLocked runs the referee on the game from where it stands. s.mu is held.
func (s *session) startLocked() {
	if s.game.Over() {
		return
	}
	ctx, cancel := context.WithCancel(s.hub.ctx)
	s.cancel, s.done, s.running = cancel, make(chan struct{}), true
	ref := &referee.Referee{
		PerMove: time.Duration(s.req.PerMoveMillis) * time.Millisecond,
		Delay:   time.Duration(s.req.DelayMillis) * time.Millisecond,
		Grace:   250 * time.Millisecond,
		OnMove: func(g *kalah.Game, m referee.Move) error {
			s.mu.Lock()
			s.millis = append(s.millis, m.Elapsed.Milliseconds())
			s.publishLocked(g)
			s.mu.Unlock()
			return nil
		},
	}
	g, players, done := s.game, s.players, s.done
	s.hub.wg.Add(1)
	go func() {
		defer s.hub.wg.Done()
		defer close(done)
		out, err := ref.Play(ctx, g, players)
		s.mu.Lock()
		defer s.mu.Unlock()
		s.running = false
		if err == nil && out != nil && out.Reason != nil {
			s.reason = out.Reason.Error()
		}
		if err != nil && !errors.Is(err, context.Canceled) {
			s.hub.log.Warn("game stopped", "id", s.id, "err", err)
		}
		s.publishLocked(g)
	}()
}

// stopLocked stops the referee and waits for it; s.mu is held and is
// released while waiting.
func (s *session) stopLocked() {
	if !s.running {
		return
	}
	s.cancel()
	done := s.done
	s.mu.Unlock()
	<-done
	s.mu.Lock()
}

// publishLocked records a change of the game g for readers. s.mu is held.
func (s *session) publishLocked(g *kalah.Game) {
	s.view = g.Clone()
	if len(s.millis) > s.view.Len() {
		s.millis = s.millis[:s.view.Len()]
	}
	s.version++
	close(s.changed)
	s.changed = make(chan struct{})
	s.saveLocked()
}

func (h *Hub) session(id string) (*session, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	s, ok := h.games[id]
	if !ok {
		return nil, fmt.Errorf("%w: game %q", ErrNotFound, id)
	}
	return s, nil
}

// List returns every game, newest first.
func (h *Hub) List() []Summary {
	h.mu.Lock()
	ss := make([]*session, 0, len(h.order))
	for _, id := range h.order {
		ss = append(ss, h.games[id])
	}
	h.mu.Unlock()
	out := make([]Summary, 0, len(ss))
	for i := len(ss) - 1; i >= 0; i-- {
		s := ss[i]
		s.mu.Lock()
		g := s.view
		pos := g.Position()
		sc := [2]int{pos.Store(kalah.South), pos.Store(kalah.North)}
		out = append(out, Summary{ID: s.id, Players: g.Players, Rules: g.Rules().String(), Moves: g.Len(),
			Over: g.Over(), Live: s.running, Result: g.Result(), Score: sc, Tournament: s.req.Tournament, Created: s.created})
		s.mu.Unlock()
	}
	return out
}

// State returns a game's state.
func (h *Hub) State(id string) (State, error) {
	st, _, err := h.Watch(id)
	return st, err
}

// Watch returns a game's state and a channel closed when it next changes.
func (h *Hub) Watch(id string) (State, <-chan struct{}, error) {
	s, err := h.session(id)
	if err != nil {
		return State{}, nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stateLocked(), s.changed, nil
}

func pits(p kalah.Position) []int {
	n := p.Houses()
	out := make([]int, 2*n+2)
	for i := range out {
		out[i] = p.Pit(i)
	}
	return out
}

func (s *session) stateLocked() State {
	st := gameState(s.view, s.millis)
	st.ID, st.Version, st.Seats, st.Casual, st.PerMove = s.id, s.version, s.seats, s.req.Casual, s.req.PerMoveMillis
	st.Live, st.Tournament, st.Created, st.Reason = s.running, s.req.Tournament, s.created, s.reason
	return st
}

// gameState describes g for the page; millis holds each move's time.
func gameState(g *kalah.Game, millis []int64) State {
	r := g.Rules()
	pos, start := g.Position(), g.Start()
	st := State{
		Rules: r, RulesText: r.String(),
		Start: pits(start), StartText: start.String(), StartToMove: start.ToMove(),
		MoveText: g.MoveText(), Position: pos.String(), Pits: pits(pos), ToMove: pos.ToMove(),
		ToMoveSeat: g.Seat(pos.ToMove()), Swapped: g.Swapped(), Over: g.Over(), Result: g.Result(),
		Score: [2]int{pos.Store(kalah.South), pos.Store(kalah.North)}, Record: g.String(),
		Moves: []PlayedMove{}, Legal: []string{},
	}
	if g.Over() {
		st.Termination = g.Termination().String()
	}
	for _, m := range g.Legal() {
		st.Legal = append(st.Legal, m.String())
	}
	for i, m := range g.Moves() {
		pm := PlayedMove{Side: m.Side, Move: m.Move.String(), Extra: m.Effect&kalah.Extra != 0,
			Capture: m.Effect&kalah.Capture != 0, End: m.Effect&kalah.End != 0, Pits: pits(g.PositionAt(i + 1))}
		if i < len(millis) {
			pm.Millis = millis[i]
		}
		st.Moves = append(st.Moves, pm)
	}
	if g.Over() && len(st.Moves) > 0 {
		// A forfeit changes the board after the last move.
		st.Moves[len(st.Moves)-1].Pits = pits(pos)
	}
	return st
}

// Record returns a game's record with each move's time, and why it was
// forfeited if it was.
func (h *Hub) Record(id string) (kalah.Record, string, error) {
	s, err := h.session(id)
	if err != nil {
		return kalah.Record{}, "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rec := s.view.Record()
	for i := range rec.Moves {
		if i < len(s.millis) {
			rec.Moves[i].Millis = s.millis[i]
		}
	}
	return rec, s.reason, nil
}

// seatOf returns the seat a token moves.
func (s *session) seatOf(token string) (int, error) {
	for seat, t := range s.tokens {
		if t != "" && s.seats[seat].Joined && t == token {
			return seat, nil
		}
	}
	return 0, ErrForbidden
}

// Join takes the first human seat nobody holds yet.
func (h *Hub) Join(id string) (int, string, error) {
	s, err := h.session(id)
	if err != nil {
		return 0, "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for seat := range s.seats {
		if s.seats[seat].Human && !s.seats[seat].Joined {
			s.seats[seat].Joined = true
			s.publishLocked(s.view)
			return seat, s.tokens[seat], nil
		}
	}
	return 0, "", ErrNoSeat
}

// Move plays m for the seat the token holds, and returns the state once
// the referee has taken the move.
func (h *Hub) Move(ctx context.Context, id, token string, m kalah.Move) (State, error) {
	s, err := h.session(id)
	if err != nil {
		return State{}, err
	}
	s.mu.Lock()
	seat, err := s.seatOf(token)
	if err != nil {
		s.mu.Unlock()
		return State{}, err
	}
	switch {
	case s.view.Over():
		s.mu.Unlock()
		return State{}, kalah.ErrGameOver
	case s.view.Seat(s.view.ToMove()) != seat || !s.running:
		s.mu.Unlock()
		return State{}, ErrNotYours
	case !s.view.IsLegal(m):
		s.mu.Unlock()
		return State{}, fmt.Errorf("%w: %s in %s", kalah.ErrIllegalMove, m, s.view.Position())
	}
	changed := s.changed
	select {
	case s.moves[seat] <- m:
	default:
		s.mu.Unlock()
		return State{}, fmt.Errorf("%w: a move is already on its way", ErrNotYours)
	}
	s.mu.Unlock()
	select {
	case <-changed:
	case <-time.After(2 * time.Second):
	case <-ctx.Done():
	}
	return h.State(id)
}

// Undo takes back moves in a casual game with one human until it is the
// human's turn again, with at least one of the human's moves taken back.
func (h *Hub) Undo(id, token string) (State, error) {
	s, err := h.session(id)
	if err != nil {
		return State{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	seat, err := s.seatOf(token)
	if err != nil {
		return State{}, err
	}
	if !s.req.Casual || s.seats[0].Human == s.seats[1].Human {
		return State{}, fmt.Errorf("undo: %w against the computer", ErrNotCasual)
	}
	g := s.view
	if !slices.ContainsFunc(g.Moves(), func(p kalah.Played) bool { return g.Seat(p.Side) == seat || p.Move == kalah.Swap }) {
		return State{}, kalah.ErrNoUndo
	}
	s.stopLocked()
	g = s.game
	if g.Termination().IsForfeit() || g.Termination() == kalah.Adjudicated {
		g.Undo()
	}
	// Go back to the start of the human's last turn.
	poppedMine := false
	for {
		last, ok := g.Last()
		if !ok {
			break
		}
		if poppedMine && g.Seat(g.ToMove()) == seat && g.Seat(last.Side) != seat {
			break
		}
		if g.Seat(last.Side) == seat {
			poppedMine = true
		}
		if g.Undo() != nil {
			break
		}
	}
	s.reason = ""
	for i := range s.moves {
		if s.moves[i] != nil {
			select {
			case <-s.moves[i]:
			default:
			}
		}
	}
	s.publishLocked(g)
	s.startLocked()
	return s.stateLocked(), nil
}

// Hint returns the analyzer's best move for the token's seat in a casual
// game.
func (h *Hub) Hint(ctx context.Context, id, token string) (kalah.Move, error) {
	s, err := h.session(id)
	if err != nil {
		return kalah.NoMove, err
	}
	s.mu.Lock()
	seat, err := s.seatOf(token)
	casual := s.req.Casual
	g := s.view.Clone()
	s.mu.Unlock()
	if err != nil {
		return kalah.NoMove, err
	}
	if !casual {
		return kalah.NoMove, fmt.Errorf("hint: %w", ErrNotCasual)
	}
	if g.Over() {
		return kalah.NoMove, kalah.ErrGameOver
	}
	if g.Seat(g.ToMove()) != seat {
		return kalah.NoMove, ErrNotYours
	}
	return Hint(ctx, h.analyzer, g, 300*time.Millisecond)
}

// Resign ends the game with a loss for the token's seat.
func (h *Hub) Resign(id, token string) (State, error) {
	s, err := h.session(id)
	if err != nil {
		return State{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	seat, err := s.seatOf(token)
	if err != nil {
		return State{}, err
	}
	if s.view.Over() {
		return State{}, kalah.ErrGameOver
	}
	s.stopLocked()
	if s.game.Over() {
		return s.stateLocked(), nil
	}
	if err := s.game.Forfeit(s.game.PlayerSide(seat), kalah.Resign); err != nil {
		return State{}, err
	}
	s.reason = s.seats[seat].Name + " resigned"
	s.publishLocked(s.game)
	return s.stateLocked(), nil
}

// browserPlayer is a human seat: it waits for the move sent by the page.
type browserPlayer struct {
	s    *session
	seat int
}

// Move waits for the move the page sends for this seat.
func (b *browserPlayer) Move(ctx context.Context, g *kalah.Game, c player.Clock) (kalah.Move, error) {
	ch := b.s.moves[b.seat]
	select {
	case m := <-ch:
		return m, nil
	case <-ctx.Done():
		return kalah.NoMove, ctx.Err()
	}
}
