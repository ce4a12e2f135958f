// Package gamelink plays one of our players against a bot on the original
// GameLink platform (mysteryhobo/GameLink, a Java peer-to-peer Kalah system
// for students): player 1 listens on the first free port of 10007-10014,
// player 2 connects, and the two engines exchange lines.
//
// The wire, as GameLink's engine speaks it (lines end in LF, or CRLF from
// Windows):
//
//	player 1: 3:7:2             seeds, houses+1, rows: the rules handshake
//	player 2: valid             or invalid, and both give up
//	mover:    4:[0, 3, ...]|[3, 3, ...]:[...]|[...]:1:false
//	          move:old board:new board:player to move next:game over
//	          with both boards turned to the receiver's view
//	receiver: valid             or invalid when its replay disagrees
//	mover:    timeout, error or invalid:<move> instead of a move when its
//	          algorithm fails; it loses and the board goes to the winner
//
// Peer verifies every board the other side sends against its own replay
// of the move and answers invalid to any disagreement, which loses the game
// for the peer. See docs/protocols/gamelink.md.
package gamelink

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"time"

	"kalah"
	"kalah/player"
)

// The ports GameLink tries, in order.
const (
	FirstPort = 10007
	LastPort  = 10014
)

// maxLine bounds a message: a move on the largest board is far shorter.
const maxLine = 4096

// Errors returned by Peer.Play.
var (
	// ErrMismatch: the two sides' rules differ (the handshake failed).
	ErrMismatch = errors.New("gamelink: rules differ from the peer's")
	// ErrRejected: the peer answered invalid to one of our moves, which
	// GameLink reads as tampering: both sides lose.
	ErrRejected = errors.New("gamelink: the peer rejected our move")
)

// Peer plays one game of GameLink Kalah for Player over a connection.
type Peer struct {
	// Player chooses our moves.
	Player player.Player
	// Number is 1 (moves first; the side that listens) or 2.
	Number int
	// Rules must be GameLink's: the gamelink preset, with any number of
	// houses up to 9 and of seeds.
	Rules kalah.Rules
	// MoveTime is GameLink's MoveTimeLimit for our player (default 30s). A
	// player that takes longer loses on time, and the peer is told.
	MoveTime time.Duration
	// Delay is GameLink's MoveDelay, a pause before each of our moves.
	Delay time.Duration
	// PeerTime is how long we wait for the peer's move before it loses on
	// time (default MoveTime plus 30s, room for the peer's own MoveDelay).
	PeerTime time.Duration
	// Names are the players' names for the game record, by player number
	// less one.
	Names [2]string
	// Logger receives each move; nil means slog.Default().
	Logger *slog.Logger
}

func (p *Peer) logger() *slog.Logger {
	if p.Logger != nil {
		return p.Logger
	}
	return slog.Default()
}

// CheckRules reports whether r is a rule set GameLink can play.
func CheckRules(r kalah.Rules) error {
	switch {
	case r.Validate() != nil:
		return r.Validate()
	case r.Houses > MaxHouses:
		return fmt.Errorf("%w: GameLink sends a move as one digit, so at most %d houses (not %d)", kalah.ErrInvalidRules, MaxHouses, r.Houses)
	case r.First != kalah.South || r.Pie || r.EarlyEnd || r.EmptyCapture || r.End != kalah.EitherEmpty || !r.SowOpponentStore:
		return fmt.Errorf("%w: GameLink plays the gamelink rules (player 1 first, sowing into both stores, standard capture and end), not %s", kalah.ErrInvalidRules, r)
	}
	return nil
}

// conn is a line connection with read deadlines.
type conn struct {
	c net.Conn
	r *bufio.Reader
}

func (c *conn) send(s string) error {
	c.c.SetWriteDeadline(time.Now().Add(10 * time.Second))
	_, err := io.WriteString(c.c, s+"\n")
	return err
}

