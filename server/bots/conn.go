package bots

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strconv"
	"sync"
	"time"

	"kalah"
	"kalah/internal/identity"
	"kalah/internal/netx"
	"kalah/internal/store"
	"kalah/protocol/line"
	"kalah/server/core"
	"kalah/server/gate"
	"kalah/server/round"
)

// Conn is one client connection speaking the line protocol: its
// transport (the lines queued, the loops that write and read them) is its
// Wire; Handle says what its lines mean. It is a round's Link to the bot.
type Conn struct {
	*Wire
	b *Bots

	mu   sync.Mutex
	name string      // the bot's name as registered, once logged in
	id   identity.ID // the bot
	// game is the round the bot plays in now, if any.
	game     *round.Round
	queued   *Entry
	watching map[int64]*round.Round
	// waiting: the bot sent wait and takes the games the server arranges
	// (tournaments) until it sends leave.
	waiting bool
	// retired: the bot's owner replaced the token it logged in with
	// (tokens.go); it finishes its game and is closed.
	retired bool
	// ctx is the server's, ended too when the connection closes: a move
	// waits for its round's answer as long as both last, with no timer
	// of its own (the round answers every message it takes).
	ctx context.Context
}

// StartConn serves a new connection in the background.
func (b *Bots) StartConn(t line.Transport) {
	host := t.RemoteAddr()
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	c := &Conn{Wire: NewWire(t, host, b.cfg.Wire), b: b, watching: map[int64]*round.Round{}}
	var cancel context.CancelFunc
	c.ctx, cancel = context.WithCancel(b.host.Context())
	c.onClose = cancel
	h := &b.hub
	h.mu.Lock()
	if h.closed || len(h.conns) >= b.cfg.MaxConns {
		closed := h.closed
		h.mu.Unlock()
		code, text := line.CodeBusy, "the server is full"
		if closed {
			code, text = line.CodeShutdown, "the server is stopping"
		}
		Refuse(t, code, text)
		cancel()
		return
	}
	h.conns[c] = struct{}{}
	h.wg.Add(2) // the reader, and the writing side until the transport is closed
	h.mu.Unlock()
	c.Start(h.wg.Done)
	go func() {
		defer h.wg.Done()
		defer c.cleanup()
		c.ReadLoop(c)
	}()
}

// Active reports whether the connection has logged in or is watching.
func (c *Conn) Active() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.name != "" || len(c.watching) > 0
}

// cleanup runs when the connection ends.
func (c *Conn) cleanup() {
	c.Close()
	b := c.b
	c.mu.Lock()
	id, game, queued := c.id, c.game, c.queued
	watching := c.watching
	c.watching = nil
	c.mu.Unlock()
	if queued != nil {
		b.queue.remove(queued)
	}
	for _, r := range watching {
		r.Unwatch(c)
	}
	if game != nil {
		game.Detach(c)
	}
	if !id.IsZero() {
		b.sessions.Remove(id.Key(), c)
	}
	b.chals.forget(c)
	b.hub.mu.Lock()
	delete(b.hub.conns, c)
	b.hub.mu.Unlock()
}

// SetGame notes the round the bot now plays in; it is no longer queued.
func (c *Conn) SetGame(r *round.Round) {
	c.mu.Lock()
	c.game = r
	c.queued = nil
	c.mu.Unlock()
}

// ClearGame forgets round r, which has ended.
func (c *Conn) ClearGame(r *round.Round) {
	c.mu.Lock()
	if c.game == r {
		c.game = nil
	}
	c.mu.Unlock()
}

// busy reports whether the bot plays or waits in the queue.
func (c *Conn) busy() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.game != nil || c.queued != nil
}

