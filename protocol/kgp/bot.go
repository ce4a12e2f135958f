package kgp

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"

	"kalah"
	"kalah/player"
)

// Bot connects one of our players to a KGP server as a freeplay client:
// it answers each state with a quick fallback move, then the player's
// choice, then yield.
//
// A bot must not answer before the server can take the answer: the
// reference server (go-kgp) registers a state only after it has written it,
// and answers a move that arrives first with "No state associated with id"
// (and plays at random instead). So every answer waits until Hold has
// passed since its state arrived, each command carries an id of its own so
// that the server's errors can be matched to it, and an answer the server
// lost is sent again while the state is open, or reported when it is not.
//
// A move and the yield after it sent together lose the move when the server
// registers the state between the two: it refuses the move and takes the
// yield, deciding without the move. So once the server has refused an
// answer (it registers late), the bot sends a yield only a while after the
// move before it (four holds), time for a refusal of that move to come back, and
// a move refused meanwhile goes again first.
type Bot struct {
	// Name, Authors and Description are sent with set info:... .
	Name, Authors, Description string
	// Player chooses the moves.
	Player player.Player
	// Rules interprets the boards the server sends; the houses come from
	// each board. The zero value means the kgp preset.
	Rules kalah.Rules
	// Think is the time the player is given for a state (Clock.PerMove).
	// Zero gives the server's time:clock as its budget if the server sent
	// one, or no limit: the server's stop then interrupts the player.
	Think time.Duration
	// Token, if set, is sent as auth:token (spec 043): the server keeps the
	// bot's identity across connections by it.
	Token string
	// Hold is the least time between a state's arrival and the first
	// answer to it (default DefaultHold), so that the server has surely
	// registered the state when the answer comes.
	Hold time.Duration
	// Fallback is how long the bot waits for its player before it sends a
	// quick first legal move as a safety net (default 100ms; never less
	// than Hold).
	Fallback time.Duration
	// OnResult, if not nil, is called at the end of each game the server
	// reports (set game:result, then game:termination), with the result
	// from the bot's side (win, loss, draw) and how the game ended.
	OnResult func(result, termination string)
	// OnEnd, if not nil, is called where OnResult is, with all the server
	// said of the game: the result and termination, and the opponent and
	// the score where the server tells them (ours does: game:opponent and
	// game:score; others may not).
	OnEnd func(GameEnd)
	// OnError, if not nil, is told in words of every error the server
	// sends and of what the bot did about it (sent its answer again, or
	// lost a move); nil logs them as warnings.
	OnError func(msg string)
	// Logger receives protocol events; nil means slog.Default().
	Logger *slog.Logger
}

// GameEnd is how a game ended, as the server told the bot.
type GameEnd struct {
	Result      string // win, loss or draw, from the bot's side
	Termination string // normal, timeout...
	Opponent    string // "" when the server did not say
	// Score is the stores, the bot's first ("20-28"); "" when the server
	// did not say.
	Score string
}

// DefaultHold is Bot.Hold's default: the reference server registers a
// state within microseconds of writing it on a quiet machine, milliseconds
// on a busy one; 20 ms is far beyond that and costs a game of 40 moves
// under a second.
const DefaultHold = 20 * time.Millisecond

// maxResends bounds how many times the bot sends an answer again that the
// server said came before its state; the pause doubles each time from
// Hold (20, 40, ... 640 ms by default).
const maxResends = 6

// gap is how long, once the server has refused an answer, a yield waits
// after the move before it: the server's refusal of a move it had not
// registered the state for comes back within it (a round trip through
// both processes, milliseconds; four holds, 80 ms by default, leave room
// for a loaded machine's scheduling). It costs only a server that
// registers late.
func (b *Bot) gap() time.Duration { return 4 * b.hold() }

// ErrBadGreeting is returned by Bot.Play when the server does not speak a
// version of KGP the bot understands.
var ErrBadGreeting = errors.New("kgp: server does not speak kgp 1.x")

func (b *Bot) logger() *slog.Logger {
	if b.Logger != nil {
		return b.Logger
	}
	return slog.Default()
}

type lineResult struct {
	line string
	err  error
}

