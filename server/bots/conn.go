package server

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
	"kalah/server/bots"
	"kalah/server/gate"
)

// conn is one client connection speaking the line protocol: its
// transport (the lines queued, the loops that write and read them) is
// package bots's Wire; what its lines mean is the server's.
type conn struct {
	*bots.Wire
	srv *Server

	mu   sync.Mutex
	name string      // the bot's name as registered, once logged in
	id   identity.ID // the bot
	// game is the round the bot plays in now, if any.
	game     *round
	queued   *entrant
	watching map[int64]*round
	// waiting: the bot sent wait and takes the games the server arranges
	// (tournaments) until it sends leave.
	waiting bool
	// retired: the bot's owner replaced the token it logged in with
	// (tokens.go); it finishes its game and is closed.
	retired bool
}

// startConn serves a new connection in the background.
func (s *Server) startConn(t line.Transport) {
	host := t.RemoteAddr()
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	c := &conn{Wire: bots.NewWire(t, host, s.wireConfig()), srv: s, watching: map[int64]*round{}}
	s.mu.Lock()
	if s.closed || len(s.allConns) >= s.cfg.MaxConns {
		closed := s.closed
		s.mu.Unlock()
		code, text := line.CodeBusy, "the server is full"
		if closed {
			code, text = line.CodeShutdown, "the server is stopping"
		}
		bots.Refuse(t, code, text)
		return
	}
	s.allConns[c] = struct{}{}
	s.conns.Add(2)
	s.mu.Unlock()
	go func() {
		defer s.conns.Done()
		c.WriteLoop()
	}()
	go func() {
		defer s.conns.Done()
		defer c.cleanup()
		c.ReadLoop(c)
	}()
}

// sendMsg queues a line; a client too slow to take its lines is dropped.
func (c *conn) sendMsg(m line.Msg) { c.Wire.SendMsg(m) }

// close ends the connection.
func (c *conn) close() { c.Wire.Close() }

// Active reports whether the connection has logged in or is watching.
func (c *conn) Active() bool { return c.active() }

// Handle answers one message; it reports whether to close the connection.
func (c *conn) Handle(m line.Msg) bool { return c.handle(m) }

// active reports whether the connection has logged in or is watching.
func (c *conn) active() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.name != "" || len(c.watching) > 0
}

// cleanup runs when the connection ends.
func (c *conn) cleanup() {
	c.close()
	s := c.srv
	c.mu.Lock()
	id, game, queued := c.id, c.game, c.queued
	watching := c.watching
	c.watching = nil
	c.mu.Unlock()
	if queued != nil {
		s.dequeue(queued)
	}
	for _, r := range watching {
		r.Unwatch(c)
	}
	if game != nil {
		game.Detach(c)
	}
	s.mu.Lock()
	if !id.IsZero() {
		s.sessions.Remove(id.Key(), c)
	}
	for cid, ch := range s.chals {
		if ch.from == c || ch.to == c {
			delete(s.chals, cid)
		}
	}
	delete(s.allConns, c)
	s.mu.Unlock()
}

// setGame notes the round the bot now plays in; it is no longer queued.
func (c *conn) setGame(r *round) {
	c.mu.Lock()
	c.game = r
	c.queued = nil
	c.mu.Unlock()
}

// clearGame forgets round r, which has ended.
func (c *conn) clearGame(r *round) {
	c.mu.Lock()
	if c.game == r {
		c.game = nil
	}
	c.mu.Unlock()
}

// busy reports whether the bot plays or waits in the queue.
func (c *conn) busy() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.game != nil || c.queued != nil
}

// challenge is an invitation from one bot to another.
type challenge struct {
	id       string
	from, to *conn
	rules    kalah.Rules
	at       time.Time // when it was made
	// person, for a challenge from a person on the page (from is nil),
	// hears the bot's answer.
	person *personChallenge
}

