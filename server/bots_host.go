package server

import (
	"context"
	"net"
	"net/http"
	"strconv"
	"time"

	"kalah"
	"kalah/internal/identity"
	"kalah/internal/netx"
	"kalah/internal/store"
	"kalah/player"
	"kalah/protocol/kgp"
	"kalah/protocol/line"
	"kalah/referee"
	"kalah/server/bots"
	"kalah/server/core"
	"kalah/server/gate"
	rnd "kalah/server/round"
	"kalah/server/views"
)

// The bots' side of the server is package bots's (server/bots): their
// connections over the line protocol, logins and tokens, the queue,
// challenges, house games and the KGP bridge's glue. This file is the
// server as that side sees it (botsHost) and the names the rest of the
// server, web and cmd/kalah know it by.

// newBots returns the bots' side of s, its logins by address counted in
// logins (shared with the people's sign-ins).
func (s *Server) newBots(logins *netx.Limiter) *bots.Bots {
	c := s.cfg
	return bots.New(bots.Config{
		Wire: bots.WireConfig{MaxLine: c.MaxLine, HandshakeTimeout: c.HandshakeTimeout,
			IdleTimeout: c.IdleTimeout, WriteTimeout: c.WriteTimeout, Log: s.log},
		Store: s.st, Rules: c.Rules, MaxConns: c.MaxConns, MaxChallenges: c.MaxChallenges,
		HouseBotAfter: c.HouseBotAfter, HouseBot: c.HouseBot, Logins: logins, Log: s.log,
	}, botsHost{s})
}

// Entrant is a player brought in by another transport (KGP) for Play.
type Entrant = bots.Entrant

// DefaultHouseBot is the level a house player plays at when
// Config.HouseBot is empty.
const DefaultHouseBot = bots.DefaultHouseBot

// tagHouse marks a game between a waiting bot and a house player.
const tagHouse = core.TagHouse

// Serve accepts bot connections speaking the line protocol on l until
// Shutdown; it returns nil after Shutdown.
func (s *Server) Serve(l net.Listener) error { return s.bots.Serve(l) }

// startConn serves a new connection in the background.
func (s *Server) startConn(t line.Transport) { s.bots.StartConn(t) }

// Play puts e in the same queue as the bots and returns once its game is
// over and stored, or with an error if it cannot be seated (bots.Play).
func (s *Server) Play(ctx context.Context, e Entrant) error { return s.bots.Play(ctx, e) }

// KGPJoin is the kgp.Server's Join for this server (bots.KGPJoin).
func (s *Server) KGPJoin(ctx context.Context, c *kgp.Client) { s.bots.KGPJoin(ctx, c) }

// KGPAdmit is the kgp.Server's Admit for this server (bots.KGPAdmit).
func (s *Server) KGPAdmit(ctx context.Context, c *kgp.Client) error { return s.bots.KGPAdmit(ctx, c) }

// TokenLogin logs in a bot that gives a token, as KGP's auth:token does
// (bots.TokenLogin).
func (s *Server) TokenLogin(ctx context.Context, name, token string, forget bool) (string, error) {
	return s.bots.TokenLogin(ctx, name, token, forget)
}

// OnlineBots returns the bots logged in on our protocol that a person may
// challenge (bots.OnlineBots).
func (s *Server) OnlineBots() []string { return s.bots.OnlineBots() }

// WaitingBots returns the names of the bots logged in that take arranged
// games, sorted (bots.WaitingBots).
func (s *Server) WaitingBots() []string { return s.bots.WaitingBots() }

// freeBot and freeConn report whether bot key is free for an arranged
// game (bots.FreeBot, bots.FreeConn).
func (s *Server) freeBot(key string) bool  { return s.bots.FreeBot(key) }
func (s *Server) freeConn(key string) bool { return s.bots.FreeConn(key) }

func (s *Server) apiOnlineBots(w http.ResponseWriter, r *http.Request) { s.bots.APIOnlineBots(w, r) }
func (s *Server) apiChallengeBot(w http.ResponseWriter, r *http.Request) {
	s.bots.APIChallengeBot(w, r)
}
func (s *Server) apiRotateBotToken(w http.ResponseWriter, r *http.Request) {
	s.bots.RotateToken(w, r)
}

