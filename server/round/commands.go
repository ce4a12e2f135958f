package round

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
	"time"

	"kalah"
	"kalah/internal/identity"
	"kalah/internal/store"
	"kalah/player"
	"kalah/protocol/line"
	"kalah/server/core"
	"kalah/server/gate"
)

// The commands of a round, every message its loop takes, in one place
// (as lila lists a round's). Each is sent to the loop and run there in
// its turn: those a person gives (Move, Resign, Abort, TakeBack,
// DeclineTakeBack, Claim, GiveTime, Draw, Hint) name the person, whose
// seat the loop finds; a bot's come from its connection (BotMove,
// BotDraw, Attach, Detach); readers follow the game (Subscribe, Watch).

// GiveTime is what GiveTime adds to the opponent's clock.
const GiveTime = 15 * time.Second

// command runs do on the round's loop with the seat a (a person) plays
// there.
func (r *Round) command(ctx context.Context, a core.Actor, do func(l *loop, seat int) error) error {
	return r.send(ctx, func(l *loop) error {
		seat, err := l.seatOf(a)
		if err != nil {
			return err
		}
		l.acted(seat)
		return do(l, seat)
	})
}

// Move plays a person's move. An illegal move is refused, not forfeited.
func (r *Round) Move(ctx context.Context, a core.Actor, m kalah.Move) error {
	return r.command(ctx, a, func(l *loop, seat int) error {
		if l.g.Over() {
			return kalah.ErrGameOver
		}
		if l.mover() != seat {
			return fmt.Errorf("%w: %s is to move", core.ErrNotYourTurn, l.seats[l.mover()].St.Name)
		}
		return l.play(seat, m)
	})
}

// Resign ends the game with a loss for the person's seat, whether or not
// it is their turn; before both sides have moved it aborts the game
// instead.
func (r *Round) Resign(ctx context.Context, a core.Actor) error {
	return r.command(ctx, a, func(l *loop, seat int) error {
		if l.g.Over() {
			return kalah.ErrGameOver
		}
		l.forfeit(seat, player.ErrResigned)
		return nil
	})
}

// Abort calls the game off, with no result and no rating, as long as one
// side has not moved yet; either player may.
func (r *Round) Abort(ctx context.Context, a core.Actor) error {
	return r.command(ctx, a, func(l *loop, seat int) error {
		if l.g.Over() {
			return kalah.ErrGameOver
		}
		if l.bothMoved() {
			return fmt.Errorf("%w: both sides have moved; resign instead", core.ErrTooLate)
		}
		l.end(func(g *kalah.Game) error { return g.Abort() }, "Aborted by "+l.seats[seat].St.Name)
		return nil
	})
}

// TakeBack takes back moves. Against the computer, in a casual game, it
// takes back the person's last move and everything after it, so it is
// their turn again. Between people, in any game (rated too, as on
// lichess) unless it was started with takebacks refused, it asks the
// opponent, and the opponent's own takeback grants what was asked. The
// moves taken back stay in the record, under its Takebacks tag.
func (r *Round) TakeBack(ctx context.Context, a core.Actor) error {
	return r.command(ctx, a, func(l *loop, seat int) error {
		if l.g.Over() {
			return kalah.ErrGameOver
		}
		switch opp := l.seats[1-seat]; {
		case !opp.Human && opp.St.Kind != "spec":
			return fmt.Errorf("takeback: %w: a bot cannot be asked for one", core.ErrNotCasual)
		case !opp.Human && !l.casual:
			return fmt.Errorf("takeback: %w (against the computer)", core.ErrNotCasual)
		case opp.Human && l.tags[core.TagNoTakebacks] == "yes":
			return fmt.Errorf("takeback: %w: it was started with takebacks refused", core.ErrNoTakebacks)
		}
		if l.seats[1-seat].Human {
			if l.takebackAsk != 1-seat {
				if !MovedBy(l.g, l.opening, seat) {
					return kalah.ErrNoUndo
				}
				l.takebackAsk = seat
				l.publishEvent(Event{Kind: "takeback-ask", Seat: seat, Ply: l.g.Len(), Position: l.g.Position().String()})
				return nil
			}
			seat, l.takebackAsk = 1-seat, -1 // granted: the asker's moves go back
		}
		return l.takeBack(seat)
	})
}