// Play speaks KGP over conn until the server says goodbye (nil), the
// connection fails or ctx ends. It closes conn before returning.
func (b *Bot) Play(ctx context.Context, conn io.ReadWriteCloser) error {
	var wmu sync.Mutex
	send := func(c Command) error {
		wmu.Lock()
		defer wmu.Unlock()
		_, err := io.WriteString(conn, c.String()+"\r\n")
		return err
	}
	lines := make(chan lineResult)
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		r := bufio.NewReaderSize(conn, MaxLine)
		for {
			s, err := r.ReadString('\n')
			if len(s) > MaxLine {
				err = fmt.Errorf("%w: line of %d characters from the server", ErrSyntax, len(s))
			}
			if s != "" && err == nil || s != "" && errors.Is(err, io.EOF) {
				select {
				case lines <- lineResult{line: trimEOL(s)}:
				case <-quit:
					return
				}
			}
			if err != nil {
				select {
				case lines <- lineResult{err: err}:
				case <-quit:
				}
				return
			}
		}
	}()

	ans := &answers{bot: b, send: send, quit: quit, wg: &wg, states: map[uint64]*answer{}, sent: map[uint64]sentCmd{}}
	var think context.CancelFunc
	var thinkID uint64
	stopThinking := func() {
		if think != nil {
			think()
			think = nil
		}
	}
	defer func() {
		stopThinking()
		close(quit)
		conn.Close()
		wg.Wait()
	}()

	var remaining time.Duration
	var end GameEnd
	greeted := false
	for {
		var lr lineResult
		select {
		case <-ctx.Done():
			send(Command{Name: "goodbye"})
			return ctx.Err()
		case lr = <-lines:
		}
		if lr.err != nil {
			if errors.Is(lr.err, io.EOF) {
				return fmt.Errorf("kgp: server closed the connection: %w", io.ErrUnexpectedEOF)
			}
			return lr.err
		}
		cmd, err := Parse(lr.line)
		if err != nil {
			b.logger().Debug("kgp bot: bad line from server", "line", lr.line, "err", err)
			continue
		}
		switch cmd.Name {
		case "kgp":
			if len(cmd.Args) < 1 || cmd.Args[0].Kind != Integer || cmd.Args[0].Int != 1 {
				return fmt.Errorf("%w: %q", ErrBadGreeting, lr.line)
			}
			greeted = true
			for _, kv := range [][2]string{{"info:name", b.Name}, {"info:authors", b.Authors}, {"info:description", b.Description}, {"auth:token", b.Token}} {
				if kv[1] != "" {
					send(Command{ID: ans.id(), Name: "set", Args: []Arg{WordArg(kv[0]), Str(kv[1])}})
				}
			}
			if err := send(Command{ID: ans.id(), Name: "mode", Args: []Arg{WordArg("freeplay")}}); err != nil {
				return err
			}
		case "state":
			if !greeted || len(cmd.Args) != 1 || cmd.Args[0].Kind != Board {
				continue
			}
			arrived := time.Now()
			pos, err := kalah.ParseKGPBoard(cmd.Args[0].Text)
			if err != nil {
				send(Command{ID: ans.id(), Ref: cmd.ID, Name: "error", Args: []Arg{Str(err.Error())}})
				continue
			}
			stopThinking()
			tctx, cancel := context.WithCancel(ctx)
			think = cancel
			thinkID = cmd.ID
			ans.open(cmd.ID, arrived)
			clock := player.Clock{PerMove: b.Think}
			if b.Think == 0 {
				clock.Remaining = remaining
			}
			wg.Add(1)
			go func(id uint64) {
				defer wg.Done()
				b.think(tctx, id, pos, clock, ans)
			}(cmd.ID)
		case "stop":
			if cmd.Ref == thinkID {
				stopThinking()
			}
			ans.close(cmd.Ref)
		case "ping":
			send(Command{Ref: cmd.ID, Name: "pong"})
		case "set":
			if len(cmd.Args) != 2 {
				continue
			}
			switch cmd.Args[0].String() {
			case "time:clock":
				if cmd.Args[1].Kind == Integer && cmd.Args[1].Int > 0 {
					remaining = time.Duration(cmd.Args[1].Int) * time.Second
				}
			case "game:opponent":
				end.Opponent = cmd.Args[1].String()
			case "game:score":
				end.Score = cmd.Args[1].String()
			case "game:result":
				end.Result = cmd.Args[1].String()
			case "game:termination":
				end.Termination = cmd.Args[1].String()
				if b.OnResult != nil {
					b.OnResult(end.Result, end.Termination)
				}
				if b.OnEnd != nil {
					b.OnEnd(end)
				}
				end = GameEnd{}
			}
		case "error":
			msg := ""
			if len(cmd.Args) > 0 {
				msg = cmd.Args[0].String()
			}
			ans.serverError(cmd.Ref, msg)
		case "goodbye":
			return nil
		}
	}
}