// read returns the next line; it fails after d (zero: no limit).
func (c *conn) read(d time.Duration) (string, error) {
	if d > 0 {
		c.c.SetReadDeadline(time.Now().Add(d))
	} else {
		c.c.SetReadDeadline(time.Time{})
	}
	var b []byte
	for {
		chunk, err := c.r.ReadSlice('\n')
		b = append(b, chunk...)
		if len(b) > maxLine {
			return "", fmt.Errorf("%w: line longer than %d bytes", ErrSyntax, maxLine)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil {
			return "", err
		}
		s := strings.TrimSuffix(string(b), "\n")
		return strings.TrimSuffix(s, "\r"), nil
	}
}

// Play plays one game over nc, from the rules handshake to the last move,
// and closes nc. The game is returned whenever play started, finished or
// forfeited (a peer that breaks the protocol, vanishes or runs out of time
// loses); the error reports a failed handshake, a rejection of our move
// (ErrRejected) or ctx ending.
func (p *Peer) Play(ctx context.Context, nc net.Conn) (*kalah.Game, error) {
	defer nc.Close()
	stop := context.AfterFunc(ctx, func() { nc.SetDeadline(time.Now()) })
	defer stop()
	if p.Number != 1 && p.Number != 2 {
		return nil, fmt.Errorf("gamelink: player number %d (want 1 or 2)", p.Number)
	}
	if err := CheckRules(p.Rules); err != nil {
		return nil, err
	}
	c := &conn{c: nc, r: bufio.NewReaderSize(nc, 512)}
	r := p.Rules
	hello := fmt.Sprintf("%d:%d:2", r.Seeds, r.Houses+1)
	if p.Number == 1 {
		if err := c.send(hello); err != nil {
			return nil, p.ioErr(ctx, err)
		}
		reply, err := c.read(p.peerTime())
		if err != nil {
			return nil, p.ioErr(ctx, err)
		}
		if reply != "valid" {
			return nil, fmt.Errorf("%w: we sent %s, the peer answered %q", ErrMismatch, hello, clip(reply))
		}
	} else {
		got, err := c.read(p.peerTime())
		if err != nil {
			return nil, p.ioErr(ctx, err)
		}
		if got != hello {
			c.send("invalid")
			return nil, fmt.Errorf("%w: the peer sent %q, we play %s", ErrMismatch, clip(got), hello)
		}
		if err := c.send("valid"); err != nil {
			return nil, p.ioErr(ctx, err)
		}
	}

	g, err := kalah.NewGame(r)
	if err != nil {
		return nil, err
	}
	g.Players = p.Names
	e := newEngine(r.Houses, r.Seeds)
	me := kalah.South
	if p.Number == 2 {
		me = kalah.North
	}
	for !g.Over() {
		var err error
		if g.ToMove() == me {
			err = p.ourMove(ctx, c, g, e, me)
		} else {
			err = p.theirMove(ctx, c, g, e, me)
		}
		if err != nil {
			return g, err
		}
	}
	return g, nil
}

func (p *Peer) moveTime() time.Duration {
	if p.MoveTime > 0 {
		return p.MoveTime
	}
	return 30 * time.Second
}

func (p *Peer) peerTime() time.Duration {
	if p.PeerTime > 0 {
		return p.PeerTime
	}
	return p.moveTime() + 30*time.Second
}

func (p *Peer) ioErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return fmt.Errorf("gamelink: %w", err)
}

// number returns the GameLink player number playing side s.
func number(s kalah.Side) int { return int(s) + 1 }

// ourMove asks our player for a move and sends it, or sends why there is
// none.
func (p *Peer) ourMove(ctx context.Context, c *conn, g *kalah.Game, e *engine, me kalah.Side) error {
	if p.Delay > 0 {
		t := time.NewTimer(p.Delay)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		}
	}
	m, err := p.ask(ctx, g)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil {
		msg, term := "error", kalah.Crash
		if errors.Is(err, context.DeadlineExceeded) {
			msg, term = "timeout", kalah.Timeout
		}
		p.logger().Info("gamelink: our player failed", "err", err)
		c.send(msg)
		g.Forfeit(me, term)
		return nil
	}
	if m == kalah.Swap || !e.legal(me, int(m)) || !g.IsLegal(m) {
		c.send("invalid:" + m.String())
		g.Forfeit(me, kalah.IllegalMove)
		return nil
	}
	old := e.view(me.Other())
	again := e.sow(me, int(m))
	eff, err := g.Play(m)
	if err != nil {
		return err
	}
	if err := p.check(g, e, eff); err != nil {
		return err
	}
	next := me.Other()
	if again {
		next = me
	}
	msg := Move{House: int(m), Old: old, New: e.view(me.Other()), Turn: number(next), Over: e.over()}
	p.logger().Debug("gamelink: we move", "msg", msg.String())
	if err := c.send(msg.String()); err != nil {
		return p.ioErr(ctx, err)
	}
	reply, err := c.read(p.peerTime())
	switch {
	case err != nil:
		// The move stands; the peer went away before confirming it.
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if !g.Over() {
			g.Forfeit(me.Other(), kalah.Disconnect)
		}
		return nil
	case reply == "valid":
		return nil
	case reply == "invalid":
		return fmt.Errorf("%w: %s", ErrRejected, msg)
	}
	if !g.Over() {
		g.Forfeit(me.Other(), kalah.ProtocolError)
	}
	return nil
}

// ask runs our player under the move time limit.
func (p *Peer) ask(ctx context.Context, g *kalah.Game) (kalah.Move, error) {
	limit := p.moveTime()
	mctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	type answer struct {
		m   kalah.Move
		err error
	}
	ch := make(chan answer, 1)
	go func() {
		defer func() {
			if v := recover(); v != nil {
				ch <- answer{err: fmt.Errorf("%w: panic: %v", player.ErrCrashed, v)}
			}
		}()
		m, err := p.Player.Move(mctx, g.Clone(), player.Clock{PerMove: limit})
		ch <- answer{m, err}
	}()
	select {
	case a := <-ch:
		if a.err == nil && mctx.Err() != nil {
			return kalah.NoMove, context.DeadlineExceeded
		}
		return a.m, a.err
	case <-mctx.Done():
		return kalah.NoMove, context.DeadlineExceeded
	}
}

