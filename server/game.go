package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"kalah"
	"kalah/internal/store"
	"kalah/player"
	"kalah/protocol/line"
	"kalah/referee"
)

// Event is something that happened in a game, for subscribers.
type Event struct {
	Game int64  `json:"game"`
	Kind string `json:"kind"` // "move", "away", "back" or "end"
	// Move is the move made, for "move" (Ply counts from 0).
	Ply  int               `json:"ply"`
	Move *kalah.RecordMove `json:"move,omitempty"`
	// Position is the position after the event, in kalah notation.
	Position string `json:"position"`
	// Seat is the seat (0: started South) that went away or came back.
	Seat int `json:"seat"`
	// Result, Termination and Score are set for "end".
	Result      kalah.Result      `json:"result"`
	Termination kalah.Termination `json:"termination"`
	Score       kalah.Score       `json:"score"`
}

// liveGame is a game being played.
type liveGame struct {
	id      int64
	seats   [2]store.Seat
	rules   kalah.Rules
	resumed bool // restarted from the store: wait for the bots first

	mu     sync.Mutex
	snap   *kalah.Game // a copy after the last move
	millis []int64     // each move's time
	turnAt time.Time   // when the player to move was asked
	lastAt time.Time   // when the last move arrived
	bots   [2]*botSeat
	humans [2]*humanSeat
	tags   map[string]string // stored with the game
	reason string            // why a request ended the game (a resignation)
	// takebackAsk is the seat that asked the other person to take back a
	// move (casual games between people); -1: none.
	takebackAsk int
	created     time.Time
	// casual games allow takebacks and hints (people against the computer).
	casual bool
	// stopPlay interrupts the referee for a request (a takeback, a
	// resignation out of turn), which the game's goroutine carries out
	// before it plays on; nil while no referee runs.
	stopPlay context.CancelFunc
	request  *request
	watchers map[*conn]struct{}
	subs     map[chan Event]struct{}
	over     bool
	cancel   context.CancelFunc
	finished chan struct{} // closed once the game is stored and told
	// ref, if set, is the game's own clock instead of the server's (an
	// arranged game); outcome is set once the game is over and stored.
	ref     *referee.Referee
	outcome *referee.Outcome
}

func (s *Server) newLiveGame(id int64, g *kalah.Game, seats [2]store.Seat) *liveGame {
	g.Players = [2]string{seats[0].Name, seats[1].Name}
	lg := &liveGame{id: id, seats: seats, rules: g.Rules(), snap: g.Clone(), watchers: map[*conn]struct{}{}, subs: map[chan Event]struct{}{}, finished: make(chan struct{}), created: time.Now(), takebackAsk: -1}
	lg.millis = make([]int64, g.Len())
	s.mu.Lock()
	s.live[id] = lg
	s.mu.Unlock()
	return lg
}