// Handle answers one message; it reports whether to close the connection.
func (c *Conn) Handle(m line.Msg) bool {
	b := c.b
	c.mu.Lock()
	name := c.name
	c.mu.Unlock()
	errf := func(code, format string, a ...any) { c.SendMsg(line.Errorf(code, format, a...)) }
	needLogin := func() bool {
		if name == "" {
			errf(line.CodeAuth, "log in first: login <name> <token>")
			return true
		}
		return false
	}
	if m.Cmd != "ping" && m.Cmd != "pong" && c.retiredConn() {
		errf(line.CodeAuth, "%s", TokenReplaced)
		return true
	}
	switch m.Cmd {
	case "ping":
		c.SendMsg(line.Msg{Cmd: "pong"})
	case "pong":
	case "quit":
		c.SendMsg(line.Msg{Cmd: "ok", Args: []string{"bye"}})
		return true
	case "kalah":
		if err := line.CheckGreeting(m); err != nil {
			errf(line.CodeVersion, "this server speaks kalah %d", line.Version)
			return true
		}
	case "login":
		return c.login(m)
	case "queue":
		if needLogin() {
			return false
		}
		var rules *kalah.Rules
		if len(m.Args) > 0 {
			r, err := line.ParseRules(m.Args[0])
			if err != nil {
				errf(line.CodeRules, "%v", err)
				return false
			}
			rules = &r
		}
		c.mu.Lock()
		busy := c.game != nil || c.queued != nil
		waiting := c.waiting
		id := c.id
		c.mu.Unlock()
		if busy {
			errf(line.CodeBusy, "already in a game or the queue")
			return false
		}
		if waiting {
			errf(line.CodeBusy, "waiting for the server's games; send leave first")
			return false
		}
		// "ok queue" is queued under the queue's lock, before anything
		// of a game it pairs into, and written once the lock is let go
		// (by the game's first flush if it pairs at once, else below):
		// no write to a socket under a lock every bot takes.
		e := &Entry{seat: round.BotSeat(id), rules: rules, conn: c, key: id.Key(), result: make(chan error, 1),
			queued: func() { c.Queue(line.Msg{Cmd: "ok", Args: []string{"queue"}}) }}
		c.mu.Lock()
		c.queued = e
		c.mu.Unlock()
		err := b.enqueue(e)
		c.Flush()
		if err != nil {
			c.mu.Lock()
			c.queued = nil
			c.mu.Unlock()
			errf(codeFor(err), "%v", err)
		}
	case "leave":
		c.mu.Lock()
		e := c.queued
		c.queued = nil
		waiting := c.waiting
		c.waiting = false
		c.mu.Unlock()
		if e == nil && waiting {
			c.SendMsg(line.Msg{Cmd: "ok", Args: []string{"leave"}})
			return false
		}
		if e == nil || !b.queue.remove(e) {
			errf(line.CodeState, "not in the queue")
			return false
		}
		c.SendMsg(line.Msg{Cmd: "ok", Args: []string{"leave"}})
	case "wait":
		if needLogin() {
			return false
		}
		c.waitForGames()
	case "challenge":
		if needLogin() {
			return false
		}
		c.challenge(name, m)
	case "accept", "decline":
		if needLogin() {
			return false
		}
		c.answerChallenge(name, m)
	case "move", "resign":
		if needLogin() {
			return false
		}
		c.mu.Lock()
		game := c.game
		c.mu.Unlock()
		if game == nil {
			errf(line.CodeState, "not in a game")
			return false
		}
		var mv kalah.Move
		if m.Cmd == "move" {
			var err error
			if mv, err = line.ParseMove(m); err != nil {
				errf(line.CodeSyntax, "%v", err)
				return false
			}
		}
		err := game.BotMove(c.ctx, c, m.Cmd == "resign", mv, c.readAt)
		if err != nil {
			errf(line.CodeState, "%v", err)
		}
	case "draw":
		if needLogin() {
			return false
		}
		c.mu.Lock()
		game := c.game
		c.mu.Unlock()
		if game == nil {
			errf(line.CodeState, "not in a game")
			return false
		}
		if len(m.Args) != 1 {
			errf(line.CodeSyntax, "draw offer|accept|decline|cancel")
			return false
		}
		err := game.BotDraw(c.ctx, c, m.Arg(0))
		if err != nil {
			errf(line.CodeState, "%v", err)
		}
	case "watch":
		id, err := strconv.ParseInt(m.Arg(0), 10, 64)
		if err != nil || len(m.Args) != 1 {
			errf(line.CodeSyntax, "watch <game id>")
			return false
		}
		c.watch(id)
	case "unwatch":
		id, _ := strconv.ParseInt(m.Arg(0), 10, 64)
		c.mu.Lock()
		r := c.watching[id]
		delete(c.watching, id)
		c.mu.Unlock()
		if r == nil {
			errf(line.CodeNotFound, "not watching game %s", m.Arg(0))
			return false
		}
		r.Unwatch(c)
		c.SendMsg(line.Msg{Cmd: "ok", Args: []string{"unwatch", m.Arg(0)}})
	case "games":
		games := b.host.LiveGames()
		for _, g := range games {
			c.SendMsg(line.Msg{Cmd: "live", Args: []string{fmt.Sprint(g.ID), g.South, g.North, line.RulesToken(g.Rules), fmt.Sprint(g.Plies)}})
		}
		c.SendMsg(line.Msg{Cmd: "ok", Args: []string{"games", fmt.Sprint(len(games))}})
	default:
		errf(line.CodeSyntax, "unknown command %q", m.Cmd)
	}
	return false
}

