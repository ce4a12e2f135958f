// Package kgp speaks the Kalah Game Protocol (KGP, draft 1.x, by the KWARC
// group): a line protocol over TCP (port 2671 by default) or WebSocket in
// which a server sends a bot the board with "state", the bot answers with
// one or more "move" commands and the server ends the request with "stop".
//
// Server accepts KGP bots so they can play on our server: each connected
// bot is a Client, which is a player.Player, and is handed to the caller's
// matchmaking through Server.Join. Bot is the other end: it connects one of
// our players to a KGP server. The grammar (Parse, Command) is shared.
//
// See docs/protocols/kgp.md for how to connect a bot, the choices made
// where the draft leaves room, and an example session.
package kgp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// Default port of the protocol.
const DefaultPort = 2671

// ErrServerClosed is returned by Serve after Shutdown.
var ErrServerClosed = errors.New("kgp: server closed")

// Server accepts KGP clients over TCP (Serve) and WebSocket (Handler). The
// zero value with Join set is ready to use; the other fields tune limits and
// fall back to sensible defaults when zero.
type Server struct {
	// Join is called for each client that asked to play (mode freeplay),
	// on the connection's own goroutine. c implements player.Player and
	// player.Observer; Join puts it into matchmaking and returns when it is
	// done with the client, which is then sent goodbye and disconnected.
	// A client Join cannot seat is given the reason with Client.Refuse.
	// ctx ends when the server shuts down; c.Done() is closed when the
	// client goes away. A nil Join turns every client away.
	Join func(ctx context.Context, c *Client)

	// HandshakeTimeout is how long a client has between the greeting and
	// its mode command (default 30s).
	HandshakeTimeout time.Duration
	// IdleTimeout drops a client that sends nothing for this long (default
	// 90s). The server pings every PingInterval, so a live client is never
	// idle that long.
	IdleTimeout time.Duration
	// PingInterval is the time between pings (default 20s).
	PingInterval time.Duration
	// WriteTimeout limits each write to a client (default 10s).
	WriteTimeout time.Duration
	// MoveTime is the time a client has for a move when the referee's clock
	// sets no limit (default 5s).
	MoveTime time.Duration
	// MaxErrors is how many malformed or unexpected commands a client may
	// send before it is disconnected (default 16).
	MaxErrors int
	// MaxClients bounds the connections served at once (default 1024).
	MaxClients int
	// SendForced also asks the client about positions with a single legal
	// move; by default such a move is played at once without asking.
	SendForced bool
	// MaxRandomMoves is how many moves in a row the server may choose at
	// random for a client that sent none before stop or yield (spec 021)
	// before the client is held to have abandoned its game (default 8).
	MaxRandomMoves int
	// Admit, if not nil, is asked whether a client that asked to play may
	// (after Auth logged it in), before it is told ok: an error refuses it
	// with the error's text (error, then goodbye), as for an identity that
	// already waits for a game on another connection.
	Admit func(ctx context.Context, c *Client) error
	// Auth logs in a client that set auth:token (spec 043): it returns the
	// identity (a bot account's name) the token stands for, registering a
	// new one if the server wants to, or an error whose text is sent to
	// the client before goodbye. name is the client's info:name, if any.
	// forget is true if the client also set auth:forget. A nil Auth
	// refuses every token.
	Auth func(ctx context.Context, name, token string, forget bool) (identity string, err error)
	// Rand picks a random index below n for random decisions; nil means
	// math/rand/v2.
	Rand func(n int) int
	// Logger receives connection events; nil means slog.Default().
	Logger *slog.Logger

	mu        sync.Mutex
	started   bool
	closed    bool
	ctx       context.Context
	cancel    context.CancelFunc
	listeners map[net.Listener]struct{}
	clients   map[*Client]struct{}
	wg        sync.WaitGroup
	nextName  uint64
}

func (s *Server) init() {
	if !s.started {
		s.started = true
		s.ctx, s.cancel = context.WithCancel(context.Background())
		s.listeners = map[net.Listener]struct{}{}
		s.clients = map[*Client]struct{}{}
	}
}

func (s *Server) logger() *slog.Logger {
	if s.Logger != nil {
		return s.Logger
	}
	return slog.Default()
}

func orDefault[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

func (s *Server) handshakeTimeout() time.Duration {
	return orDefault(s.HandshakeTimeout, 30*time.Second)
}
func (s *Server) idleTimeout() time.Duration  { return orDefault(s.IdleTimeout, 90*time.Second) }
func (s *Server) pingInterval() time.Duration { return orDefault(s.PingInterval, 20*time.Second) }
func (s *Server) writeTimeout() time.Duration { return orDefault(s.WriteTimeout, 10*time.Second) }
func (s *Server) moveTime() time.Duration     { return orDefault(s.MoveTime, 5*time.Second) }
func (s *Server) maxErrors() int              { return orDefault(s.MaxErrors, 16) }
func (s *Server) maxClients() int             { return orDefault(s.MaxClients, 1024) }
func (s *Server) maxRandomMoves() int         { return orDefault(s.MaxRandomMoves, 8) }

func (s *Server) rand(n int) int {
	if s.Rand != nil {
		return s.Rand(n)
	}
	return rand.IntN(n)
}

// Serve accepts TCP connections on l until Shutdown, serving each on its
// own goroutine. It always returns an error: ErrServerClosed after
// Shutdown, or the listener's error.
func (s *Server) Serve(l net.Listener) error {
	s.mu.Lock()
	s.init()
	if s.closed {
		s.mu.Unlock()
		l.Close()
		return ErrServerClosed
	}
	s.listeners[l] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.listeners, l)
		s.mu.Unlock()
		l.Close()
	}()
	backoff := 5 * time.Millisecond
	for {
		conn, err := l.Accept()
		if err != nil {
			s.mu.Lock()
			closed := s.closed
			s.mu.Unlock()
			if closed {
				return ErrServerClosed
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				time.Sleep(backoff)
				backoff = min(2*backoff, time.Second)
				continue
			}
			return err
		}
		backoff = 5 * time.Millisecond
		if !s.track(1) {
			conn.Close()
			return ErrServerClosed
		}
		s.logger().Debug("kgp: accepted", "remote", conn.RemoteAddr().String())
		go func() {
			defer s.wg.Done()
			s.serve(newStreamTransport(conn))
		}()
	}
}