// runGame plays g in the background, storing and broadcasting each move.
func (s *Server) runGame(lg *liveGame, g *kalah.Game, players [2]player.Player) {
	ctx, cancel := context.WithCancel(s.ctx)
	lg.mu.Lock()
	lg.cancel = cancel
	lg.turnAt = time.Now()
	lg.mu.Unlock()
	ref := s.clockOf(lg)
	// A resumed game's clocks go on from where they were; an arranged
	// game's opening is free.
	if ref.Budget > 0 && g.Len() > 0 && (lg.ref == nil || lg.tags[tagClock] != "") {
		ref.Spent = spent(g, lg.millis, ref.Budget, ref.Increment)
	}
	var pending []<-chan error // moves being committed, with AsyncMoves
	ref.OnMove = func(g *kalah.Game, m referee.Move) error {
		rm := kalah.RecordMove{Side: m.Side, House: int(m.Move), Millis: m.Elapsed.Milliseconds()}
		if m.Move == kalah.Swap {
			rm.House, rm.Swap = 0, true
		}
		done := s.st.AddMoveAsync(context.WithoutCancel(ctx), lg.id, g.Len()-1, rm)
		if !s.cfg.AsyncMoves {
			if err := <-done; err != nil {
				return err
			}
		} else {
			pending = append(pending, done)
		collect:
			for len(pending) > 0 {
				select {
				case err := <-pending[0]:
					if err != nil {
						return err
					}
					pending = pending[1:]
				default:
					break collect
				}
			}
		}
		lg.moved(g, rm)
		return nil
	}
	ref.OnEnd = func(g *kalah.Game, o *referee.Outcome) error {
		for _, done := range pending {
			if err := <-done; err != nil {
				return err
			}
		}
		pending = nil
		rec := g.Record()
		rec.Tags = nil // the stored tags stay as they are
		if o != nil && o.Reason != nil {
			rec.Tags = map[string]string{ReasonTag: lg.reasonFor(g, o.Reason, ref)}
		}
		err := s.st.FinishGame(context.WithoutCancel(ctx), lg.id, rec)
		if err == nil {
			s.rate(context.WithoutCancel(ctx), lg, g, ref)
			lg.mu.Lock()
			lg.outcome = o
			lg.mu.Unlock()
		}
		s.dropSeats(lg)
		lg.ended(g)
		return err
	}
	// Every player asked for a move marks when the referee asked.
	for i, p := range players {
		players[i] = &timedPlayer{Player: p, lg: lg, stats: s.stats}
	}
	s.mu.Lock()
	if s.closed {
		// Stopping: the game stays live in the store for the next server.
		delete(s.live, lg.id)
		s.mu.Unlock()
		s.dropSeats(lg)
		cancel()
		closePlayers(players)
		close(lg.finished)
		return
	}
	s.games.Add(1)
	s.mu.Unlock()
	go func() {
		defer s.games.Done()
		defer close(lg.finished)
		defer cancel()
		if lg.resumed {
			// After a restart the bots need a moment to connect again: their
			// clocks wait for them (up to ResumeGrace), so that nobody loses
			// a game on time for the server's restart.
			s.awaitBots(ctx, players, s.cfg.ResumeGrace)
		}
		err := s.play(ctx, lg, &ref, g, players)
		closePlayers(players)
		switch {
		case err == nil:
			s.log.Info("game over", "game", lg.id, "south", lg.seats[0].Name, "north", lg.seats[1].Name,
				"result", g.Result(), "termination", g.Termination())
		case ctx.Err() != nil:
			s.log.Info("game stopped unfinished", "game", lg.id, "moves", g.Len())
		default:
			// The store failed: the game stays live in it, to be resumed by
			// the next server; tell the players.
			s.log.Error("game stopped", "game", lg.id, "err", err)
			lg.mu.Lock()
			lg.broadcastLocked([]line.Msg{line.Errorf(line.CodeShutdown, "game %d stopped: %v", lg.id, err)})
			lg.mu.Unlock()
		}
		s.dropSeats(lg)
		lg.mu.Lock()
		lg.over = true
		for ch := range lg.subs {
			close(ch)
		}
		lg.subs = nil
		lg.mu.Unlock()
		s.mu.Lock()
		delete(s.live, lg.id)
		s.mu.Unlock()
	}()
}

// spent returns each seat's budget used by the moves already played
// (a resumed game), increments deducted, leaving at least a millisecond.
func spent(g *kalah.Game, millis []int64, budget, increment time.Duration) [2]time.Duration {
	var used [2]time.Duration
	swapped := false
	for i, p := range g.Moves() {
		seat := int(p.Side)
		if swapped {
			seat = 1 - seat
		}
		if p.Move == kalah.Swap {
			swapped = !swapped
		}
		if i < len(millis) {
			used[seat] += time.Duration(millis[i]) * time.Millisecond
		}
		used[seat] -= increment
	}
	for i := range used {
		used[i] = min(max(used[i], -budget), budget-time.Millisecond)
	}
	return used
}