// DeclineTakeBack refuses the opponent's request to take back a move.
func (r *Round) DeclineTakeBack(ctx context.Context, a core.Actor) error {
	return r.command(ctx, a, func(l *loop, seat int) error {
		if l.takebackAsk != 1-seat {
			return fmt.Errorf("%w: no takeback asked of you", core.ErrNotYourTurn)
		}
		l.takebackAsk = -1
		l.publishEvent(Event{Kind: "takeback-declined", Seat: seat, Ply: l.g.Len(), Position: l.g.Position().String()})
		return nil
	})
}

// Claim ends a game between people without a clock in the person's
// favour when the opponent, to move, has not moved for Config.ClaimAfter.
func (r *Round) Claim(ctx context.Context, a core.Actor) error {
	return r.command(ctx, a, func(l *loop, seat int) error {
		opp := l.seats[1-seat]
		after := l.cfg.ClaimAfter
		switch {
		case l.g.Over():
			return kalah.ErrGameOver
		case !opp.Human || l.clocks.Deadline(1-seat) > 0:
			return fmt.Errorf("%w: a win is claimed only from a person in a game without a clock (a clock ends it by itself)", core.ErrNotCasual)
		case l.mover() == seat:
			return fmt.Errorf("%w: it is your turn", core.ErrNotYourTurn)
		case !l.asked || time.Since(l.turnAt) < after:
			return fmt.Errorf("%w: %s has had %v to move; a win may be claimed after %v", core.ErrNotYourTurn, opp.St.Name, time.Since(l.turnAt).Round(time.Second), after)
		}
		l.forfeit(1-seat, fmt.Errorf("%w: %w", context.DeadlineExceeded, RequestReason(fmt.Sprintf("%s did not move for %v; the win was claimed", opp.St.Name, after))))
		return nil
	})
}

// GiveTime adds GiveTime to the opponent's clock, in a game with a clock
// between people.
func (r *Round) GiveTime(ctx context.Context, a core.Actor) error {
	return r.command(ctx, a, func(l *loop, seat int) error {
		if l.g.Over() {
			return kalah.ErrGameOver
		}
		if !l.clocks.Budgeted() || !l.seats[1-seat].Human {
			return fmt.Errorf("%w: time is given only to a person in a game with a clock", core.ErrBadRequest)
		}
		g := Given(l.tags)
		g[1-seat] += GiveTime
		val := fmt.Sprintf("%d,%d", g[0].Milliseconds(), g[1].Milliseconds())
		write := func() error { return l.host.SetTag(context.WithoutCancel(l.ctx), l.r.id, core.TagGiven, val) }
		if err := l.retry(write(), write); err != nil {
			return err
		}
		l.tags[core.TagGiven] = val
		l.tagsChanged = true
		l.clocks.Give(1-seat, GiveTime)
		l.publishEvent(Event{Kind: "time", Seat: 1 - seat, Ply: l.g.Len(), Position: l.g.Position().String()})
		return nil
	})
}

// Draw does action (DrawOffer, DrawAccept, DrawDecline or DrawCancel) on
// the draw negotiation for the person a. Offering when the opponent has
// offered accepts.
func (r *Round) Draw(ctx context.Context, a core.Actor, action string) error {
	return r.command(ctx, a, func(l *loop, seat int) error { return l.drawAction(seat, action) })
}

// Join takes an open seat for a: a seat open to anyone who has the
// invitation's secret (the first who joins owns it), or a seat kept for
// a's identity (a rematch's). It returns the seat and a token that moves
// it.
func (r *Round) Join(ctx context.Context, a core.Actor, invite string) (int, string, error) {
	var at int
	var token string
	err := r.send(ctx, func(l *loop) error {
		var err error
		at, token, err = l.join(a, invite)
		return err
	})
	return at, token, err
}

// Take gives open seat i to a, if it is still open (a rematch's seat kept
// for them), and returns a token that moves it ("" if it was taken).
func (r *Round) Take(ctx context.Context, i int, a core.Actor) (string, error) {
	var token string
	err := r.send(ctx, func(l *loop) error {
		if !l.seats[i].St.Open {
			return nil
		}
		who := l.seats[i].St.ID
		if who.IsZero() {
			who = a.ID // a seat of an older release, kept for its token
		}
		_, tok, err := l.take(i, who)
		token = tok
		return err
	})
	return token, err
}

