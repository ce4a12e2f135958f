package server

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"kalah"
	"kalah/internal/store"
	"kalah/player"
	"kalah/referee"
)

// Errors of people's games, matched with errors.Is.
var (
	// ErrNotCasual refuses a takeback or a hint in a game that is not
	// casual (or, for takebacks, not one person against the computer).
	ErrNotCasual = errors.New("only in casual games against the computer")
	// ErrNoSeat refuses to join a game with no open seat.
	ErrNoSeat = errors.New("no open seat")
	// ErrTooMany refuses a game to someone with as many unfinished games
	// as the server allows (Config.MaxOpenGames).
	ErrTooMany = errors.New("too many unfinished games")
	// ErrNoHints is returned when the server has no analyser for hints.
	ErrNoHints = errors.New("hints are not available on this server")
)

// Tags under which a game started by StartGame keeps its settings, so a
// restarted server plays it on as it was.
const (
	tagPerMove = "PerMove" // milliseconds a move
	tagDelay   = "Delay"   // milliseconds before each move
	tagCasual  = "Casual"  // "yes": takebacks and hints
	tagClock   = "Clock"   // milliseconds each player has for the game
	tagInc     = "Increment"
	// ImportTag holds the id a game had where it was imported from (the
	// web page's own games of older releases), so old links still find it.
	ImportTag = "WebID"
	// TournamentTag marks a game one of the page's tournaments plays: left
	// unfinished by a restart, it is abandoned, for its tournament plays
	// it again.
	TournamentTag = "Tournament"
	// ReasonTag says why a game was forfeited (a timeout, a crash, a
	// resignation), in words.
	ReasonTag = "Reason"
	// RematchTag names, on a finished game, the game that followed it
	// (Rematch); RematchOfTag, on that game, the one before.
	RematchTag   = "Rematch"
	RematchOfTag = "RematchOf"
)

// Bounds of a game's clock asked for over the network.
const (
	maxPerMove = time.Hour
	maxDelay   = time.Minute
)

// GameRequest asks StartGame for a game.
type GameRequest struct {
	Rules kalah.Rules `json:"rules"`
	// South and North are player specs (see kalah players) or "human" for
	// a person who moves through Move.
	South string `json:"south"`
	North string `json:"north"`
	// Start is a set-up position in kalah notation; empty means the rules'
	// start.
	Start string `json:"start,omitempty"`
	// Opening holds moves played before the players take over.
	Opening []kalah.Move `json:"opening,omitempty"`
	// Names label the seats (0: South); empty means the spec, or "human".
	Names [2]string `json:"names,omitzero"`
	// PerMoveMS limits each move, DelayMS pauses before each so people can
	// follow; zero means the server's clock, or for a game with a person
	// no limit.
	PerMoveMS int64 `json:"per_move_ms,omitempty"`
	DelayMS   int64 `json:"delay_ms,omitempty"`
	// ClockMS, if set, is each player's time for the whole game, with
	// IncrementMS added after each of their moves (a Fischer clock); a
	// player whose time runs out loses.
	ClockMS     int64 `json:"clock_ms,omitempty"`
	IncrementMS int64 `json:"increment_ms,omitempty"`
	// Casual games of one person against the computer allow takebacks
	// and hints.
	Casual bool `json:"casual,omitempty"`
	// Invite leaves the second human seat open, for someone to take with
	// Join (by the game's link), instead of giving both tokens.
	Invite bool `json:"invite,omitempty"`
	// Seeds, if not zero, seed each computer seat's player.
	Seeds [2]uint64 `json:"seeds,omitzero"`
	// Event names the tournament the game belongs to, if any.
	Event string `json:"event,omitempty"`
	// Tags are stored with the game (its record's tags).
	Tags map[string]string `json:"-"`
	// Rated games count on the rating ladders, when both seats have an
	// account (people signed in, bots with their token) and the game is
	// not casual.
	Rated bool `json:"rated,omitempty"`
	// openSeat, if 0 or 1, is the human seat left open (a rematch's).
	openSeat int
	// accounts are the seats' accounts, by seat, as the server knows them
	// (the person signed in who starts the game, the two of a seek).
	accounts [2]string
}