// think answers one state: a fallback move at once, the player's move when
// it has one, then yield.
func (b *Bot) think(ctx context.Context, id uint64, pos kalah.Position, clock player.Clock, ans *answers) {
	r := b.Rules
	if r.Houses == 0 {
		r, _ = kalah.PresetRules("kgp")
	}
	r.Houses = pos.Houses()
	r.Pie = false
	r.First = kalah.South
	g, err := kalah.NewGameFrom(r, pos)
	if err != nil || g.Over() {
		ans.yield(ctx, id)
		return
	}
	legal := g.Legal()
	if len(legal) == 1 || b.Player == nil {
		ans.move(ctx, id, legal[0])
		ans.yield(ctx, id)
		return
	}
	// The player thinks; if it takes longer than a moment, a first legal
	// move goes out as a safety net, to be replaced by the player's.
	var mu sync.Mutex
	answered := false
	fctx, cancelFallback := context.WithCancel(ctx)
	defer cancelFallback()
	fallback := time.AfterFunc(max(b.fallback(), b.hold()), func() {
		mu.Lock()
		defer mu.Unlock()
		if !answered {
			ans.move(fctx, id, legal[0])
		}
	})
	m, err := b.Player.Move(ctx, g, clock)
	mu.Lock()
	answered = true
	mu.Unlock()
	fallback.Stop()
	if err == nil && m != kalah.Swap && g.IsLegal(m) {
		ans.move(ctx, id, m)
	} else if err != nil && ctx.Err() == nil {
		b.logger().Warn("kgp bot: player failed", "err", err)
	}
	if ctx.Err() == nil {
		ans.yield(ctx, id)
	}
}

func (b *Bot) fallback() time.Duration {
	if b.Fallback > 0 {
		return b.Fallback
	}
	return 100 * time.Millisecond
}

func (b *Bot) hold() time.Duration {
	if b.Hold > 0 {
		return b.Hold
	}
	return DefaultHold
}

func (b *Bot) report(msg string) {
	if b.OnError != nil {
		b.OnError(msg)
		return
	}
	b.logger().Warn("kgp bot: " + msg)
}

// answers keeps what the bot sent for each open state, so that an error
// from the server can be matched to the command it answers.
type answers struct {
	bot  *Bot
	send func(Command) error
	quit chan struct{}
	wg   *sync.WaitGroup

	mu     sync.Mutex
	nextID uint64
	states map[uint64]*answer // by state id, until the server's stop
	sent   map[uint64]sentCmd // by our command id, while its state is open
	// late: the server has refused an answer for a state it had not
	// registered yet; from then on a yield waits gap after its move.
	late bool
}

// answer is what the bot sent for one state.
type answer struct {
	arrived  time.Time
	move     kalah.Move // the latest move sent, if any
	moveID   uint64     // its command id
	moveSent time.Time  // when
	moveLost bool       // the server said it had no state for it
	yieldID  uint64     // the id of the latest yield sent, if any
	resends  int
	pending  bool // a resend is scheduled, or deliver runs
}

// sentCmd is one move or yield the bot sent.
type sentCmd struct {
	state uint64
	yield bool
}

// id returns a fresh command id: odd, as clients' conventionally are, so
// they never meet the server's even ones.
func (a *answers) id() uint64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.nextID++
	return 2*a.nextID - 1
}

func (a *answers) open(state uint64, arrived time.Time) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.states[state] = &answer{arrived: arrived}
}

// wait holds an answer to state until Hold has passed since the state
// arrived; it reports false if ctx ends first or the state is closed.
func (a *answers) wait(ctx context.Context, state uint64) bool {
	a.mu.Lock()
	st := a.states[state]
	a.mu.Unlock()
	if st == nil {
		return false
	}
	if d := time.Until(st.arrived.Add(a.bot.hold())); d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return false
		case <-a.quit:
			return false
		}
	}
	return ctx.Err() == nil
}

// move sends a move for state once the state is surely registered.
func (a *answers) move(ctx context.Context, state uint64, m kalah.Move) {
	if !a.wait(ctx, state) {
		return
	}
	a.sendMove(state, m)
}

func (a *answers) sendMove(state uint64, m kalah.Move) {
	id := a.id()
	a.mu.Lock()
	st := a.states[state]
	if st == nil {
		a.mu.Unlock()
		return
	}
	st.move, st.moveID, st.moveLost, st.moveSent = m, id, false, time.Now()
	a.sent[id] = sentCmd{state: state}
	a.mu.Unlock()
	a.send(Command{ID: id, Ref: state, Name: "move", Args: []Arg{Int(int64(m))}})
}

// yield ends the answer to state once the state is surely registered.
func (a *answers) yield(ctx context.Context, state uint64) {
	if !a.wait(ctx, state) {
		return
	}
	a.mu.Lock()
	st := a.states[state]
	if st == nil || st.pending { // a resend will yield
		a.mu.Unlock()
		return
	}
	st.pending = true
	a.mu.Unlock()
	a.deliver(ctx.Done(), state)
}