// track adds n to the connections in flight unless the server is closed.
func (s *Server) track(n int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.init()
	if s.closed {
		return false
	}
	s.wg.Add(n)
	return true
}

// Handler returns the WebSocket endpoint. KGP is a line protocol, so the
// text messages are read as one byte stream split at line ends, as the
// reference server does: a command may span messages and a message may
// hold several. A browser page from another site (a foreign Origin) is
// refused; clients that send no Origin, as bots do, are welcome.
func (s *Server) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.track(1) {
			http.Error(w, "server shutting down", http.StatusServiceUnavailable)
			return
		}
		defer s.wg.Done()
		// The connection outlives the HTTP server's request timeouts.
		rc := http.NewResponseController(w)
		rc.SetReadDeadline(time.Time{})
		rc.SetWriteDeadline(time.Time{})
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			s.logger().Debug("kgp: websocket accept", "remote", r.RemoteAddr, "err", err)
			return
		}
		s.serve(newWSTransport(c, r.RemoteAddr))
	})
}

// Shutdown stops accepting clients, cancels the context given to Join (so
// clients waiting for a game are sent goodbye) and waits for every
// connection to end. If ctx ends first, it cuts the connections left and
// returns ctx's error without waiting further.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.init()
	s.closed = true
	s.cancel()
	for l := range s.listeners {
		l.Close()
	}
	s.mu.Unlock()
	done := make(chan struct{})
	go func() {
		s.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		// Cut the connections that still hang on; their goroutines end as
		// soon as Join returns, which may wait on a game elsewhere.
		s.mu.Lock()
		for c := range s.clients {
			c.close()
		}
		s.mu.Unlock()
		return ctx.Err()
	}
}

// serve runs one connection from greeting to goodbye.
func (s *Server) serve(t transport) {
	s.mu.Lock()
	s.init()
	full := len(s.clients) >= s.maxClients()
	s.nextName++
	c := newClient(s, t, fmt.Sprintf("kgp-%d", s.nextName))
	if !full {
		s.clients[c] = struct{}{}
	}
	s.mu.Unlock()
	log := s.logger().With("remote", t.remote())
	if full {
		t.writeLine(Command{ID: 2, Name: "error", Args: []Arg{Str("server full: try again later")}}.String(), s.writeTimeout())
		t.writeLine(Command{ID: 4, Name: "goodbye"}.String(), s.writeTimeout())
		t.close()
		return
	}
	defer func() {
		s.mu.Lock()
		delete(s.clients, c)
		s.mu.Unlock()
	}()
	defer c.wait()
	defer c.close()

	c.send(Command{ID: c.id(), Name: "kgp", Args: []Arg{Int(1), Int(0), Int(1)}})
	c.seen.Store(time.Now().UnixNano())
	c.wg.Add(2)
	go c.readLoop()
	go c.idleWatch()

	timer := time.NewTimer(s.handshakeTimeout())
	defer timer.Stop()
	var mode Command
	select {
	case mode = <-c.modeCh:
	case <-timer.C:
		c.send(Command{ID: c.id(), Name: "error", Args: []Arg{Str("handshake timeout: send mode freeplay")}})
		c.goodbye()
		return
	case <-c.done:
		return
	case <-s.ctx.Done():
		c.goodbye()
		return
	}
	if m := mode.Args[0].String(); m != "freeplay" {
		c.refuse(mode.ID, fmt.Sprintf("Unsupported activity %q: this server offers freeplay", m))
		return
	}
	c.mu.Lock()
	token, forget, label := c.token, c.forget, c.name
	c.mu.Unlock()
	if token != "" {
		if s.Auth == nil {
			c.refuse(mode.ID, "this server does not log clients in with auth:token")
			return
		}
		id, err := s.Auth(s.ctx, label, token, forget)
		if err != nil {
			log.Info("kgp: login refused", "name", label, "err", err)
			c.refuse(mode.ID, err.Error())
			return
		}
		c.mu.Lock()
		c.identity = id
		c.mu.Unlock()
	}
	if s.Admit != nil {
		if err := s.Admit(s.ctx, c); err != nil {
			log.Info("kgp: client refused", "name", label, "identity", c.Identity(), "err", err)
			c.refuse(mode.ID, err.Error())
			return
		}
	}
	c.mu.Lock()
	c.modeID = mode.ID
	c.mu.Unlock()
	c.send(Command{ID: c.id(), Ref: mode.ID, Name: "ok", Args: []Arg{Str("freeplay: waiting for an opponent")}})
	c.wg.Add(1)
	go c.pingLoop()
	log.Info("kgp: client joined", "name", c.Name(), "identity", c.Identity())
	if s.Join != nil {
		s.Join(s.ctx, c)
	}
	c.goodbye()
	log.Info("kgp: client left", "name", c.Name())
}