// handle answers one message; it reports whether to close the connection.
func (c *conn) handle(m line.Msg) bool {
	s := c.srv
	c.mu.Lock()
	name := c.name
	c.mu.Unlock()
	errf := func(code, format string, a ...any) { c.sendMsg(line.Errorf(code, format, a...)) }
	needLogin := func() bool {
		if name == "" {
			errf(line.CodeAuth, "log in first: login <name> <token>")
			return true
		}
		return false
	}
	if m.Cmd != "ping" && m.Cmd != "pong" && c.retiredConn() {
		errf(line.CodeAuth, "%s", tokenReplaced)
		return true
	}
	switch m.Cmd {
	case "ping":
		c.sendMsg(line.Msg{Cmd: "pong"})
	case "pong":
	case "quit":
		c.sendMsg(line.Msg{Cmd: "ok", Args: []string{"bye"}})
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
		e := &entrant{seat: botSeatOf(id), rules: rules, conn: c, key: id.Key(), result: make(chan error, 1),
			queued: func() { c.sendMsg(line.Msg{Cmd: "ok", Args: []string{"queue"}}) }}
		c.mu.Lock()
		c.queued = e
		c.mu.Unlock()
		if err := s.enqueue(e); err != nil {
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
			c.sendMsg(line.Msg{Cmd: "ok", Args: []string{"leave"}})
			return false
		}
		if e == nil || !s.dequeue(e) {
			errf(line.CodeState, "not in the queue")
			return false
		}
		c.sendMsg(line.Msg{Cmd: "ok", Args: []string{"leave"}})
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
		ctx, cancel := context.WithTimeout(s.ctx, 10*time.Second)
		err := game.BotMove(ctx, c, m.Cmd == "resign", mv)
		cancel()
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
		ctx, cancel := context.WithTimeout(s.ctx, 10*time.Second)
		err := game.BotDraw(ctx, c, m.Arg(0))
		cancel()
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
		c.sendMsg(line.Msg{Cmd: "ok", Args: []string{"unwatch", m.Arg(0)}})
	case "games":
		games := s.LiveGames()
		for _, g := range games {
			c.sendMsg(line.Msg{Cmd: "live", Args: []string{fmt.Sprint(g.ID), g.South, g.North, line.RulesToken(g.Rules), fmt.Sprint(g.Plies)}})
		}
		c.sendMsg(line.Msg{Cmd: "ok", Args: []string{"games", fmt.Sprint(len(games))}})
	default:
		errf(line.CodeSyntax, "unknown command %q", m.Cmd)
	}
	return false
}