// Hint returns the position in which the person a, in a casual game
// against the computer, asks for a hint on their turn.
func (r *Round) Hint(ctx context.Context, a core.Actor) (*kalah.Game, error) {
	var g *kalah.Game
	err := r.send(ctx, func(l *loop) error {
		seat, err := l.seatOf(a)
		switch {
		case err != nil:
			return err
		case !l.casual || l.seats[1-seat].St.Kind != "spec":
			return fmt.Errorf("hint: %w (against the computer)", core.ErrNotCasual)
		case l.g.Over():
			return kalah.ErrGameOver
		case l.mover() != seat:
			return core.ErrNotYourTurn
		case !l.cfg.Hints:
			return core.ErrNoHints
		}
		g = l.g.Clone()
		return nil
	})
	return g, err
}

// Abandon ends the game as an adjudicated draw that counts for no one,
// with reason given.
func (r *Round) Abandon(ctx context.Context, reason string) error {
	return r.send(ctx, func(l *loop) error {
		if l.g.Over() {
			return kalah.ErrGameOver
		}
		l.end(func(g *kalah.Game) error { return g.Adjudicate(kalah.Draw) }, reason)
		return nil
	})
}

// EndLeft ends the game if a guest has left it, for another guest of the
// address to play (the gate asks). It reports false if the round has
// ended.
func (r *Round) EndLeft() bool {
	return r.post(func(l *loop) error {
		l.endLeft()
		return nil
	})
}

// BotMove plays the move (or the resignation) of the bot connected by c,
// whose line was read at read (zero: not known), for the metrics.
// A bot's illegal move loses the game at once.
func (r *Round) BotMove(ctx context.Context, c Link, resign bool, m kalah.Move, read time.Time) error {
	return r.send(ctx, func(l *loop) error { return l.botMove(c, resign, m, read) })
}

// BotDraw is a draw message from the bot connected by c.
func (r *Round) BotDraw(ctx context.Context, c Link, action string) error {
	return r.send(ctx, func(l *loop) error {
		for i, st := range l.seats {
			if st.Bot && st.conn == c {
				return l.drawAction(i, action)
			}
		}
		return core.ErrForbidden
	})
}

// Attach gives bot who's seats their connection c (the bot logged in).
// It reports false if the round has ended.
func (r *Round) Attach(c Link, who identity.ID) bool {
	return r.post(func(l *loop) error {
		for i, st := range l.seats {
			if st.Bot && st.St.ID.Is(who) {
				l.attach(i, c)
			}
		}
		return nil
	})
}

// Detach takes the connection c away from the seats it plays (it closed).
func (r *Round) Detach(c Link) bool {
	return r.post(func(l *loop) error {
		for i, st := range l.seats {
			if st.conn == c {
				l.detach(i, c)
			}
		}
		return nil
	})
}

// Watch makes c a spectator on our protocol: it is sent the game so far,
// then every move and the end.
func (r *Round) Watch(ctx context.Context, c Link) error {
	return r.send(ctx, func(l *loop) error { return l.watch(c) })
}

// Unwatch ends c's watching.
func (r *Round) Unwatch(c Link) bool {
	return r.post(func(l *loop) error {
		delete(l.watchers, c)
		return nil
	})
}

// Subscribe adds ch as a subscriber of the round's events: who, if it
// plays a seat, is there while it follows (a person with the game open
// is not "gone"); a zero who is a spectator.
func (r *Round) Subscribe(ctx context.Context, ch chan Event, who core.Actor) error {
	return r.send(ctx, func(l *loop) error {
		if l.g.Over() {
			return kalah.ErrGameOver
		}
		seat := -1
		if who.ID.IsZero() && who.Token == "" {
			// a spectator
		} else if i, err := l.seatOf(who); err == nil {
			seat = i
		}
		l.subscribe(ch, seat)
		return nil
	})
}

// Unsubscribe removes the subscriber ch and closes its channel; it
// reports false if the round has ended (and closed every channel).
func (r *Round) Unsubscribe(ch chan Event) bool {
	return r.post(func(l *loop) error {
		l.unsubscribe(ch)
		return nil
	})
}