// codeFor is the line protocol's code of err.
func codeFor(err error) string {
	switch {
	case errors.Is(err, core.ErrBusy):
		return line.CodeBusy
	case errors.Is(err, core.ErrClosed):
		return line.CodeShutdown
	case errors.Is(err, kalah.ErrInvalidRules):
		return line.CodeRules
	}
	return line.CodeState
}

// login checks the name and token and takes over the bot's session and
// seat. Names compare without case ("BobBot" logs in as "bobbot"), and a
// name that is someone else's, or a reader could take for it, is refused
// (identity.Skeleton). It reports whether to close the connection: after
// a refusal it does, with the reason in an error line first.
func (c *Conn) login(m line.Msg) bool {
	b := c.b
	if len(m.Args) != 2 {
		c.SendMsg(line.Errorf(line.CodeSyntax, "login <name> <token>"))
		return false
	}
	name, token := m.Args[0], m.Args[1]
	c.mu.Lock()
	already := !c.id.IsZero()
	c.mu.Unlock()
	if already {
		c.SendMsg(line.Errorf(line.CodeState, "already logged in"))
		return false
	}
	// A bot with a game in progress (one resumed after a restart, say) is
	// not a stranger: when its address has used up its logins it has a
	// bucket of its own, by name, so that a crowd of bots behind one
	// address can all come back before their clocks run out. Guessing its
	// token that way is still slow (one try a second).
	key := identity.Of(identity.Bot, name).Key()
	playing := b.host.Seated(key) != nil
	now := time.Now()
	if !b.cfg.Logins.AllowAt(netx.AddrKey(c.Host), now) && !(playing && b.returning.AllowAt(key, now)) {
		b.host.Refused("login-rate")
		c.SendMsg(line.Errorf(line.CodeRate, "too many logins from %s; wait a little", c.Host))
		return true
	}
	if !line.ValidName(name) || len(token) > 128 {
		c.SendMsg(line.Errorf(line.CodeSyntax, "a name is 2 to 32 letters, digits, '-', '_' or '.'; a token at most 128 bytes"))
		return false
	}
	ctx, cancel := context.WithTimeout(b.host.Context(), 10*time.Second)
	canon, created, err := b.cfg.Store.BotLogin(ctx, name, token)
	cancel()
	switch {
	case errors.Is(err, store.ErrBadToken):
		// The bot whose name it is, as the store names it (the name asked
		// for when it names none).
		who := name
		if canon != "" {
			who = canon
		}
		c.SendMsg(line.Errorf(line.CodeAuth, "wrong token for %s", who))
		return true
	case errors.Is(err, store.ErrRevokedToken):
		c.SendMsg(line.Errorf(line.CodeAuth, "%v: log in with the new one", err))
		return true
	case errors.Is(err, store.ErrNameTaken), errors.Is(err, store.ErrBadAccount):
		c.SendMsg(line.Errorf(line.CodeAuth, "%v: log in with a name of your own", err))
		return true
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, store.ErrUnavailable):
		// More first logins than the store keeps up with (a crowd of new
		// bots at once), or its disk full: not the bot's failure nor the
		// server's; told to retry, and logged once a minute, not a line a
		// bot.
		b.host.Refused("login-busy")
		b.busyLogins.Log(b.cfg.Log, "bot logins refused as busy: the store is not keeping up", "name", name, "err", err)
		c.SendMsg(line.Errorf(line.CodeBusy, "the server is busy and cannot log %s in now; retry in a few seconds", name))
		return true
	case err != nil:
		b.cfg.Log.Error("bot login failed", "name", name, "err", err)
		c.SendMsg(line.Errorf(line.CodeShutdown, "cannot log in now, try again later"))
		return true
	}
	id := identity.Of(identity.Bot, canon)
	// The session is kept before the registry is asked, and a game
	// registers before it asks for its bots' sessions (roundHost.Register):
	// a game starting meanwhile is attached by one of the two, or both.
	old := b.sessions.Put(id.Key(), c)
	game := b.host.Seated(id.Key())
	c.mu.Lock()
	c.name, c.id = canon, id
	c.mu.Unlock()
	if old != nil {
		old.SendMsg(line.Errorf(line.CodeReplaced, "%s logged in elsewhere", canon))
		old.Close()
	}
	ok := line.Msg{Cmd: "ok", Args: []string{"login", canon}}
	if created {
		ok.Args = append(ok.Args, "new")
	}
	c.SendMsg(ok)
	b.cfg.Log.Info("login", "name", canon, "addr", c.Host, "new", created)
	if game != nil {
		game.Attach(c, id)
	}
	return false
}