// Started is a game StartGame began.
type Started struct {
	ID int64 `json:"id"`
	// Tokens holds, for each human seat (0: South), the secret that Move
	// requires; empty for computer seats and open seats.
	Tokens [2]string `json:"tokens"`
}

// newToken returns a fresh seat secret and its stored hash.
func newToken() (token, hash string) {
	b := make([]byte, 16)
	rand.Read(b)
	token = hex.EncodeToString(b)
	return token, tokenHash(token)
}

func tokenHash(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// StartGame starts a game between two server-side players or people.
func (s *Server) StartGame(ctx context.Context, req GameRequest) (Started, error) {
	r := req.Rules
	if r.Houses == 0 && r.Seeds == 0 {
		r = s.cfg.Rules // none given
	}
	if err := r.Validate(); err != nil {
		return Started{}, fmt.Errorf("%w: %w", ErrBadRequest, err)
	}
	g, err := kalah.NewGame(r)
	if req.Start != "" {
		p, perr := kalah.ParsePosition(req.Start)
		if perr != nil {
			return Started{}, fmt.Errorf("%w: start: %w", ErrBadRequest, perr)
		}
		g, err = kalah.NewGameFrom(r, p)
	}
	if err != nil {
		return Started{}, fmt.Errorf("%w: %w", ErrBadRequest, err)
	}
	for i, m := range req.Opening {
		if _, err := g.Play(m); err != nil {
			return Started{}, fmt.Errorf("%w: opening move %d: %w", ErrBadRequest, i+1, err)
		}
	}
	if g.Over() {
		return Started{}, fmt.Errorf("%w: the game is over before it starts", ErrBadRequest)
	}
	for k, v := range req.Tags {
		if len(k) > 40 || len(v) > 200 || len(req.Tags) > 8 {
			return Started{}, fmt.Errorf("%w: tags too long or too many", ErrBadRequest)
		}
	}
	perMove := time.Duration(req.PerMoveMS) * time.Millisecond
	delay := time.Duration(req.DelayMS) * time.Millisecond
	if perMove < 0 || perMove > maxPerMove || delay < 0 || delay > maxDelay {
		return Started{}, fmt.Errorf("%w: per move %v (at most %v), delay %v (at most %v)", ErrBadRequest, perMove, maxPerMove, delay, maxDelay)
	}
	clock := time.Duration(req.ClockMS) * time.Millisecond
	inc := time.Duration(req.IncrementMS) * time.Millisecond
	if clock < 0 || clock > 3*time.Hour || inc < 0 || inc > time.Minute || (inc > 0 && clock == 0) {
		return Started{}, fmt.Errorf("%w: a clock of %v with %v a move: want at most 3 hours and a minute a move", ErrBadRequest, clock, inc)
	}
	var es [2]*entrant
	var out Started
	humans := 0
	for i, spec := range []string{req.South, req.North} {
		spec = strings.TrimSpace(spec)
		e := &entrant{result: make(chan error, 1)}
		name := strings.TrimSpace(req.Names[i])
		if len(name) > 40 {
			return Started{}, fmt.Errorf("%w: name longer than 40 bytes", ErrBadRequest)
		}
		if strings.EqualFold(spec, "human") || spec == "" {
			humans++
			h := &humanSeat{}
			if (humans == 2 && req.Invite && req.openSeat == 0) || req.openSeat == i+1 {
				h.open = true
			} else {
				out.Tokens[i], h.hash = newToken()
			}
			if name == "" {
				name = "human"
			}
			e.p, e.seat = h, store.Seat{Name: name, Kind: "human", TokenHash: h.hash, Open: h.open, Account: req.accounts[i]}
		} else {
			info, _, err := player.Lookup(spec)
			if err != nil {
				return Started{}, fmt.Errorf("%w: %w", ErrBadRequest, err)
			}
			if info.Raw && !s.cfg.AllowExec {
				return Started{}, fmt.Errorf("%w: %s players run programs on the server; start the server with exec allowed", ErrForbidden, info.Name)
			}
			if err := s.checkLimits(spec); err != nil {
				return Started{}, fmt.Errorf("%w: %w", ErrForbidden, err)
			}
			seed := req.Seeds[i]
			if seed == 0 {
				seed = uint64(time.Now().UnixNano()) + uint64(i)
			}
			p, err := player.New(spec, player.Options{Rules: r, Seed: seed})
			if err != nil {
				return Started{}, fmt.Errorf("%w: %w", ErrBadRequest, err)
			}
			p = s.thinkLimit(p)
			if name == "" {
				name = spec
			}
			e.p, e.seat = p, store.Seat{Name: name, Kind: "spec", Spec: spec}
		}
		es[i] = e
	}
	su := setup{start: req.Start, casual: req.Casual && humans > 0, tags: map[string]string{}, rated: req.Rated && !req.Casual}
	for k, v := range req.Tags {
		su.tags[k] = v
	}
	if su.casual {
		su.tags[tagCasual] = "yes"
	}
	if req.Event != "" {
		su.tags["Event"] = req.Event
	}
	if perMove > 0 || delay > 0 || humans > 0 || clock > 0 {
		su.ref = &referee.Referee{PerMove: perMove, Delay: delay, Grace: 250 * time.Millisecond, Budget: clock, Increment: inc}
		if perMove == 0 && humans == 0 && clock == 0 {
			su.ref.PerMove = s.cfg.PerMove
		}
		su.tags[tagPerMove] = strconv.FormatInt(su.ref.PerMove.Milliseconds(), 10)
		su.tags[tagDelay] = strconv.FormatInt(delay.Milliseconds(), 10)
		if clock > 0 {
			su.tags[tagClock] = strconv.FormatInt(clock.Milliseconds(), 10)
			su.tags[tagInc] = strconv.FormatInt(inc.Milliseconds(), 10)
		}
	}
	plies := g.Len() // before begin: the game's own goroutine plays g from then on
	id, err := s.begin(g, es, su)
	if err != nil {
		return Started{}, err
	}
	out.ID = id
	if humans > 0 {
		s.abortIfIdle(id, plies)
	}
	return out, nil
}

// abortIfIdle aborts live game id if, AbortAfter from now, it still has
// only the plies it started with.
func (s *Server) abortIfIdle(id int64, plies int) {
	time.AfterFunc(s.cfg.AbortAfter, func() {
		lg, err := s.liveGame(id)
		if err != nil {
			return
		}
		lg.mu.Lock()
		idle := lg.snap.Len() == plies && !lg.over
		lg.mu.Unlock()
		if idle {
			ctx, cancel := context.WithTimeout(s.ctx, 10*time.Second)
			defer cancel()
			lg.interrupt(ctx, func(g *kalah.Game) error {
				if g.Len() != plies {
					return nil // a move came meanwhile
				}
				lg.reason = fmt.Sprintf("Aborted: no move in the first %v", s.cfg.AbortAfter.Round(time.Second))
				return g.Adjudicate(kalah.Draw)
			})
		}
	})
}

// Claim ends a game between people without a clock in favour of the
// person whose token is given, when the opponent, to move, has not moved
// for Config.ClaimAfter.
func (s *Server) Claim(ctx context.Context, id int64, token string) error {
	lg, err := s.liveGame(id)
	if err != nil {
		return err
	}
	_, seat, err := lg.humanOf(token)
	if err != nil {
		return err
	}
	lg.mu.Lock()
	g, turnAt, opp := lg.snap, lg.turnAt, lg.humans[1-seat]
	clocked := lg.ref != nil && lg.ref.Budget > 0
	name := lg.seats[1-seat].Name
	lg.mu.Unlock()
	switch {
	case opp == nil || clocked:
		return fmt.Errorf("%w: a win is claimed only from a person in a game without a clock (a clock ends it by itself)", ErrNotCasual)
	case g.Seat(g.ToMove()) == seat:
		return fmt.Errorf("%w: it is your turn", ErrNotYourTurn)
	case time.Since(turnAt) < s.cfg.ClaimAfter:
		return fmt.Errorf("%w: %s has had %v to move; a win may be claimed after %v", ErrNotYourTurn, name, time.Since(turnAt).Round(time.Second), s.cfg.ClaimAfter)
	}
	return lg.interrupt(ctx, func(g *kalah.Game) error {
		lg.reason = fmt.Sprintf("%s did not move for %v; the win was claimed", name, s.cfg.ClaimAfter)
		return g.Forfeit(g.PlayerSide(1-seat), kalah.Timeout)
	})
}

// setupOf rebuilds a stored game's clock and casualness from its tags.
func (s *Server) setupOf(tags map[string]string) setup {
	su := setup{casual: tags[tagCasual] == "yes"}
	if pm, ok := tags[tagPerMove]; ok {
		ms, _ := strconv.ParseInt(pm, 10, 64)
		dl, _ := strconv.ParseInt(tags[tagDelay], 10, 64)
		cl, _ := strconv.ParseInt(tags[tagClock], 10, 64)
		inc, _ := strconv.ParseInt(tags[tagInc], 10, 64)
		su.ref = &referee.Referee{PerMove: time.Duration(ms) * time.Millisecond, Delay: time.Duration(dl) * time.Millisecond, Grace: 250 * time.Millisecond,
			Budget: time.Duration(cl) * time.Millisecond, Increment: time.Duration(inc) * time.Millisecond}
	}
	return su
}

// humanSeat is a person moving through the API with a token.
type humanSeat struct {
	mu    sync.Mutex
	hash  string          // of the token that moves the seat
	open  bool            // nobody has taken the seat yet
	moves chan kalah.Move // non-nil while it is this seat's turn
	game  *kalah.Game     // the position to move in
	// ack, while a move given is on its way, receives nil once the move
	// is stored, or why it was not played.
	ack chan error
}

// settle tells the move on its way, if any, how it went.
func (h *humanSeat) settle(err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.ack != nil {
		h.ack <- err
		h.ack = nil
	}
}

// settleHumans settles the moves on their way in lg; lg.mu is held.
func (lg *liveGame) settleHumansLocked(err error) {
	for _, h := range lg.humans {
		if h != nil {
			h.settle(err)
		}
	}
}

func (h *humanSeat) holds(token string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return token != "" && !h.open && subtle.ConstantTimeCompare([]byte(h.hash), []byte(tokenHash(token))) == 1
}

func (h *humanSeat) Move(ctx context.Context, g *kalah.Game, c player.Clock) (kalah.Move, error) {
	ch := make(chan kalah.Move, 1)
	h.mu.Lock()
	h.moves, h.game = ch, g
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		h.moves, h.game = nil, nil
		h.mu.Unlock()
	}()
	select {
	case m := <-ch:
		if m == kalah.NoMove {
			return m, player.ErrResigned
		}
		return m, nil
	case <-ctx.Done():
		return kalah.NoMove, ctx.Err()
	}
}