// seatOf returns the person's seat a plays: the one its token moves, or
// the one its identity holds (the seat to move, if it holds both).
func (l *loop) seatOf(a core.Actor) (int, error) {
	found := -1
	for i, st := range l.seats {
		if !st.Human || st.St.Open {
			continue
		}
		if HashIs(st.St.TokenHash, a.Token) {
			return i, nil
		}
		if a.ID.Is(st.St.ID) && (found < 0 || i == l.mover()) {
			found = i
		}
	}
	if found < 0 {
		return 0, fmt.Errorf("%w: you have no seat in game %d", core.ErrForbidden, l.r.id)
	}
	return found, nil
}

// takeBack takes back seat's last move and all after it.
func (l *loop) takeBack(seat int) error {
	if !MovedBy(l.g, l.opening, seat) {
		return kalah.ErrNoUndo
	}
	// Undo on a copy first: the game changes only once the store has.
	c := l.g.Clone()
	var taken []string
	poppedMine := false
	for c.Len() > l.opening {
		last, _ := c.Last()
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
	ply, what := c.Len(), strings.Join(taken, " ")
	write := func() error { return l.host.TakeBack(context.WithoutCancel(l.ctx), l.r.id, ply, what) }
	if err := l.retry(write(), write); err != nil {
		return err
	}
	for l.g.Len() > c.Len() {
		if err := l.g.Undo(); err != nil {
			return err
		}
	}
	l.millis = slices.Clone(l.millis[:l.g.Len()]) // views share the old one (publish)
	tb := fmt.Sprintf("%d: %s", ply, what)
	if l.tags[store.TakebackTag] != "" {
		tb = l.tags[store.TakebackTag] + "; " + tb
	}
	l.tags[store.TakebackTag] = tb
	l.tagsChanged = true
	// The clocks stand as the moves left say.
	if l.ref.Budget > 0 {
		l.ref.Spent = Spent(l.g, l.millis, l.ref.Budget, l.ref.Increment)
		l.clocks = l.ref.Clocks()
		for i, d := range Given(l.tags) {
			l.clocks.Give(i, d)
		}
	}
	l.nextTurn()
	// No pause after a takeback, and no draw offered in a position gone.
	l.askAt = time.Now()
	l.draw.lapse()
	l.broadcast(line.State(l.g.Position()))
	l.publishEvent(Event{Kind: "takeback", Ply: l.g.Len(), Position: l.g.Position().String()})
	return nil
}

func (l *loop) join(a core.Actor, invite string) (int, string, error) {
	for i, st := range l.seats {
		if !st.Human || !st.St.Open {
			continue
		}
		switch {
		case st.St.InviteHash != "" && HashIs(st.St.InviteHash, invite):
		case !st.St.ID.IsZero() && st.St.ID.Is(a.ID):
		default:
			continue
		}
		if other := l.seats[1-i].St.ID; other.Is(a.ID) && st.St.ID.IsZero() {
			return 0, "", fmt.Errorf("%w: this is your own game: send the link to the person you invite", core.ErrForbidden)
		}
		if st.St.ID.IsZero() && (a.ID.Kind == identity.Person || a.ID.Kind == identity.Guest) {
			// The one who takes an invitation's seat is counted from now.
			if err := l.r.ticket.Join(gate.Party{Who: a.ID.Key(), Addr: a.Addr, Person: true, Guest: a.ID.Kind == identity.Guest}); err != nil {
				if errors.Is(err, gate.ErrFull) {
					err = fmt.Errorf("%w (%w)", err, core.ErrBusy)
				}
				return 0, "", err
			}
		}
		return l.take(i, a.ID)
	}
	return 0, "", fmt.Errorf("game %d: %w for you (an invitation's link gives its seat to the first who opens it)", l.r.id, core.ErrNoSeat)
}

// take gives open seat i to who and returns a token that moves it too.
// A game asked to be rated is rated from now if its players may be.
func (l *loop) take(i int, who identity.ID) (int, string, error) {
	st := l.seats[i]
	token, hash := NewToken()
	seats := [2]store.Seat{l.seats[0].St, l.seats[1].St}
	seats[i].ID, seats[i].TokenHash, seats[i].Open, seats[i].InviteHash = who, hash, false, ""
	seats[i].Name = DisplayName(seats[i])
	write := func() error { return l.host.SetSeats(context.WithoutCancel(l.ctx), l.r.id, seats) }
	if err := l.retry(write(), write); err != nil {
		return 0, "", err
	}
	st.St = seats[i]
	st.since = time.Now()
	l.g.Players[i] = seats[i].Name // the record names who took the seat
	if ids := [2]identity.ID{seats[0].ID, seats[1].ID}; l.tags[core.TagRatedAsked] == "yes" && l.host.Ratable(l.ctx, ids) {
		// At most so many rated games a pair a day (the Host's ReserveRated).
		ok, n, release := l.host.ReserveRated(l.ctx, ids)
		defer release()
		tag, value := core.TagRated, "yes"
		if !ok {
			tag, value = core.TagRatedLimit, strconv.Itoa(n)
		}
		write := func() error { return l.host.SetTag(context.WithoutCancel(l.ctx), l.r.id, tag, value) }
		if err := l.retry(write(), write); err != nil {
			return 0, "", err
		}
		l.tags[tag] = value
		l.tagsChanged = true
	}
	l.publishEvent(Event{Kind: "join", Seat: i, Ply: l.g.Len(), Position: l.g.Position().String()})
	return i, token, nil
}

// botMove plays the move (or the resignation) of the bot connected by c.
// A bot's illegal move loses the game at once.
func (l *loop) botMove(c Link, resign bool, m kalah.Move, read time.Time) error {
	seat := -1
	for i, st := range l.seats {
		if st.Bot && st.conn == c {
			seat = i
		}
	}
	switch {
	case seat < 0:
		return core.ErrForbidden
	case l.g.Over():
		return kalah.ErrGameOver
	case resign:
		l.forfeit(seat, fmt.Errorf("%w: %s resigned", player.ErrResigned, l.seats[seat].St.Name))
		return nil
	case l.mover() != seat || !l.asked:
		return core.ErrNotYourTurn
	case !l.g.IsLegal(m):
		c.SendMsg(line.Errorf(line.CodeIllegal, "%s", IllegalWhy(l.g, m))) // named before the end it brings
		l.forfeit(seat, fmt.Errorf("%w: %s by %s in %s", kalah.ErrIllegalMove, m, l.g.ToMove(), l.g.Position()))
		return nil
	}
	l.readAt = read
	if err := l.play(seat, m); err != nil && l.halted == nil {
		l.readAt = time.Time{}
		return err
	}
	return nil // or the game stops for its store, which both bots are told
}

// endLeft ends a game whose guest has left it, for another guest of the
// address to play: the one who left loses if they had moved, else the
// game is aborted (it counts for no one).
func (l *loop) endLeft() {
	if l.g.Over() || l.ended {
		return
	}
	for i, st := range l.seats {
		if !st.Human || st.present || st.St.ID.Kind != identity.Guest {
			continue
		}
		if !MovedBy(l.g, l.opening, i) {
			l.end(func(g *kalah.Game) error { return g.Abort() }, fmt.Sprintf("Aborted: %s left the game, and another guest of their address needed its place", st.St.Name))
			return
		}
		l.forfeit(i, fmt.Errorf("%w: %s left the game, and another guest of their address needed its place", player.ErrDisconnected, st.St.Name))
		return
	}
}

// NewToken returns a fresh secret (128 bits) and its stored hash.
func NewToken() (token, hash string) {
	b := make([]byte, 16)
	rand.Read(b)
	token = hex.EncodeToString(b)
	return token, TokenHash(token)
}

// TokenHash is the stored hash of a secret.
func TokenHash(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// HashIs reports whether secret hashes to hash, in constant time.
func HashIs(hash, secret string) bool {
	return secret != "" && hash != "" && subtle.ConstantTimeCompare([]byte(hash), []byte(TokenHash(secret))) == 1
}

// DisplayName is the name a person's seat shows: its identity's, or
// "Anonymous" for a seat taken without one; "" while open for anyone.
func DisplayName(st store.Seat) string {
	switch {
	case !st.ID.IsZero():
		return st.ID.Display()
	case st.Open:
		return ""
	}
	return "Anonymous"
}