func (c *Conn) challenge(name string, m line.Msg) {
	b := c.b
	if len(m.Args) < 1 || len(m.Args) > 2 {
		c.SendMsg(line.Errorf(line.CodeSyntax, "challenge <name> [rules]"))
		return
	}
	r := b.cfg.Rules
	if len(m.Args) == 2 {
		var err error
		if r, err = line.ParseRules(m.Args[1]); err != nil {
			c.SendMsg(line.Errorf(line.CodeRules, "%v", err))
			return
		}
	}
	to := b.sessions.Get(identity.Of(identity.Bot, m.Args[0]).Key())
	if to == nil || to == c {
		c.SendMsg(line.Errorf(line.CodeNotFound, "%s is not online", m.Args[0]))
		return
	}
	ch := &challenge{from: c, to: to, rules: r, at: time.Now()}
	if why := b.openChallenge(ch, ""); why != "" {
		c.SendMsg(line.Errorf(line.CodeBusy, "%s", why))
		return
	}
	c.SendMsg(line.Msg{Cmd: "ok", Args: []string{"challenge", ch.id}})
	to.SendMsg(line.Msg{Cmd: "challenged", Args: []string{ch.id, name, line.RulesToken(r)}})
}

func (c *Conn) answerChallenge(name string, m line.Msg) {
	b := c.b
	ch := b.chals.take(m.Arg(0), c)
	if ch == nil {
		c.SendMsg(line.Errorf(line.CodeNotFound, "no challenge %q for you", m.Arg(0)))
		return
	}
	if ch.person != nil {
		b.answerPerson(c, name, ch, m.Cmd == "accept")
		return
	}
	if m.Cmd == "decline" {
		ch.from.SendMsg(line.Msg{Cmd: "declined", Args: []string{ch.id}})
		c.SendMsg(line.Msg{Cmd: "ok", Args: []string{"decline", ch.id}})
		return
	}
	if c.busy() || ch.from.busy() {
		c.SendMsg(line.Errorf(line.CodeBusy, "one of you is already playing or queued"))
		return
	}
	ch.from.mu.Lock()
	fromID := ch.from.id
	ch.from.mu.Unlock()
	c.mu.Lock()
	myID := c.id
	c.mu.Unlock()
	if b.host.Seated(fromID.Key()) != nil || b.host.Seated(myID.Key()) != nil {
		c.SendMsg(line.Errorf(line.CodeBusy, "one of you is already playing"))
		return
	}
	c.SendMsg(line.Msg{Cmd: "ok", Args: []string{"accept", ch.id}})
	es := [2]*Entry{
		{seat: round.BotSeat(fromID), conn: ch.from, key: fromID.Key(), result: make(chan error, 1)},
		{seat: round.BotSeat(myID), conn: c, key: myID.Key(), result: make(chan error, 1)},
	}
	if err := b.host.Start(ch.rules, es, gate.Challenge); err != nil {
		c.SendMsg(line.Errorf(codeFor(err), "%v", err))
		ch.from.SendMsg(line.Errorf(codeFor(err), "%v", err))
	}
}

