package round

import (
	"errors"
	"fmt"

	"kalah"
	"kalah/protocol/line"
	"kalah/server/core"
)

// Draws by agreement: either player of a game between people, or between
// a person and a bot of our line protocol, or two such bots, offers a
// draw; the other accepts (the game ends a draw, "Draw by agreement",
// rated as a draw where the game is rated) or declines; the one who
// offered may cancel. An offer stands until it is answered or withdrawn,
// or until the player it was made to moves (declining it by playing on),
// or a takeback changes the position. KGP and Manchester players have no
// word for a draw (docs/PROTOCOL.md): they are never offered one.

// The actions of POST /api/games/{id}/draw and of the line protocol's
// draw message.
const (
	DrawOffer   = "offer"
	DrawAccept  = "accept"
	DrawDecline = "decline"
	DrawCancel  = "cancel"
)

// Errors of draw offers, matched with errors.Is.
var (
	// ErrNoOffer refuses to accept, decline or cancel a draw offer that
	// does not stand.
	ErrNoOffer = errors.New("no draw offer standing")
	// ErrNoDraw refuses a draw offer the game cannot take: to a computer
	// or a player whose protocol cannot answer it, or before both sides
	// have moved (abort instead).
	ErrNoDraw = errors.New("no draw can be offered")
)

// drawOffer is a round's draw negotiation: who offers, if anyone. Its
// loop owns it, as it owns everything of the round.
type drawOffer struct {
	by int // the seat offering; -1: none
}

func newDrawOffer() drawOffer { return drawOffer{by: -1} }

// lapse withdraws the offer standing, if any.
func (d *drawOffer) lapse() { d.by = -1 }

// moved lapses an offer made to seat, which plays on instead of
// answering.
func (d *drawOffer) moved(seat int) {
	if d.by == 1-seat {
		d.by = -1
	}
}

// canAnswer reports whether st can be offered a draw: a person, or a bot
// of our protocol.
func canAnswer(st *Seat) bool { return st.Human || st.Bot }

// drawAction is Draw in the round's loop, for seat (a person's or a bot's).
func (l *loop) drawAction(seat int, action string) error {
	if l.g.Over() {
		return kalah.ErrGameOver
	}
	opp := l.seats[1-seat]
	tell := func(kind string) {
		l.broadcast(line.Msg{Cmd: "draw", Args: []string{kind, l.g.PlayerSide(seat).Letter()}})
		l.publishEvent(Event{Kind: "draw-" + kind, Seat: seat, Ply: l.g.Len(), Position: l.g.Position().String()})
	}
	switch action {
	case DrawOffer:
		switch {
		case !canAnswer(opp):
			return fmt.Errorf("%w: %s plays on (a draw is offered to a person, or a bot of kalah's line protocol)", ErrNoDraw, opp.St.Name)
		case !l.bothMoved():
			return fmt.Errorf("%w: both sides have not moved yet; abort the game instead", ErrNoDraw)
		case l.draw.by == 1-seat:
			return l.agreeDraw()
		case l.draw.by == seat:
			return nil // offered already
		}
		l.draw.by = seat
		tell(DrawOffer)
	case DrawAccept:
		if l.draw.by != 1-seat {
			return fmt.Errorf("%w: %s has not offered you a draw", ErrNoOffer, opp.St.Name)
		}
		return l.agreeDraw()
	case DrawDecline:
		if l.draw.by != 1-seat {
			return fmt.Errorf("%w: %s has not offered you a draw", ErrNoOffer, opp.St.Name)
		}
		l.draw.lapse()
		tell(DrawDecline)
	case DrawCancel:
		if l.draw.by != seat {
			return fmt.Errorf("%w: you have not offered a draw", ErrNoOffer)
		}
		l.draw.lapse()
		tell(DrawCancel)
	default:
		return fmt.Errorf("%w: draw action %q: want offer, accept, decline or cancel", core.ErrBadRequest, action)
	}
	return nil
}

// agreeDraw ends the game as a draw both players agreed.
func (l *loop) agreeDraw() error {
	l.draw.lapse()
	l.end(func(g *kalah.Game) error { return g.AgreeDraw() }, "Draw by agreement")
	if !l.g.Over() {
		return errors.New("the draw could not be recorded")
	}
	return nil
}