// closePlayers stops players that hold resources (processes).
func closePlayers(players [2]player.Player) {
	for _, p := range players {
		if tp, ok := p.(*timedPlayer); ok {
			p = tp.Player
		}
		if c, ok := p.(io.Closer); ok {
			c.Close()
		}
	}
}

// dropSeats forgets the game's bot seats, so their bots may play again.
func (s *Server) dropSeats(lg *liveGame) {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.freeLocked()
	for _, b := range lg.bots {
		if b != nil && s.seats[b.name] == b {
			delete(s.seats, b.name)
			b.mu.Lock()
			if b.conn != nil {
				b.conn.clearSeat(b)
			}
			b.mu.Unlock()
		}
	}
}

// timedPlayer measures the referee's own time: from the previous move's
// arrival to this request.
type timedPlayer struct {
	player.Player
	lg    *liveGame
	stats *Stats
}

func (t *timedPlayer) Move(ctx context.Context, g *kalah.Game, c player.Clock) (kalah.Move, error) {
	now := time.Now()
	t.lg.mu.Lock()
	if !t.lg.lastAt.IsZero() {
		t.stats.add(now.Sub(t.lg.lastAt))
	}
	t.lg.turnAt = now
	t.lg.mu.Unlock()
	m, err := t.Player.Move(ctx, g, c)
	t.lg.mu.Lock()
	t.lg.lastAt = time.Now()
	t.lg.mu.Unlock()
	return m, err
}

func (t *timedPlayer) Observe(ctx context.Context, g *kalah.Game) error {
	if o, ok := t.Player.(player.Observer); ok {
		return o.Observe(ctx, g)
	}
	return nil
}

// moved records a move and tells both seats and the watchers.
func (lg *liveGame) moved(g *kalah.Game, rm kalah.RecordMove) {
	last, _ := g.Last()
	pos := g.Position()
	lg.mu.Lock()
	defer lg.mu.Unlock()
	lg.snap = g.Clone()
	lg.millis = append(lg.millis, rm.Millis)
	lg.settleHumansLocked(nil) // the person's move, if it was one, is stored
	lg.takebackAsk = -1        // a move answers a takeback asked
	lines := []line.Msg{line.Moved(last), line.State(pos)}
	lg.broadcastLocked(lines)
	lg.publishLocked(Event{Game: lg.id, Kind: "move", Ply: g.Len() - 1, Move: &rm, Position: pos.String()})
}

// ended tells everyone how the game ended.
func (lg *liveGame) ended(g *kalah.Game) {
	lg.mu.Lock()
	defer lg.mu.Unlock()
	msgs := []line.Msg{line.EndOf(g).Msg()}
	if lg.snap.Position() != g.Position() {
		// A forfeit gave the board to the winner.
		msgs = []line.Msg{line.State(g.Position()), msgs[0]}
	}
	lg.snap = g.Clone()
	e := line.EndOf(g)
	lg.broadcastLocked(msgs)
	lg.publishLocked(Event{Game: lg.id, Kind: "end", Ply: g.Len(), Position: g.Position().String(),
		Result: e.Result, Termination: e.Termination, Score: kalah.Score{South: e.South, North: e.North}})
	lg.over = true
}

// broadcastLocked sends lines to the seats' connections and watchers.
func (lg *liveGame) broadcastLocked(msgs []line.Msg) {
	for _, b := range lg.bots {
		if b == nil {
			continue
		}
		b.mu.Lock()
		c := b.conn
		b.mu.Unlock()
		if c != nil {
			for _, m := range msgs {
				c.sendMsg(m)
			}
		}
	}
	for c := range lg.watchers {
		for _, m := range msgs {
			c.sendMsg(line.Msg{Cmd: m.Cmd, Args: m.Args})
		}
	}
}

// publishLocked hands an event to subscribers; a subscriber that does not
// keep up is dropped (its channel closed).
func (lg *liveGame) publishLocked(e Event) {
	for ch := range lg.subs {
		select {
		case ch <- e:
		default:
			close(ch)
			delete(lg.subs, ch)
		}
	}
}