// watch makes the connection a spectator of game id: it is sent the game
// so far and then every move and the end.
func (c *Conn) watch(id int64) {
	b := c.b
	r := b.host.Game(id)
	if r == nil {
		c.SendMsg(line.Errorf(line.CodeNotFound, "no live game %d", id))
		return
	}
	c.mu.Lock()
	if c.watching == nil || len(c.watching) >= 16 {
		c.mu.Unlock()
		c.SendMsg(line.Errorf(line.CodeBusy, "watching too many games"))
		return
	}
	c.watching[id] = r
	c.mu.Unlock()
	ctx, cancel := context.WithTimeout(b.host.Context(), 10*time.Second)
	defer cancel()
	if err := r.Watch(ctx, c); err != nil {
		c.mu.Lock()
		delete(c.watching, id)
		c.mu.Unlock()
		c.SendMsg(line.Errorf(line.CodeNotFound, "game %d: %v", id, err))
	}
}

// FreeBot reports whether the bot of identity key is logged in, waiting
// for arranged games and neither playing nor queued.
func (b *Bots) FreeBot(key string) bool {
	return b.FreeConn(key) && b.host.Seated(key) == nil
}

// FreeConn reports whether the bot of identity key is logged in and its
// connection waits for arranged games, neither in a game nor queued: a
// connection's commands run one at a time, and one that waits cannot
// queue before it sends leave.
func (b *Bots) FreeConn(key string) bool {
	c := b.sessions.Get(key)
	if c == nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.waiting && c.game == nil && c.queued == nil
}

// WaitingBots returns the names of the bots logged in that take arranged
// games (they sent wait), whether or not they are playing now, sorted.
func (b *Bots) WaitingBots() []string {
	var out []string
	for _, c := range b.sessions.All() {
		c.mu.Lock()
		if c.waiting {
			out = append(out, c.name)
		}
		c.mu.Unlock()
	}
	slices.Sort(out)
	return out
}

// waitForGames answers wait: the bot takes arranged games until leave.
func (c *Conn) waitForGames() {
	c.mu.Lock()
	queued := c.queued != nil
	if !queued {
		c.waiting = true
	}
	c.mu.Unlock()
	if queued {
		c.SendMsg(line.Errorf(line.CodeBusy, "in the queue; send leave first"))
		return
	}
	c.SendMsg(line.Msg{Cmd: "ok", Args: []string{"wait"}})
	c.b.host.Wake()
}