func codeFor(err error) string {
	switch {
	case errors.Is(err, ErrBusy):
		return line.CodeBusy
	case errors.Is(err, ErrClosed):
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
func (c *conn) login(m line.Msg) bool {
	s := c.srv
	if len(m.Args) != 2 {
		c.sendMsg(line.Errorf(line.CodeSyntax, "login <name> <token>"))
		return false
	}
	name, token := m.Args[0], m.Args[1]
	c.mu.Lock()
	already := !c.id.IsZero()
	c.mu.Unlock()
	if already {
		c.sendMsg(line.Errorf(line.CodeState, "already logged in"))
		return false
	}
	// A bot with a game in progress (one resumed after a restart, say) is
	// not a stranger: when its address has used up its logins it has a
	// bucket of its own, by name, so that a crowd of bots behind one
	// address can all come back before their clocks run out. Guessing its
	// token that way is still slow (one try a second).
	key := identity.Of(identity.Bot, name).Key()
	playing := s.live.Seated(key) != nil
	now := time.Now()
	if !s.limiter.AllowAt(netx.AddrKey(c.Host), now) && !(playing && s.returning.AllowAt(key, now)) {
		s.refused("login-rate")
		c.sendMsg(line.Errorf(line.CodeRate, "too many logins from %s; wait a little", c.Host))
		return true
	}
	if !line.ValidName(name) || len(token) > 128 {
		c.sendMsg(line.Errorf(line.CodeSyntax, "a name is 2 to 32 letters, digits, '-', '_' or '.'; a token at most 128 bytes"))
		return false
	}
	ctx, cancel := context.WithTimeout(s.ctx, 10*time.Second)
	canon, created, err := s.st.BotLogin(ctx, name, token)
	cancel()
	switch {
	case errors.Is(err, store.ErrBadToken):
		// The bot whose name it is, as the store names it (the name asked
		// for when it names none).
		who := name
		if canon != "" {
			who = canon
		}
		c.sendMsg(line.Errorf(line.CodeAuth, "wrong token for %s", who))
		return true
	case errors.Is(err, store.ErrRevokedToken):
		c.sendMsg(line.Errorf(line.CodeAuth, "%v: log in with the new one", err))
		return true
	case errors.Is(err, store.ErrNameTaken), errors.Is(err, store.ErrBadAccount):
		c.sendMsg(line.Errorf(line.CodeAuth, "%v: log in with a name of your own", err))
		return true
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, store.ErrUnavailable):
		// More first logins than the store keeps up with (a crowd of new
		// bots at once), or its disk full: not the bot's failure nor the
		// server's; told to retry, and logged once a minute, not a line a
		// bot.
		s.refused("login-busy")
		s.busyLogins.Log(s.log, "bot logins refused as busy: the store is not keeping up", "name", name, "err", err)
		c.sendMsg(line.Errorf(line.CodeBusy, "the server is busy and cannot log %s in now; retry in a few seconds", name))
		return true
	case err != nil:
		s.log.Error("bot login failed", "name", name, "err", err)
		c.sendMsg(line.Errorf(line.CodeShutdown, "cannot log in now, try again later"))
		return true
	}
	id := identity.Of(identity.Bot, canon)
	// The session is kept before the registry is asked, and a game
	// registers before it asks for its bots' sessions (roundHost.Register):
	// a game starting meanwhile is attached by one of the two, or both.
	old := s.sessions.Put(id.Key(), c)
	game := s.live.Seated(id.Key())
	c.mu.Lock()
	c.name, c.id = canon, id
	c.mu.Unlock()
	if old != nil {
		old.sendMsg(line.Errorf(line.CodeReplaced, "%s logged in elsewhere", canon))
		old.close()
	}
	ok := line.Msg{Cmd: "ok", Args: []string{"login", canon}}
	if created {
		ok.Args = append(ok.Args, "new")
	}
	c.sendMsg(ok)
	s.log.Info("login", "name", canon, "addr", c.Host, "new", created)
	if game != nil {
		game.Attach(c, id)
	}
	return false
}

func (c *conn) challenge(name string, m line.Msg) {
	s := c.srv
	if len(m.Args) < 1 || len(m.Args) > 2 {
		c.sendMsg(line.Errorf(line.CodeSyntax, "challenge <name> [rules]"))
		return
	}
	r := s.cfg.Rules
	if len(m.Args) == 2 {
		var err error
		if r, err = line.ParseRules(m.Args[1]); err != nil {
			c.sendMsg(line.Errorf(line.CodeRules, "%v", err))
			return
		}
	}
	s.mu.Lock()
	to := s.sessions.Get(identity.Of(identity.Bot, m.Args[0]).Key())
	if to == nil || to == c {
		s.mu.Unlock()
		c.sendMsg(line.Errorf(line.CodeNotFound, "%s is not online", m.Args[0]))
		return
	}
	if why := s.challengeRefusalLocked(c, ""); why != "" {
		s.mu.Unlock()
		c.sendMsg(line.Errorf(line.CodeBusy, "%s", why))
		return
	}
	s.nextChal++
	ch := &challenge{id: strconv.Itoa(s.nextChal), from: c, to: to, rules: r, at: time.Now()}
	s.chals[ch.id] = ch
	s.mu.Unlock()
	c.sendMsg(line.Msg{Cmd: "ok", Args: []string{"challenge", ch.id}})
	to.sendMsg(line.Msg{Cmd: "challenged", Args: []string{ch.id, name, line.RulesToken(r)}})
}

func (c *conn) answerChallenge(name string, m line.Msg) {
	s := c.srv
	s.mu.Lock()
	ch := s.chals[m.Arg(0)]
	if ch == nil || ch.to != c {
		s.mu.Unlock()
		c.sendMsg(line.Errorf(line.CodeNotFound, "no challenge %q for you", m.Arg(0)))
		return
	}
	delete(s.chals, ch.id)
	s.mu.Unlock()
	if ch.person != nil {
		s.answerPerson(c, name, ch, m.Cmd == "accept")
		return
	}
	if m.Cmd == "decline" {
		ch.from.sendMsg(line.Msg{Cmd: "declined", Args: []string{ch.id}})
		c.sendMsg(line.Msg{Cmd: "ok", Args: []string{"decline", ch.id}})
		return
	}
	if c.busy() || ch.from.busy() {
		c.sendMsg(line.Errorf(line.CodeBusy, "one of you is already playing or queued"))
		return
	}
	ch.from.mu.Lock()
	fromID := ch.from.id
	ch.from.mu.Unlock()
	c.mu.Lock()
	myID := c.id
	c.mu.Unlock()
	if s.live.Seated(fromID.Key()) != nil || s.live.Seated(myID.Key()) != nil {
		c.sendMsg(line.Errorf(line.CodeBusy, "one of you is already playing"))
		return
	}
	c.sendMsg(line.Msg{Cmd: "ok", Args: []string{"accept", ch.id}})
	es := [2]*entrant{
		{seat: botSeatOf(fromID), conn: ch.from, key: fromID.Key(), result: make(chan error, 1)},
		{seat: botSeatOf(myID), conn: c, key: myID.Key(), result: make(chan error, 1)},
	}
	if err := s.start(ch.rules, es, gate.Challenge); err != nil {
		c.sendMsg(line.Errorf(codeFor(err), "%v", err))
		ch.from.sendMsg(line.Errorf(codeFor(err), "%v", err))
	}
}

// watch makes the connection a spectator of game id: it is sent the game
// so far and then every move and the end.
func (c *conn) watch(id int64) {
	s := c.srv
	r := s.live.Get(id)
	if r == nil {
		c.sendMsg(line.Errorf(line.CodeNotFound, "no live game %d", id))
		return
	}
	c.mu.Lock()
	if c.watching == nil || len(c.watching) >= 16 {
		c.mu.Unlock()
		c.sendMsg(line.Errorf(line.CodeBusy, "watching too many games"))
		return
	}
	c.watching[id] = r
	c.mu.Unlock()
	ctx, cancel := context.WithTimeout(s.ctx, 10*time.Second)
	defer cancel()
	if err := r.Watch(ctx, c); err != nil {
		c.mu.Lock()
		delete(c.watching, id)
		c.mu.Unlock()
		c.sendMsg(line.Errorf(line.CodeNotFound, "game %d: %v", id, err))
	}
}

// freeBot reports whether the bot of identity key is logged in, waiting
// for arranged games and neither playing nor queued.
func (s *Server) freeBot(key string) bool {
	return s.freeConn(key) && s.live.Seated(key) == nil
}

// freeConn reports whether the bot of identity key is logged in and its
// connection waits for arranged games, neither in a game nor queued: a
// connection's commands run one at a time, and one that waits cannot
// queue before it sends leave.
func (s *Server) freeConn(key string) bool {
	c := s.sessions.Get(key)
	if c == nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.waiting && c.game == nil && c.queued == nil
}

// WaitingBots returns the names of the bots logged in that take arranged
// games (they sent wait), whether or not they are playing now, sorted.
func (s *Server) WaitingBots() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, c := range s.sessions.All() {
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
func (c *conn) waitForGames() {
	c.mu.Lock()
	queued := c.queued != nil
	if !queued {
		c.waiting = true
	}
	c.mu.Unlock()
	if queued {
		c.sendMsg(line.Errorf(line.CodeBusy, "in the queue; send leave first"))
		return
	}
	c.sendMsg(line.Msg{Cmd: "ok", Args: []string{"wait"}})
	c.srv.live.Wake()
}