// presence tells the game a seat went away or came back.
func (lg *liveGame) presence(seat int, back bool) {
	lg.mu.Lock()
	defer lg.mu.Unlock()
	lg.presenceLocked(seat, back)
}

// presenceLocked is presence with lg.mu held; it locks only the other
// seat's mutex, so the seat's own may be held too.
func (lg *liveGame) presenceLocked(seat int, back bool) {
	if lg.over {
		return
	}
	kind := "away"
	if back {
		kind = "back"
	}
	side := lg.snap.PlayerSide(seat)
	msg := line.Msg{Cmd: kind, Args: []string{side.Letter()}}
	for i, b := range lg.bots {
		if b == nil || i == seat {
			continue
		}
		b.mu.Lock()
		if b.conn != nil {
			b.conn.sendMsg(msg)
		}
		b.mu.Unlock()
	}
	for c := range lg.watchers {
		c.sendMsg(msg)
	}
	lg.publishLocked(Event{Game: lg.id, Kind: kind, Seat: seat, Ply: lg.snap.Len(), Position: lg.snap.Position().String()})
}

// reply is a seat's answer to a request for a move.
type reply struct {
	m   kalah.Move
	err error
}

// botSeat is a network bot's place in a game. The bot's connection may
// come and go; the seat stays until the game ends.
type botSeat struct {
	name string
	srv  *Server
	lg   *liveGame
	seat int

	mu      sync.Mutex
	conn    *conn
	away    bool // the connection dropped during the game
	turn    *line.Turn
	replies chan reply
	changed chan struct{} // closed when conn changes
}

func (s *Server) newBotSeat(name string, lg *liveGame, seat int) *botSeat {
	b := &botSeat{name: name, srv: s, lg: lg, seat: seat, changed: make(chan struct{})}
	lg.mu.Lock()
	lg.bots[seat] = b
	lg.mu.Unlock()
	s.mu.Lock()
	s.seats[name] = b
	c := s.sessions[name]
	s.mu.Unlock()
	if c != nil {
		b.attach(c)
	}
	return b
}

// attach gives the seat a connection: the bot's own, after logging in. It
// is told the game, the position and, if it is to move, its turn.
func (b *botSeat) attach(c *conn) {
	b.lg.mu.Lock()
	defer b.lg.mu.Unlock()
	if b.lg.over {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	old := b.conn
	b.conn = c
	close(b.changed)
	b.changed = make(chan struct{})
	c.setSeat(b)
	g := b.lg.snap
	side := g.PlayerSide(b.seat)
	opp := b.lg.seats[1-b.seat].Name
	c.sendMsg(line.Start{Game: fmt.Sprint(b.lg.id), Side: side, Opponent: opp, Rules: b.lg.rules}.Msg())
	c.sendMsg(line.State(g.Position()))
	if b.turn != nil {
		c.sendMsg(b.turn.Msg())
	}
	if old == nil && b.away {
		b.away = false
		b.lg.presenceLocked(b.seat, true)
	}
}

// detach takes the connection away (it closed).
func (b *botSeat) detach(c *conn) {
	b.mu.Lock()
	if b.conn != c {
		b.mu.Unlock()
		return
	}
	b.conn = nil
	b.away = true
	close(b.changed)
	b.changed = make(chan struct{})
	b.mu.Unlock()
	b.lg.presence(b.seat, false)
}

// Move asks the bot for a move. A bot that is away when its clock runs out
// (or, without a clock, for Config.Reconnect) loses by disconnection.
func (b *botSeat) Move(ctx context.Context, g *kalah.Game, c player.Clock) (kalah.Move, error) {
	turn := line.Turn{PerMove: c.PerMove, Remaining: c.Remaining, Position: g.Position()}
	replies := make(chan reply, 1)
	b.mu.Lock()
	b.turn, b.replies = &turn, replies
	conn, changed := b.conn, b.changed
	if conn != nil {
		conn.sendMsg(turn.Msg())
	}
	b.mu.Unlock()
	defer func() {
		b.mu.Lock()
		b.turn, b.replies = nil, nil
		b.mu.Unlock()
	}()
	var deadline <-chan time.Time
	if lim := c.Limit(); lim > 0 {
		t := time.NewTimer(lim)
		defer t.Stop()
		deadline = t.C
	}
	var away *time.Timer
	defer func() {
		if away != nil {
			away.Stop()
		}
	}()
	for {
		var awayC <-chan time.Time
		if conn == nil && c.Limit() == 0 {
			if away == nil {
				away = time.NewTimer(b.srv.cfg.Reconnect)
			}
			awayC = away.C
		}
		select {
		case r := <-replies:
			return r.m, r.err
		case <-ctx.Done():
			return kalah.NoMove, ctx.Err()
		case <-changed:
			b.mu.Lock()
			conn, changed = b.conn, b.changed
			b.mu.Unlock()
			if conn != nil && away != nil {
				away.Stop()
				away = nil
			}
		case <-deadline:
			deadline = nil
			if conn == nil {
				return kalah.NoMove, fmt.Errorf("%w: %s did not come back in time", player.ErrDisconnected, b.name)
			}
			// Connected: the referee's own timer (with grace) decides.
		case <-awayC:
			return kalah.NoMove, fmt.Errorf("%w: %s did not come back within %v", player.ErrDisconnected, b.name, b.srv.cfg.Reconnect)
		}
	}
}

// answer delivers a move or resignation from the bot's connection.
func (b *botSeat) answer(c *conn, r reply) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.conn != c {
		return ErrForbidden
	}
	if b.replies == nil {
		return ErrNotYourTurn
	}
	b.replies <- r
	b.replies, b.turn = nil, nil
	return nil
}