// deliver sends the yield that ends the answer to state (st.pending set by
// its caller, cleared as the yield goes). Where the server registers late
// (a.late), the yield waits gap after the move before it, and a move the
// server refused meanwhile goes again first, after a pause doubling from
// Hold, up to maxResends times: sent together, a registration between the
// two would lose the move and take the yield. It ends without a yield if
// done is closed or the state is.
func (a *answers) deliver(done <-chan struct{}, state uint64) {
	for {
		a.mu.Lock()
		st := a.states[state]
		if st == nil {
			a.mu.Unlock()
			return
		}
		var wait time.Duration
		switch {
		case st.moveLost && st.resends < maxResends:
			st.resends++
			wait = a.bot.hold() << (st.resends - 1)
			m := st.move
			a.mu.Unlock()
			a.bot.report(fmt.Sprintf("sending our move %d for state %d again in %v", m, state, wait))
			if !sleep(wait, done, a.quit) {
				return
			}
			a.mu.Lock()
			st, ok := a.states[state]
			a.mu.Unlock()
			if ok {
				a.sendMove(state, st.move)
			}
			continue
		case a.late && !st.moveSent.IsZero() && !st.moveLost:
			wait = a.bot.gap() - time.Since(st.moveSent)
		}
		if wait > 0 {
			a.mu.Unlock()
			if !sleep(wait, done, a.quit) {
				return
			}
			continue
		}
		st.pending = false
		a.mu.Unlock()
		a.sendYield(state)
		return
	}
}

// sleep waits d unless done or quit is closed first (false).
func sleep(d time.Duration, done, quit <-chan struct{}) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-done:
	case <-quit:
	}
	return false
}

func (a *answers) sendYield(state uint64) {
	id := a.id()
	a.mu.Lock()
	st := a.states[state]
	if st == nil {
		a.mu.Unlock()
		return
	}
	st.yieldID = id
	a.sent[id] = sentCmd{state: state, yield: true}
	a.mu.Unlock()
	a.send(Command{ID: id, Ref: state, Name: "yield"})
}

// close forgets a state the server stopped; a move the server lost for it
// is reported, since the server decided without it.
func (a *answers) close(state uint64) {
	a.mu.Lock()
	st := a.states[state]
	delete(a.states, state)
	for id, c := range a.sent {
		if c.state == state {
			delete(a.sent, id)
		}
	}
	a.mu.Unlock()
	if st != nil && st.moveLost {
		a.bot.report(fmt.Sprintf("the server lost our move %d for state %d (it had not registered the state) and decided without it", st.move, state))
	}
}

// serverError shows the user an error the server sent and, if it says
// that an answer came before its state was registered while the state is
// still open, sends the answer again after a pause.
func (a *answers) serverError(ref uint64, msg string) {
	a.mu.Lock()
	c, ours := a.sent[ref]
	var st *answer
	if ours {
		st = a.states[c.state]
	}
	if st == nil || !noState(msg) {
		a.mu.Unlock()
		about := ""
		if ref != 0 {
			about = fmt.Sprintf(" (about our command %d)", ref)
		}
		a.bot.report(fmt.Sprintf("server error %q%s", msg, about))
		return
	}
	what := "move"
	if c.yield {
		what = "yield"
	}
	a.late = true
	latest := ref == st.moveID || ref == st.yieldID
	if !c.yield && ref == st.moveID {
		st.moveLost = true
	}
	// A lost yield leaves the state open on the server: it still waits for
	// an answer, so the answer can go again. A lost move before a yield
	// not sent yet goes again first (deliver); followed by a yield that
	// arrived it leaves nothing to do but report it at stop.
	resend := c.yield && latest && !st.pending && st.resends < maxResends
	if !resend {
		a.mu.Unlock()
		if c.yield && latest && !st.pending {
			a.bot.report(fmt.Sprintf("server error %q about our %s for state %d; gave up after %d tries", msg, what, c.state, st.resends+1))
		}
		if !c.yield {
			a.bot.report(fmt.Sprintf("server error %q about our %s for state %d: it had not registered the state yet", msg, what, c.state))
		}
		return
	}
	st.pending = true
	st.resends++
	pause := a.bot.hold() << (st.resends - 1)
	a.mu.Unlock()
	a.bot.report(fmt.Sprintf("server error %q about our %s for state %d: it had not registered the state yet; sending the answer again in %v", msg, what, c.state, pause))
	a.wg.Add(1)
	go func(state uint64) {
		defer a.wg.Done()
		if !sleep(pause, nil, a.quit) {
			return
		}
		a.mu.Lock()
		st := a.states[state]
		if st == nil {
			a.mu.Unlock()
			return
		}
		m, lost := st.move, st.moveLost
		a.mu.Unlock()
		if lost {
			a.sendMove(state, m)
		}
		a.deliver(nil, state) // the yield, gap after the move
	}(c.state)
}

// noState reports whether a server's error says that an answer came for a
// state it did not (yet) hold: the reference server's "No state associated
// with id".
func noState(msg string) bool {
	return strings.Contains(strings.ToLower(msg), "no state associated")
}