// give hands the referee the seat's move (NoMove resigns) and returns a
// channel that says once it is stored, or why it was not played.
func (h *humanSeat) give(m kalah.Move) (<-chan error, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.moves == nil {
		return nil, ErrNotYourTurn
	}
	// A person's slip is refused, not forfeited.
	if m != kalah.NoMove && !h.game.IsLegal(m) {
		return nil, fmt.Errorf("%w: %s in %s", kalah.ErrIllegalMove, m, h.game.Position())
	}
	h.ack = make(chan error, 1)
	h.moves <- m
	h.moves = nil
	return h.ack, nil
}

// errInterrupted is a person's move that a takeback or a resignation
// overtook.
var errInterrupted = fmt.Errorf("%w: the game changed before the move was played", ErrNotYourTurn)

// played waits until a move given is stored.
func played(ctx context.Context, ack <-chan error) error {
	select {
	case err := <-ack:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// humanOf returns the human seat a token moves, and its seat number.
func (lg *liveGame) humanOf(token string) (*humanSeat, int, error) {
	lg.mu.Lock()
	defer lg.mu.Unlock()
	for i, h := range lg.humans {
		if h != nil && h.holds(token) {
			return h, i, nil
		}
	}
	return nil, 0, fmt.Errorf("%w: no seat with that token in game %d", ErrForbidden, lg.id)
}

// liveGame returns live game id; for a game that is over, the error says
// so (kalah.ErrGameOver).
func (s *Server) liveGame(id int64) (*liveGame, error) {
	s.mu.Lock()
	lg := s.live[id]
	s.mu.Unlock()
	if lg == nil {
		ctx, cancel := context.WithTimeout(s.ctx, 5*time.Second)
		defer cancel()
		if sg, err := s.st.Game(ctx, id); err == nil && sg.Status == store.Finished {
			return nil, fmt.Errorf("game %d: %w", id, kalah.ErrGameOver)
		}
		return nil, fmt.Errorf("live game %d: %w", id, ErrNotFound)
	}
	return lg, nil
}

// Join takes the open human seat of game id (a game started with Invite)
// and returns the seat and the token that moves it.
func (s *Server) Join(ctx context.Context, id int64) (int, string, error) {
	lg, err := s.liveGame(id)
	if err != nil {
		return 0, "", err
	}
	lg.mu.Lock()
	defer lg.mu.Unlock()
	for i, h := range lg.humans {
		if h == nil {
			continue
		}
		h.mu.Lock()
		if !h.open {
			h.mu.Unlock()
			continue
		}
		token, hash := newToken()
		seats := lg.seats
		seats[i].TokenHash, seats[i].Open = hash, false
		if err := s.st.SetSeats(ctx, id, seats); err != nil {
			h.mu.Unlock()
			return 0, "", err
		}
		h.hash, h.open = hash, false
		h.mu.Unlock()
		lg.seats = seats
		lg.publishLocked(Event{Game: id, Kind: "join", Seat: i, Ply: lg.snap.Len(), Position: lg.snap.Position().String()})
		return i, token, nil
	}
	return 0, "", fmt.Errorf("game %d: %w", id, ErrNoSeat)
}

// request is something done to a game between two runs of its referee.
type request struct {
	do   func(g *kalah.Game) error
	done chan error
}

// interrupt stops the referee of lg, has do carried out on the game by the
// game's own goroutine, and waits for it.
func (lg *liveGame) interrupt(ctx context.Context, do func(g *kalah.Game) error) error {
	lg.mu.Lock()
	if lg.over || lg.snap.Over() {
		lg.mu.Unlock()
		return kalah.ErrGameOver
	}
	if lg.request != nil {
		lg.mu.Unlock()
		return fmt.Errorf("%w: the game is busy; try again", ErrNotYourTurn)
	}
	r := &request{do: do, done: make(chan error, 1)}
	lg.request = r
	if lg.stopPlay != nil {
		lg.stopPlay()
	} // else the referee has not started yet: the game's goroutine sees it first
	lg.mu.Unlock()
	select {
	case err := <-r.done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	case <-lg.finished:
		select {
		case err := <-r.done:
			return err
		default:
			return kalah.ErrGameOver
		}
	}
}

// play runs the referee on g until the game ends or ctx does, carrying out
// the requests (takebacks, resignations) that interrupt it.
func (s *Server) play(ctx context.Context, lg *liveGame, ref *referee.Referee, g *kalah.Game, players [2]player.Player) error {
	for {
		lg.mu.Lock()
		r := lg.request
		lg.request = nil
		var pctx context.Context
		var stop context.CancelFunc
		if r == nil {
			pctx, stop = context.WithCancel(ctx)
			lg.stopPlay = stop
		}
		lg.mu.Unlock()
		if r == nil {
			_, err := ref.Play(pctx, g, players)
			stop()
			lg.mu.Lock()
			lg.stopPlay = nil
			r = lg.request
			lg.request = nil
			if g.Over() {
				lg.settleHumansLocked(nil)
			} else {
				lg.settleHumansLocked(errInterrupted)
			}
			lg.mu.Unlock()
			if r == nil {
				return err
			}
			if err == nil || ctx.Err() != nil {
				// The game ended, or the server stops, before the request.
				r.done <- kalah.ErrGameOver
				return err
			}
		}
		if g.Over() {
			r.done <- kalah.ErrGameOver
			return nil
		}
		rerr := r.do(g)
		if rerr == nil && g.Over() {
			// A resignation: stored and told as the referee would, before
			// its requester hears that it is done.
			err := ref.OnEnd(g, &referee.Outcome{Game: g, Reason: requestReason(lg.reason)})
			r.done <- err
			return err
		}
		r.done <- rerr
		if ref.Budget > 0 && !g.Over() {
			// A takeback: the clocks stand as the moves left say.
			lg.mu.Lock()
			ref.Spent = spent(g, lg.millis, ref.Budget, ref.Increment)
			lg.mu.Unlock()
		}
	}
}

// TakeBack takes back moves in a casual game of one person against the
// computer: the person's last move at least, and everything after it, so
// it is the person's turn again. The moves taken back stay in the record,
// under its Takebacks tag.
func (s *Server) TakeBack(ctx context.Context, id int64, token string) error {
	lg, err := s.liveGame(id)
	if err != nil {
		return err
	}
	_, seat, err := lg.humanOf(token)
	if err != nil {
		return err
	}
	lg.mu.Lock()
	casual, people := lg.casual, 0
	for _, h := range lg.humans {
		if h != nil {
			people++
		}
	}
	if casual && people == 2 {
		// Between people a takeback is asked for, and the opponent's
		// takeback (or accept) grants it.
		asked := lg.takebackAsk
		if asked != 1-seat {
			if !slices.ContainsFunc(lg.snap.Moves(), func(p kalah.Played) bool { return lg.snap.Seat(p.Side) == seat }) {
				lg.mu.Unlock()
				return kalah.ErrNoUndo
			}
			lg.takebackAsk = seat
			lg.publishLocked(Event{Game: id, Kind: "takeback-ask", Seat: seat, Ply: lg.snap.Len(), Position: lg.snap.Position().String()})
			lg.mu.Unlock()
			return nil
		}
		seat = asked // granted: the asker's moves go back
		lg.takebackAsk = -1
	}
	lg.mu.Unlock()
	if !casual || people == 0 {
		return fmt.Errorf("takeback: %w", ErrNotCasual)
	}
	return lg.interrupt(ctx, func(g *kalah.Game) error {
		if !slices.ContainsFunc(g.Moves(), func(p kalah.Played) bool { return g.Seat(p.Side) == seat || p.Move == kalah.Swap }) {
			return kalah.ErrNoUndo
		}
		// Undo on a copy first: the game changes only once the store has.
		c := g.Clone()
		var taken []string
		poppedMine := false
		for {
			last, ok := c.Last()
			if !ok {
				break
			}
			if poppedMine && c.Seat(c.ToMove()) == seat && c.Seat(last.Side) != seat {
				break
			}
			if c.Seat(last.Side) == seat {
				poppedMine = true
			}
			if c.Undo() != nil {
				break
			}
			taken = append(taken, last.Move.String())
		}
		slices.Reverse(taken)
		if err := s.st.TakeBack(context.WithoutCancel(ctx), id, c.Len(), strings.Join(taken, " ")); err != nil {
			return err
		}
		for g.Len() > c.Len() {
			if err := g.Undo(); err != nil {
				return err
			}
		}
		lg.mu.Lock()
		lg.snap = g.Clone()
		if len(lg.millis) > g.Len() {
			lg.millis = lg.millis[:g.Len()]
		}
		lg.publishLocked(Event{Game: id, Kind: "takeback", Ply: g.Len(), Position: g.Position().String()})
		lg.mu.Unlock()
		return nil
	})
}

// Resign ends game id with a loss for the seat the token moves, whether or
// not it is that seat's turn.
func (s *Server) Resign(ctx context.Context, id int64, token string) error {
	lg, err := s.liveGame(id)
	if err != nil {
		return err
	}
	h, seat, err := lg.humanOf(token)
	if err != nil {
		return err
	}
	if ack, err := h.give(kalah.NoMove); err == nil {
		return played(ctx, ack) // it was the seat's turn: the referee records it
	}
	return lg.interrupt(ctx, func(g *kalah.Game) error {
		lg.mu.Lock()
		name := lg.seats[seat].Name
		lg.mu.Unlock()
		lg.reason = name + " resigned"
		return g.Forfeit(g.PlayerSide(seat), kalah.Resign)
	})
}

// Hint returns the move the server's analyser (Config.Hint) suggests to
// the seat the token moves, in a casual game, when it is that seat's turn.
func (s *Server) Hint(ctx context.Context, id int64, token string) (kalah.Move, error) {
	lg, err := s.liveGame(id)
	if err != nil {
		return kalah.NoMove, err
	}
	_, seat, err := lg.humanOf(token)
	if err != nil {
		return kalah.NoMove, err
	}
	lg.mu.Lock()
	casual, g := lg.casual, lg.snap.Clone()
	casual = casual && (lg.humans[0] == nil || lg.humans[1] == nil) // no hints between people
	lg.mu.Unlock()
	switch {
	case !casual:
		return kalah.NoMove, fmt.Errorf("hint: %w", ErrNotCasual)
	case g.Over():
		return kalah.NoMove, kalah.ErrGameOver
	case g.Seat(g.ToMove()) != seat:
		return kalah.NoMove, ErrNotYourTurn
	case s.cfg.Hint == nil:
		return kalah.NoMove, ErrNoHints
	}
	return s.cfg.Hint(ctx, g)
}

// ImportedGame returns the id of the game imported under webID (ImportTag).
func (s *Server) ImportedGame(ctx context.Context, webID string) (int64, error) {
	id, err := s.st.GameByTag(ctx, ImportTag, webID)
	if errors.Is(err, store.ErrNotFound) {
		return 0, fmt.Errorf("game %q: %w", webID, ErrNotFound)
	}
	return id, err
}

// Imported is a game played elsewhere (the web page's own games of older
// releases) to be kept in the server's store.
type Imported struct {
	// Seats are the players; a "human" seat's token, in Tokens, moves it
	// again here (an empty token: a seat nobody took).
	Seats  [2]store.Seat
	Tokens [2]string
	// Record holds the rules, start, moves (with their times) and, when
	// the game is over, its result.
	Record kalah.Record
	// Settings of a game to go on: its clock and casualness.
	PerMove, Delay time.Duration
	Casual         bool
	// Tags are stored with the game, ImportTag among them.
	Tags map[string]string
}

// ImportGame stores a game played elsewhere; one not over goes on here at
// once, as a game resumed after a restart does.
func (s *Server) ImportGame(ctx context.Context, im Imported) (int64, error) {
	g, err := store.Replay(im.Record)
	if err != nil {
		return 0, fmt.Errorf("%w: %w", ErrBadRequest, err)
	}
	over := im.Record.Result != kalah.Ongoing
	seats := im.Seats
	for i := range seats {
		if seats[i].Kind == "human" {
			seats[i].TokenHash, seats[i].Open = "", im.Tokens[i] == ""
			if im.Tokens[i] != "" {
				seats[i].TokenHash = tokenHash(im.Tokens[i])
			}
		}
	}
	tags := map[string]string{}
	for k, v := range im.Tags {
		tags[k] = v
	}
	if !over {
		tags[tagPerMove] = strconv.FormatInt(im.PerMove.Milliseconds(), 10)
		tags[tagDelay] = strconv.FormatInt(im.Delay.Milliseconds(), 10)
		if im.Casual {
			tags[tagCasual] = "yes"
		}
	}
	id, err := s.st.CreateGame(ctx, store.NewGame{Rules: g.Rules(), Seats: seats, Start: im.Record.Start, Tags: tags})
	if err != nil {
		return 0, err
	}
	for i, m := range im.Record.Moves {
		if err := s.st.AddMove(ctx, id, i, m); err != nil {
			return 0, err
		}
	}
	if over {
		return id, s.st.FinishGame(ctx, id, im.Record)
	}
	sg, err := s.st.Game(ctx, id)
	if err != nil {
		return 0, err
	}
	return id, s.resumeGame(sg)
}

// Abandon ends live game id as an adjudicated draw that counts for no one,
// with reason given; a tournament that stops abandons the game it was
// following, which it will play again.
func (s *Server) Abandon(ctx context.Context, id int64, reason string) error {
	lg, err := s.liveGame(id)
	if err != nil {
		return err
	}
	return lg.interrupt(ctx, func(g *kalah.Game) error {
		lg.reason = reason
		return g.Adjudicate(kalah.Draw)
	})
}

// Rematch starts, for the person whose token moved a seat of finished game
// id, the game after it: the same rules, start, clock and casualness, the
// sides exchanged. A computer keeps its player; the other person's seat is
// left open for them, and the finished game's RematchTag names the new
// one, so their page finds it. When the rematch exists already, a person
// of the old game takes its open seat instead (both may ask at once).
func (s *Server) Rematch(ctx context.Context, id int64, token string) (Started, error) {
	s.rematchMu.Lock()
	defer s.rematchMu.Unlock()
	sg, err := s.st.Game(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return Started{}, fmt.Errorf("game %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return Started{}, err
	}
	if sg.Status != store.Finished {
		return Started{}, fmt.Errorf("%w: game %d is not over", ErrNotYourTurn, id)
	}
	seat := -1
	for i, st := range sg.Seats {
		if st.Kind == "human" && token != "" && st.TokenHash != "" &&
			subtle.ConstantTimeCompare([]byte(st.TokenHash), []byte(tokenHash(token))) == 1 {
			seat = i
		}
	}
	if seat < 0 {
		return Started{}, fmt.Errorf("%w: no seat with that token in game %d", ErrForbidden, id)
	}
	if next := sg.Record.Tags[RematchTag]; next != "" {
		n, _ := strconv.ParseInt(next, 10, 64)
		at, tok, err := s.Join(ctx, n)
		if err != nil {
			return Started{}, fmt.Errorf("the rematch, game %d: %w", n, err)
		}
		out := Started{ID: n}
		out.Tokens[at] = tok
		return out, nil
	}
	req := GameRequest{Rules: sg.Record.Rules, Start: sg.Record.Start, openSeat: -1, Tags: map[string]string{RematchOfTag: strconv.FormatInt(id, 10)}}
	su := s.setupOf(sg.Record.Tags)
	req.Casual = su.casual
	if su.ref != nil {
		req.PerMoveMS, req.DelayMS = su.ref.PerMove.Milliseconds(), su.ref.Delay.Milliseconds()
		req.ClockMS, req.IncrementMS = su.ref.Budget.Milliseconds(), su.ref.Increment.Milliseconds()
	}
	specs := [2]*string{&req.South, &req.North}
	for i, st := range sg.Seats {
		to := 1 - i // sides exchanged
		req.Names[to] = st.Name
		switch st.Kind {
		case "human":
			*specs[to] = "human"
			if i != seat {
				req.openSeat = to + 1
			}
		case "spec":
			*specs[to] = st.Spec
		default:
			return Started{}, fmt.Errorf("%w: a rematch is for games on this server's page and API; bots ask for theirs by playing again", ErrBadRequest)
		}
	}
	if req.openSeat < 0 {
		req.openSeat = 0
	}
	out, err := s.StartGame(ctx, req)
	if err != nil {
		return Started{}, err
	}
	if err := s.st.SetTag(ctx, id, RematchTag, strconv.FormatInt(out.ID, 10)); err != nil {
		return Started{}, err
	}
	return out, nil
}

// requestReason is why a request (a resignation, a claim, an abort) ended
// a game, already in words.
type requestReason string

func (r requestReason) Error() string { return string(r) }

// DeclineTakeBack refuses the opponent's request to take back a move.
func (s *Server) DeclineTakeBack(ctx context.Context, id int64, token string) error {
	lg, err := s.liveGame(id)
	if err != nil {
		return err
	}
	_, seat, err := lg.humanOf(token)
	if err != nil {
		return err
	}
	lg.mu.Lock()
	defer lg.mu.Unlock()
	if lg.takebackAsk != 1-seat {
		return fmt.Errorf("%w: no takeback asked of you", ErrNotYourTurn)
	}
	lg.takebackAsk = -1
	lg.publishLocked(Event{Game: id, Kind: "takeback-declined", Seat: seat, Ply: lg.snap.Len(), Position: lg.snap.Position().String()})
	return nil
}