// entrant is a player waiting in the queue.
type entrant struct {
	seat   store.Seat
	p      player.Player
	rules  *kalah.Rules // nil: any
	conn   *conn        // for network bots
	key    string       // who it is, for the queue: one entry a key; "" means seat.Name
	seated func(int)    // told its seat when its game starts, if not nil
	game   *liveGame    // set once seated
	result chan error   // receives the start error, or nil once seated
	once   sync.Once
}

func (e *entrant) fail(err error) {
	e.once.Do(func() { e.result <- err })
}

func (e *entrant) queueKey() string {
	if e.key != "" {
		return e.key
	}
	return e.seat.Name
}

// enqueue adds e to the queue, starting a game if someone fits.
func (s *Server) enqueue(e *entrant) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return ErrClosed
	}
	for _, q := range s.queue {
		if q.queueKey() == e.queueKey() {
			s.mu.Unlock()
			return ErrBusy
		}
	}
	if _, busy := s.seats[e.seat.Name]; busy && e.seat.Kind == "bot" {
		s.mu.Unlock()
		return ErrBusy
	}
	for i, q := range s.queue {
		if q.rules == nil || e.rules == nil || *q.rules == *e.rules {
			s.queue = append(s.queue[:i], s.queue[i+1:]...)
			s.mu.Unlock()
			r := s.cfg.Rules
			switch {
			case q.rules != nil:
				r = *q.rules
			case e.rules != nil:
				r = *e.rules
			}
			// The one who waited plays first.
			_, err := s.start(r, [2]*entrant{q, e})
			if err != nil && q.conn != nil {
				// The caller hears of it; tell the one who waited too.
				q.conn.mu.Lock()
				if q.conn.queued == q {
					q.conn.queued = nil
				}
				q.conn.mu.Unlock()
				q.conn.sendMsg(line.Errorf(codeFor(err), "%v", err))
			}
			return err
		}
	}
	s.queue = append(s.queue, e)
	s.mu.Unlock()
	s.houseWait(e) // a lone bot plays the house (housebot.go)
	return nil
}

