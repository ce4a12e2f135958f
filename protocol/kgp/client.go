package kgp

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"

	"kalah"
	"kalah/player"
)

// Client is a bot connected to the Server. It is a player.Player: Move
// sends it the board and waits for its answer.
type Client struct {
	srv *Server
	t   transport

	done      chan struct{}
	closeOnce sync.Once
	modeCh    chan Command
	wg        sync.WaitGroup

	mu          sync.Mutex
	name        string
	authors     string
	description string
	comment     string
	mode        string
	errors      int
	nextID      uint64
	req         *request
	seat        int // the seat the client plays, known once seated
	seatKnown   bool
	bye         bool
	token       string // the auth:token the client set, if any
	forget      bool   // the client set auth:forget
	identity    string // the name its token logs it in as; empty: anonymous
	randoms     int    // moves in a row chosen at random for the client
	told        bool   // the result of its game has been sent
	modeID      uint64 // the id of its mode command, once it was told ok

	seen atomic.Int64 // when the client last sent a line, in Unix nanoseconds
}

// request is a state sent to the client and awaiting its moves.
type request struct {
	id      uint64
	move    kalah.Move
	has     bool
	raw     int64  // the house the client named, as sent
	moveID  uint64 // the id of the move command, if it had one
	yielded chan struct{}
	yield   bool
}

func newClient(s *Server, t transport, name string) *Client {
	return &Client{srv: s, t: t, name: name, done: make(chan struct{}), modeCh: make(chan Command, 1)}
}

// Identity returns the bot account the client logged in as with
// auth:token, or "" for an anonymous client, whose name is only a label.
func (c *Client) Identity() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.identity
}

// Seated tells the client which seat (0 or 1) it plays in its game, so it
// can hear the result even if it is never asked to move.
func (c *Client) Seated(seat int) {
	c.mu.Lock()
	c.seat, c.seatKnown = seat, true
	c.mu.Unlock()
}

// Name returns the name the client gave with "set info:name", or a
// generated one ("kgp-7").
func (c *Client) Name() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.name
}

// Authors returns what the client sent with "set info:authors".
func (c *Client) Authors() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.authors
}

// Description returns what the client sent with "set info:description".
func (c *Client) Description() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.description
}

// Comment returns the client's last "set info:comment", its own account of
// its latest move.
func (c *Client) Comment() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.comment
}

// Remote returns the client's network address.
func (c *Client) Remote() string { return c.t.remote() }

// Done returns a channel closed when the connection ends.
func (c *Client) Done() <-chan struct{} { return c.done }

// Close says goodbye and ends the connection.
func (c *Client) Close() error {
	c.goodbye()
	c.close()
	return nil
}

func (c *Client) close() {
	c.closeOnce.Do(func() {
		close(c.done)
		c.t.close()
	})
}

// wait waits for the connection's goroutines.
func (c *Client) wait() { c.wg.Wait() }

func (c *Client) closed() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

func (c *Client) id() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	// Server ids are even (2, 4, 6, ...) as the reference server's, so they
	// never meet the odd ids clients conventionally use, and none is reused.
	c.nextID += 2
	return c.nextID
}

// send writes a command; a failed write ends the connection.
func (c *Client) send(cmd Command) error {
	if c.closed() {
		return player.ErrDisconnected
	}
	if err := c.t.writeLine(cmd.String(), c.srv.writeTimeout()); err != nil {
		c.close()
		return fmt.Errorf("%w: %v", player.ErrDisconnected, err)
	}
	return nil
}

func (c *Client) goodbye() {
	c.mu.Lock()
	bye := c.bye
	c.bye = true
	c.mu.Unlock()
	if !bye {
		c.send(Command{ID: c.id(), Name: "goodbye"})
	}
}