// entrant is a player a game begins for (begin.go): its seat, told the
// seat and the game once it begins, or why not.
type entrant struct {
	seat   *seat
	seated func(int)
	game   *round
	fail   func(error)
}

// entrants are es as a game's start (begin.go) takes them.
func entrants(es [2]*bots.Entry) [2]*entrant {
	var out [2]*entrant
	for i, e := range es {
		en := &entrant{seat: e.Seat(), fail: e.Fail}
		en.seated = func(i int) { e.Begin(en.game, i) }
		out[i] = en
	}
	return out
}

// botsHost is the server as its bots' side sees it (bots.Host).
type botsHost struct{ s *Server }

func (h botsHost) Context() context.Context                 { return h.s.ctx }
func (h botsHost) Seated(key string) *rnd.Round             { return h.s.live.Seated(key) }
func (h botsHost) Game(id int64) *rnd.Round                 { return h.s.live.Get(id) }
func (h botsHost) Wake()                                    { h.s.live.Wake() }
func (h botsHost) LiveGames() []views.GameInfo              { return h.s.LiveGames() }
func (h botsHost) ThinkLimit(p player.Player) player.Player { return h.s.thinkLimit(p) }
func (h botsHost) Refused(reason string)                    { h.s.refused(reason) }

func (h botsHost) SignedIn(w http.ResponseWriter, r *http.Request, what string) (string, bool) {
	return h.s.signedIn(w, r, what)
}

func (h botsHost) AccountErr(w http.ResponseWriter, err error) { h.s.accountErr(w, err) }

func (h botsHost) Start(r kalah.Rules, es [2]*bots.Entry, path gate.Path) error {
	return h.s.start(r, entrants(es), path)
}

func (h botsHost) StartHouse(g *kalah.Game, es [2]*bots.Entry) error {
	return h.s.startEntrants(g, entrants(es), setup{tags: map[string]string{tagHouse: "yes"}, path: gate.House})
}

// PersonGame begins the game of a person's challenge that a bot accepted:
// the person plays South; the answer is the game's Started, with the
// person's seat's token.
func (h botsHost) PersonGame(pc bots.PersonChallenge, rules kalah.Rules, botID identity.ID) (any, error) {
	s := h.s
	token, hash := newToken()
	seats := [2]*seat{
		{Human: true, St: store.Seat{Name: pc.Who.Display(), Kind: "human", TokenHash: hash, ID: pc.Who}},
		botSeatOf(botID),
	}
	g, err := kalah.NewGame(rules)
	if err != nil {
		return nil, err
	}
	// Not rated is casual (no takebacks, for a bot cannot grant one; no
	// hints, which are against the computer only).
	su := setup{rated: pc.Rated, casual: !pc.Rated, tags: map[string]string{}, path: gate.Challenge, addrs: [2]string{pc.Addr}}
	if su.casual {
		su.tags[tagCasual] = "yes"
	}
	if pc.Clock > 0 {
		su.ref = &referee.Referee{Budget: pc.Clock, Increment: pc.Inc, Grace: 250 * time.Millisecond}
		su.tags[tagPerMove] = "0"
		su.tags[tagDelay] = "0"
		su.tags[tagClock] = strconv.FormatInt(pc.Clock.Milliseconds(), 10)
		su.tags[tagInc] = strconv.FormatInt(pc.Inc.Milliseconds(), 10)
	}
	limited := -1
	su.limited = &limited
	rd, err := s.begin(s.ctx, g, seats, su)
	if err != nil {
		return nil, err
	}
	out := Started{ID: rd.ID(), Limited: limited}
	if limited >= 0 {
		out.Note = limitNote(strconv.Itoa(limited), pc.Who, [2]identity.ID{seats[0].St.ID, seats[1].St.ID}, [2]string{seats[0].St.Name, seats[1].St.Name})
	}
	out.Tokens[0] = token
	return out, nil
}