// dequeue removes e from the queue if it is still there.
func (s *Server) dequeue(e *entrant) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, q := range s.queue {
		if q == e {
			s.queue = append(s.queue[:i], s.queue[i+1:]...)
			return true
		}
	}
	return false
}

// start creates and runs a game between two entrants, the first as South
// under the rules' first-mover convention (seat 0).
func (s *Server) start(r kalah.Rules, es [2]*entrant) (int64, error) {
	g, err := kalah.NewGame(r)
	if err != nil {
		for _, e := range es {
			e.fail(err)
		}
		return 0, err
	}
	// Games the queue and challenges pair count on the ladders.
	return s.begin(g, es, setup{rated: true})
}

// setup is what a game started by StartGame has beyond its players.
type setup struct {
	start  string            // a set-up position, empty for the rules' start
	tags   map[string]string // stored with the game
	ref    *referee.Referee  // the game's own clock; nil: the server's
	casual bool
	rated  bool // counts on the ladders, if both seats have an account
}

// begin stores and runs g (which may hold opening moves, stored with it)
// between two entrants.
func (s *Server) begin(g *kalah.Game, es [2]*entrant, su setup) (int64, error) {
	s.mu.Lock()
	full := len(s.live) >= s.cfg.MaxGames
	s.mu.Unlock()
	if full {
		err := fmt.Errorf("%w: %d games are being played, the most this server allows", ErrBusy, s.cfg.MaxGames)
		for _, e := range es {
			e.fail(err)
		}
		return 0, err
	}
	r := g.Rules()
	seats := [2]store.Seat{es[0].seat, es[1].seat}
	for i := range seats {
		if seats[i].Kind == "bot" && seats[i].Account == "" {
			seats[i].Account = seats[i].Name // logged in with its token
		}
	}
	if su.rated && !su.casual && seats[0].Account != "" && seats[1].Account != "" && seats[0].Account != seats[1].Account {
		if su.tags == nil {
			su.tags = map[string]string{}
		}
		su.tags[tagRated] = "yes"
	}
	id, err := s.st.CreateGame(s.ctx, store.NewGame{Rules: r, Seats: seats, Start: su.start, Tags: su.tags})
	if err == nil {
		for i, p := range g.Moves() {
			rm := kalah.RecordMove{Side: p.Side, House: int(p.Move)}
			if p.Move == kalah.Swap {
				rm.House, rm.Swap = 0, true
			}
			if err = s.st.AddMove(s.ctx, id, i, rm); err != nil {
				break
			}
		}
	}
	if err != nil {
		for _, e := range es {
			e.fail(err)
		}
		return 0, err
	}
	lg := s.newLiveGame(id, g, seats)
	lg.ref, lg.casual, lg.tags = su.ref, su.casual, su.tags
	for i, e := range es {
		if e.seated != nil {
			e.seated(i)
		}
	}
	var players [2]player.Player
	for i, e := range es {
		if e.seat.Kind == "bot" {
			players[i] = s.newBotSeat(e.seat.Name, lg, i)
		} else {
			players[i] = e.p
			if h, ok := e.p.(*humanSeat); ok {
				lg.humans[i] = h
			}
		}
	}
	s.log.Info("game started", "game", id, "south", seats[0].Name, "north", seats[1].Name, "rules", r.String())
	for _, e := range es {
		e.game = lg
	}
	s.runGame(lg, g, players)
	for _, e := range es {
		e.fail(nil)
	}
	return id, nil
}

// Entrant is a player brought in by another transport (KGP) for Play.
type Entrant struct {
	Name   string
	Kind   string // the transport, such as "kgp"; stored with the game
	Player player.Player
	// Rules, if not nil, are the only rules the player accepts.
	Rules *kalah.Rules
	// Done, if not nil, is closed when the player goes away.
	Done <-chan struct{}
	// Account, if set, is the bot the entrant logged in as (by its token):
	// its games count on the rating ladders.
	Account string
	// Key is who the entrant is: the queue holds one entry a key, so one
	// identity cannot wait twice. Empty means Name. Anonymous clients that
	// share a name (a label only) give each a key of its own.
	Key string
	// Seated, if not nil, is told the seat (0: South under the default
	// convention) once the entrant's game starts, before any move.
	Seated func(seat int)
}