// readLoop reads and handles the client's commands until the connection
// ends.
func (c *Client) readLoop() {
	defer c.wg.Done()
	defer c.close()
	for {
		// No read deadline: a WebSocket closes when one passes, and a
		// client that idles is told why first (idleWatch).
		line, err := c.t.readLine(0)
		c.seen.Store(time.Now().UnixNano())
		if errors.Is(err, errLineTooLong) || errors.Is(err, errBinary) {
			msg := "line too long"
			if errors.Is(err, errBinary) {
				msg = "binary message: commands are text"
			}
			if !c.reject(0, msg) {
				return
			}
			continue
		}
		if err != nil {
			return
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		cmd, err := Parse(line)
		if err != nil {
			if !c.reject(leadingID(line), err.Error()) {
				return
			}
			continue
		}
		if !c.handle(cmd) {
			return
		}
	}
}

// reject answers a bad command with an error and reports whether the
// client may go on.
func (c *Client) reject(ref uint64, msg string) bool {
	c.mu.Lock()
	c.errors++
	tooMany := c.errors > c.srv.maxErrors()
	c.mu.Unlock()
	if tooMany {
		c.send(Command{ID: c.id(), Ref: ref, Name: "error", Args: []Arg{Str("too many errors: " + msg)}})
		c.goodbye()
		return false
	}
	return c.send(Command{ID: c.id(), Ref: ref, Name: "error", Args: []Arg{Str(msg)}}) == nil
}

// Refuse tells a client the server will not seat it why, with an error
// referencing its mode command, then says goodbye (spec 013): for a Join
// that cannot place it. Nothing more is sent on the connection.
func (c *Client) Refuse(reason string) {
	c.mu.Lock()
	ref := c.modeID
	c.mu.Unlock()
	c.refuse(ref, reason)
}

// refuse answers cmd with an error giving the reason, then says goodbye:
// the client may not go on.
func (c *Client) refuse(ref uint64, msg string) bool {
	c.send(Command{ID: c.id(), Ref: ref, Name: "error", Args: []Arg{Str(msg)}})
	c.goodbye()
	return false
}

// leadingID returns the id a malformed line starts with, if any, so the
// error can reference it.
func leadingID(line string) uint64 {
	line = strings.TrimLeft(line, " \t")
	i := 0
	for i < len(line) && isDigit(line[i]) {
		i++
	}
	if i == 0 || i > 18 {
		return 0
	}
	id, _ := strconv.ParseUint(line[:i], 10, 64)
	return id
}

// handle acts on one command and reports whether to go on reading.
func (c *Client) handle(cmd Command) bool {
	switch cmd.Name {
	case "mode":
		if len(cmd.Args) != 1 {
			return c.reject(cmd.ID, "mode takes one argument")
		}
		c.mu.Lock()
		chosen := c.mode != ""
		if !chosen {
			c.mode = cmd.Args[0].String()
		}
		c.mu.Unlock()
		if chosen {
			return c.reject(cmd.ID, "mode already chosen")
		}
		c.modeCh <- cmd
	case "set":
		if len(cmd.Args) < 1 {
			return c.reject(cmd.ID, "usage: set <option> <value>")
		}
		val := ""
		if len(cmd.Args) > 1 {
			val = cmd.Args[1].String()
		}
		// Unknown or odd options must not end the connection (013).
		return c.set(cmd, cmd.Args[0].String(), val)
	case "ping":
		return c.send(Command{Ref: cmd.ID, Name: "pong"}) == nil
	case "pong", "ok", "error":
		// Liveness is noted by any line arriving; responses need no action.
	case "move":
		if cmd.Ref == 0 || len(cmd.Args) != 1 || cmd.Args[0].Kind != Integer {
			return c.reject(cmd.ID, "usage: @<state id> move <house>")
		}
		raw := cmd.Args[0].Int
		m := raw
		if m < 0 || m > 1000 {
			m = 0 // never a house: the referee rejects it as illegal
		}
		c.mu.Lock()
		if r := c.req; r != nil && r.id == cmd.Ref && !r.yield {
			r.move, r.has, r.raw, r.moveID = kalah.Move(m), true, raw, cmd.ID
		}
		c.mu.Unlock()
	case "yield":
		c.mu.Lock()
		if r := c.req; r != nil && r.id == cmd.Ref && !r.yield {
			r.yield = true
			close(r.yielded)
		}
		c.mu.Unlock()
	case "goodbye":
		c.mu.Lock()
		c.bye = true
		c.mu.Unlock()
		return false
	default:
		return c.reject(cmd.ID, "unknown command "+cmd.Name)
	}
	return true
}

// maxInfo bounds the info strings a client may set.
const maxInfo = 256

// maxToken bounds an auth:token; minToken is the shortest the server
// takes as secure enough (043 lets a server refuse weak tokens).
const (
	minToken = 8
	maxToken = 128
)

// set acts on one option and reports whether the client may go on.
func (c *Client) set(cmd Command, key, val string) bool {
	switch key {
	case "auth:token":
		c.mu.Lock()
		late := c.mode != ""
		c.mu.Unlock()
		switch {
		case late:
			return c.refuse(cmd.ID, "auth:token must be set before mode: the server seats a client as the identity it has when it asks to play")
		case len(val) < minToken:
			return c.refuse(cmd.ID, fmt.Sprintf("auth:token too short: use at least %d characters (a random string)", minToken))
		case len(val) > maxToken:
			return c.refuse(cmd.ID, fmt.Sprintf("auth:token too long: at most %d characters", maxToken))
		}
		c.mu.Lock()
		c.token = val
		c.mu.Unlock()
		return true
	case "auth:forget":
		c.mu.Lock()
		c.forget = true
		c.mu.Unlock()
		return true
	}
	val = clean(val, maxInfo)
	c.mu.Lock()
	defer c.mu.Unlock()
	switch key {
	case "info:name":
		if n := clean(val, 64); n != "" {
			c.name = n
		}
	case "info:authors":
		c.authors = val
	case "info:description":
		c.description = val
	case "info:comment":
		c.comment = val
	}
	return true
}

// clean drops control characters and cuts s to at most n runes.
func clean(s string, n int) string {
	var b strings.Builder
	for _, r := range s {
		if n == 0 {
			break
		}
		if unicode.IsControl(r) || r == unicode.ReplacementChar {
			continue
		}
		b.WriteRune(r)
		n--
	}
	return strings.TrimSpace(b.String())
}

// idleWatch tells a client that has sent nothing for the idle timeout
// why it is dropped (013: error, then goodbye) and closes the connection.
func (c *Client) idleWatch() {
	defer c.wg.Done()
	idle := c.srv.idleTimeout()
	t := time.NewTimer(idle)
	defer t.Stop()
	for {
		select {
		case <-c.done:
			return
		case <-t.C:
			quiet := time.Since(time.Unix(0, c.seen.Load()))
			if quiet < idle {
				t.Reset(idle - quiet)
				continue
			}
			c.send(Command{ID: c.id(), Name: "error", Args: []Arg{Str(fmt.Sprintf("idle for %v: closing the connection", idle.Round(time.Millisecond)))}})
			c.goodbye()
			c.close()
			return
		}
	}
}

// pingLoop pings the client so that a silent one is found out by the idle
// timeout.
func (c *Client) pingLoop() {
	defer c.wg.Done()
	t := time.NewTicker(c.srv.pingInterval())
	defer t.Stop()
	for {
		select {
		case <-c.done:
			return
		case <-t.C:
			if c.send(Command{ID: c.id(), Name: "ping"}) != nil {
				return
			}
		}
	}
}

// Move sends the client the position, from its own view as South, and
// returns the last move it sent for it when it yields or the time is up.
// A position with a single legal house move is played without asking
// unless Server.SendForced. KGP cannot express the pie rule's swap, so a
// KGP client never swaps.
func (c *Client) Move(ctx context.Context, g *kalah.Game, clock player.Clock) (kalah.Move, error) {
	if c.closed() {
		return kalah.NoMove, fmt.Errorf("%w: %s went away", player.ErrDisconnected, c.Name())
	}
	pos := g.Position()
	var houses []kalah.Move
	for _, m := range pos.Moves() {
		if m != kalah.Swap {
			houses = append(houses, m)
		}
	}
	c.Seated(g.Seat(pos.ToMove()))
	if len(houses) == 1 && !c.srv.SendForced {
		return houses[0], nil
	}
	view := pos
	if pos.ToMove() == kalah.North {
		view = pos.Mirror()
	}
	// KGP clients think until told to stop, so the server decides how long:
	// a per-move limit less a margin that gets the answer in before the
	// referee's deadline, or a share of a cumulative budget (never all of
	// it at once).
	limit := clock.Budget()
	if limit <= 0 {
		limit = c.srv.moveTime()
	}

	r := &request{id: c.id(), yielded: make(chan struct{})}
	c.mu.Lock()
	c.req = r
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		c.req = nil
		c.mu.Unlock()
	}()
	if clock.Remaining > 0 {
		secs := int64((clock.Remaining + time.Second - 1) / time.Second)
		if err := c.send(Command{ID: c.id(), Name: "set", Args: []Arg{WordArg("time:clock"), Int(secs)}}); err != nil {
			return kalah.NoMove, err
		}
	}
	if err := c.send(Command{ID: r.id, Name: "state", Args: []Arg{BoardArg(BoardOf(view))}}); err != nil {
		return kalah.NoMove, err
	}
	timer := time.NewTimer(limit)
	defer timer.Stop()
	select {
	case <-r.yielded:
	case <-timer.C:
	case <-c.done:
		return kalah.NoMove, fmt.Errorf("%w: %s went away", player.ErrDisconnected, c.Name())
	case <-ctx.Done():
		c.send(Command{ID: c.id(), Ref: r.id, Name: "stop"})
		return kalah.NoMove, ctx.Err()
	}
	// The request ends here: a move that comes after counts no more.
	c.mu.Lock()
	c.req = nil
	has, m, raw, ref := r.has, r.move, r.raw, r.moveID
	if has {
		c.randoms = 0
	}
	c.mu.Unlock()
	if has && !slices.Contains(houses, m) {
		// The referee forfeits the game for it; the client hears which
		// move lost it, and why, before the state's stop and the result.
		if ref == 0 {
			ref = r.id
		}
		why := fmt.Sprintf("house %d is empty", raw)
		if raw < 1 || raw > int64(pos.Houses()) {
			why = fmt.Sprintf("there is no house %d (houses 1 to %d)", raw, pos.Houses())
		}
		c.send(Command{ID: c.id(), Ref: ref, Name: "error", Args: []Arg{Str(fmt.Sprintf("illegal move %d in state %d: %s; the game is lost", raw, r.id, why))}})
	}
	if err := c.send(Command{ID: c.id(), Ref: r.id, Name: "stop"}); err != nil {
		return kalah.NoMove, err
	}
	if has {
		return m, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	// Spec 021: a client that sent no move before stop (or yielded without
	// one) gets a random decision, and the game goes on; one that leaves
	// every decision to chance for too long has abandoned its game.
	c.randoms++
	if c.randoms > c.srv.maxRandomMoves() {
		return kalah.NoMove, fmt.Errorf("%w: abandoned the game: %d moves in a row without a move of its own", player.ErrDisconnected, c.randoms)
	}
	return houses[c.srv.rand(len(houses))], nil
}

// Observe tells the client how its game ended once it is over, with the
// options game:result (win, loss or draw) and game:termination (such as
// normal or timeout), after game:opponent (the opponent's name, when the
// game has one) and game:score (the stores, the client's first: "20-28");
// KGP clients ignore options they do not know.
func (c *Client) Observe(ctx context.Context, g *kalah.Game) error {
	if !g.Over() {
		return nil
	}
	c.mu.Lock()
	seat, known, told := c.seat, c.seatKnown, c.told
	c.told = true
	c.mu.Unlock()
	if !known || told || c.closed() {
		return nil
	}
	res := "draw"
	if w, ok := g.Result().Winner(); ok {
		res = "loss"
		if g.Seat(w) == seat {
			res = "win"
		}
	}
	mySide := g.PlayerSide(seat)
	if name := g.Players[1-seat&1]; name != "" {
		c.send(Command{ID: c.id(), Name: "set", Args: []Arg{WordArg("game:opponent"), Str(name)}})
	}
	pos := g.Position()
	score := fmt.Sprintf("%d-%d", pos.Store(mySide), pos.Store(mySide.Other()))
	c.send(Command{ID: c.id(), Name: "set", Args: []Arg{WordArg("game:score"), Str(score)}})
	c.send(Command{ID: c.id(), Name: "set", Args: []Arg{WordArg("game:result"), WordArg(res)}})
	c.send(Command{ID: c.id(), Name: "set", Args: []Arg{WordArg("game:termination"), WordArg(g.Termination().String())}})
	return nil
}

// BoardOf returns the numbers of p's KGP board literal: houses a side,
// South's store, North's store, South's houses, North's houses.
func BoardOf(p kalah.Position) []int {
	n := p.Houses()
	v := make([]int, 0, 2*n+3)
	v = append(v, n, p.Store(kalah.South), p.Store(kalah.North))
	for _, s := range []kalah.Side{kalah.South, kalah.North} {
		for h := 1; h <= n; h++ {
			v = append(v, p.House(s, h))
		}
	}
	return v
}