// check makes sure our two models of the board agree: the engine's
// unswept board and the game's position.
func (p *Peer) check(g *kalah.Game, e *engine, eff kalah.Effect) error {
	if eff&kalah.End != 0 != e.over() {
		return fmt.Errorf("gamelink: internal error: the engine and the rules disagree on the end after %v", g.Moves())
	}
	if eff&kalah.End != 0 {
		return nil
	}
	pos := g.Position()
	for s := kalah.South; s <= kalah.North; s++ {
		for h := 1; h <= e.n; h++ {
			if pos.House(s, h) != e.pits[int(s)*(e.n+1)+h-1] {
				return fmt.Errorf("gamelink: internal error: the engine and the rules disagree after %v", g.Moves())
			}
		}
		if pos.Store(s) != e.pits[e.store(s)] {
			return fmt.Errorf("gamelink: internal error: the engine and the rules disagree after %v", g.Moves())
		}
	}
	return nil
}

// theirMove reads the peer's move, checks it against our own replay and
// answers valid or invalid.
func (p *Peer) theirMove(ctx context.Context, c *conn, g *kalah.Game, e *engine, me kalah.Side) error {
	them := me.Other()
	line, err := c.read(p.peerTime())
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		var ne net.Error
		switch {
		case errors.Is(err, ErrSyntax):
			c.send("invalid")
			g.Forfeit(them, kalah.ProtocolError)
		case errors.As(err, &ne) && ne.Timeout():
			g.Forfeit(them, kalah.Timeout)
		default:
			g.Forfeit(them, kalah.Disconnect)
		}
		p.logger().Info("gamelink: no move from the peer", "err", err)
		return nil
	}
	switch {
	case line == "timeout":
		g.Forfeit(them, kalah.Timeout)
		return nil
	case line == "error":
		g.Forfeit(them, kalah.Crash)
		return nil
	case strings.HasPrefix(line, "invalid"):
		g.Forfeit(them, kalah.IllegalMove)
		return nil
	}
	reject := func(t kalah.Termination, why string) error {
		p.logger().Info("gamelink: rejecting the peer's move", "move", clip(line), "why", why)
		c.send("invalid")
		g.Forfeit(them, t)
		return nil
	}
	msg, err := ParseMove(line, e.n)
	if err != nil {
		return reject(kalah.ProtocolError, err.Error())
	}
	if !msg.Old.Equal(e.view(me)) {
		return reject(kalah.ProtocolError, "the board before the move is not ours: "+e.view(me).String())
	}
	if !e.legal(them, msg.House) || !g.IsLegal(kalah.Move(msg.House)) {
		return reject(kalah.IllegalMove, "house "+strconv.Itoa(msg.House)+" cannot be played")
	}
	after := e.clone()
	again := after.sow(them, msg.House)
	next := me
	if again {
		next = them
	}
	switch {
	case !msg.New.Equal(after.view(me)):
		return reject(kalah.ProtocolError, "the board after the move should be "+after.view(me).String())
	case msg.Turn != number(next):
		return reject(kalah.ProtocolError, "the wrong player moves next")
	case msg.Over != after.over():
		return reject(kalah.ProtocolError, "the game-over flag is wrong")
	}
	*e = *after
	eff, err := g.Play(kalah.Move(msg.House))
	if err != nil {
		return err
	}
	if err := p.check(g, e, eff); err != nil {
		return err
	}
	if err := c.send("valid"); err != nil && !g.Over() {
		g.Forfeit(them, kalah.Disconnect)
	}
	return nil
}

// Listen listens as player 1 on addr's host: on addr's port if it has one
// other than 0, else on the first free port from 10007 to 10014 as GameLink
// does.
func Listen(ctx context.Context, addr string) (net.Listener, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		host, port = addr, ""
	}
	var lc net.ListenConfig
	if port != "" && port != "0" {
		return lc.Listen(ctx, "tcp", net.JoinHostPort(host, port))
	}
	var last error
	for p := FirstPort; p <= LastPort; p++ {
		l, err := lc.Listen(ctx, "tcp", net.JoinHostPort(host, strconv.Itoa(p)))
		if err == nil {
			return l, nil
		}
		last = err
	}
	return nil, fmt.Errorf("gamelink: no free port from %d to %d: %w", FirstPort, LastPort, last)
}

// Dial connects as player 2 to addr: to its port if it has one, else to the
// first of 10007-10014 that answers, as GameLink does.
func Dial(ctx context.Context, addr string) (net.Conn, error) {
	var d net.Dialer
	if _, _, err := net.SplitHostPort(addr); err == nil {
		return d.DialContext(ctx, "tcp", addr)
	}
	var last error
	for p := FirstPort; p <= LastPort; p++ {
		c, err := d.DialContext(ctx, "tcp", net.JoinHostPort(addr, strconv.Itoa(p)))
		if err == nil {
			return c, nil
		}
		last = err
	}
	return nil, fmt.Errorf("gamelink: nobody listening on %s ports %d to %d: %w", addr, FirstPort, LastPort, last)
}