// Play puts e in the same queue as the bots and returns once its game is
// over and stored, or with an error if it cannot be seated (ctx ends,
// e.Done closes or the server stops first). The referee asks e.Player for
// its moves and, if it is a player.Observer, shows it every move. The
// player stays its caller's: Play does not close it.
func (s *Server) Play(ctx context.Context, e Entrant) error {
	if e.Kind == "" || e.Kind == "bot" || e.Kind == "spec" || e.Kind == "human" {
		e.Kind = "remote"
	}
	en := &entrant{seat: store.Seat{Name: e.Name, Kind: e.Kind, Account: e.Account}, p: keepOpen{e.Player}, rules: e.Rules, key: e.Key, seated: e.Seated, result: make(chan error, 1)}
	if err := s.enqueue(en); err != nil {
		return err
	}
	var err error
	select {
	case err = <-en.result:
	case <-ctx.Done():
		if s.dequeue(en) {
			return ctx.Err()
		}
		err = <-en.result
	case <-e.Done:
		if s.dequeue(en) {
			return player.ErrDisconnected
		}
		err = <-en.result
	case <-s.ctx.Done():
		if s.dequeue(en) {
			return ErrClosed
		}
		err = <-en.result
	}
	if err != nil {
		return err
	}
	<-en.game.finished
	if s.ctx.Err() != nil && !en.game.isOver() {
		return ErrClosed
	}
	return nil
}

func (lg *liveGame) isOver() bool {
	lg.mu.Lock()
	defer lg.mu.Unlock()
	return lg.snap.Over()
}

// keepOpen hides a player's Close from the server, which closes the
// players it owns when a game ends.
type keepOpen struct{ player.Player }

// Observe passes the game on if the player observes.
func (k keepOpen) Observe(ctx context.Context, g *kalah.Game) error {
	if o, ok := k.Player.(player.Observer); ok {
		return o.Observe(ctx, g)
	}
	return nil
}

// awaitBots waits until every bot seat among players is connected, or
// for at most grace, or until ctx ends.
func (s *Server) awaitBots(ctx context.Context, players [2]player.Player, grace time.Duration) {
	deadline := time.Now().Add(grace)
	for {
		back := true
		for _, p := range players {
			if b, ok := p.(*botSeat); ok {
				b.mu.Lock()
				back = back && b.conn != nil
				b.mu.Unlock()
			}
		}
		if back || time.Now().After(deadline) {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// reasonFor says in words, for people, why g ended by a forfeit: who ran
// out of time, resigned, left or failed, with the cause's own words where
// a program failed.
func (lg *liveGame) reasonFor(g *kalah.Game, cause error, ref referee.Referee) string {
	loser := kalah.South
	if g.Result() == kalah.SouthWins {
		loser = kalah.North
	}
	lg.mu.Lock()
	name := lg.seats[g.Seat(loser)].Name
	lg.mu.Unlock()
	var said requestReason
	if errors.As(cause, &said) {
		return string(said)
	}
	switch g.Termination() {
	case kalah.Timeout:
		if ref.Budget > 0 {
			return name + " ran out of time"
		}
		return fmt.Sprintf("%s took longer than the %v a move allows", name, ref.PerMove)
	case kalah.Resign:
		if errors.Is(cause, player.ErrResigned) || cause == nil {
			return name + " resigned"
		}
		return cause.Error()
	case kalah.Disconnect:
		return name + " left the game"
	case kalah.IllegalMove:
		return fmt.Sprintf("%s made an illegal move (%v)", name, cause)
	case kalah.ProtocolError:
		return fmt.Sprintf("%s broke the protocol (%v)", name, cause)
	case kalah.Crash:
		return fmt.Sprintf("%s stopped working (%v)", name, cause)
	}
	return cause.Error()
}
