package server

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"kalah"
	"kalah/internal/httpapi"
	"kalah/internal/identity"
	"kalah/internal/store"
	"kalah/protocol/line"
	"kalah/referee"
	"kalah/server/gate"
)

// A signed-in person may challenge a bot that is online and free: the bot
// is asked as by another bot (challenged ID FROM RULES) and plays only if
// it accepts. The person plays South, as a challenger does.

type personChallenge struct {
	who        identity.ID // the person
	clock, inc time.Duration
	rated      bool
	addr       string // the address the person asked from (for the gate)
	reply      chan personReply
}

type personReply struct {
	st  Started
	err error
}

// challengeTimeout is how long a bot has to answer a person's challenge.
var challengeTimeout = 30 * time.Second

// OnlineBots returns the bots logged in on our protocol that are neither
// playing nor queued nor waiting for tournament games: the ones a person
// may challenge.
func (s *Server) OnlineBots() []string {
	var out []string
	for key, c := range s.sessions.All() {
		c.mu.Lock()
		free := c.game == nil && c.queued == nil && !c.waiting
		name := c.name
		c.mu.Unlock()
		if free && s.live.Seated(key) == nil {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

func (s *Server) apiOnlineBots(w http.ResponseWriter, r *http.Request) {
	bots := s.OnlineBots()
	if bots == nil {
		bots = []string{}
	}
	httpapi.WriteJSON(w, http.StatusOK, bots)
}

// apiChallengeBot asks a bot to play the signed-in person; it answers the
// game (the person's seat's token) once the bot accepts, 409 if it
// declines, 504 if it does not answer in time.
func (s *Server) apiChallengeBot(w http.ResponseWriter, r *http.Request) {
	user, ok := s.signedIn(w, r, "challenge a bot")
	if !ok {
		return
	}
	who := identity.Of(identity.Person, user)
	var req struct {
		Rules       kalah.Rules `json:"rules"`
		ClockMS     int64       `json:"clock_ms"`
		IncrementMS int64       `json:"increment_ms"`
		Rated       bool        `json:"rated"`
	}
	if err := httpapi.ReadJSON(w, r, &req); err != nil {
		httpapi.WriteError(w, err)
		return
	}
	if req.Rules.Houses == 0 && req.Rules.Seeds == 0 {
		req.Rules = s.cfg.Rules
	}
	if err := req.Rules.Validate(); err != nil {
		httpapi.WriteError(w, fmt.Errorf("%w: %w", ErrBadRequest, err))
		return
	}
	if req.ClockMS < 0 || req.ClockMS > 3*3600_000 || req.IncrementMS < 0 || req.IncrementMS > 60_000 || (req.IncrementMS > 0 && req.ClockMS == 0) {
		httpapi.WriteError(w, fmt.Errorf("%w: a clock of %d ms with %d ms a move", ErrBadRequest, req.ClockMS, req.IncrementMS))
		return
	}
	name := r.PathValue("name")
	if !slices.ContainsFunc(s.OnlineBots(), func(b string) bool { return strings.EqualFold(b, name) }) {
		httpapi.WriteError(w, fmt.Errorf("bot %s is not online and free: %w", name, ErrNotFound))
		return
	}
	pc := &personChallenge{who: who, clock: time.Duration(req.ClockMS) * time.Millisecond, inc: time.Duration(req.IncrementMS) * time.Millisecond,
		rated: req.Rated, addr: hostOf(r), reply: make(chan personReply, 1)}
	s.mu.Lock()
	to := s.sessions.Get(identity.Of(identity.Bot, name).Key())
	if to == nil {
		s.mu.Unlock()
		httpapi.WriteError(w, fmt.Errorf("bot %s is not online: %w", name, ErrNotFound))
		return
	}
	if why := s.challengeRefusalLocked(nil, user); why != "" {
		s.mu.Unlock()
		httpapi.WriteError(w, fmt.Errorf("%w: %s", ErrTooMany, why))
		return
	}
	s.nextChal++
	ch := &challenge{id: strconv.Itoa(s.nextChal), to: to, rules: req.Rules, person: pc, at: time.Now()}
	s.chals[ch.id] = ch
	s.mu.Unlock()
	to.sendMsg(line.Msg{Cmd: "challenged", Args: []string{ch.id, user, line.RulesToken(req.Rules)}})
	withdraw := func() {
		s.mu.Lock()
		delete(s.chals, ch.id)
		s.mu.Unlock()
	}
	select {
	case rep := <-pc.reply:
		if rep.err != nil {
			httpapi.WriteError(w, rep.err)
			return
		}
		httpapi.WriteJSON(w, http.StatusCreated, rep.st)
	case <-time.After(challengeTimeout):
		withdraw()
		httpapi.WriteError(w, fmt.Errorf("%w: %s did not answer the challenge in %v", ErrNoAnswer, name, challengeTimeout))
	case <-r.Context().Done():
		withdraw()
	}
}

// answerPerson plays a person's challenge the bot accepted (or tells the
// person it declined).
func (s *Server) answerPerson(c *conn, name string, ch *challenge, accept bool) {
	pc := ch.person
	if !accept {
		c.sendMsg(line.Msg{Cmd: "ok", Args: []string{"decline", ch.id}})
		pc.reply <- personReply{err: fmt.Errorf("%w: %s declined the challenge", ErrNoSeat, name)}
		return
	}
	if c.busy() {
		c.sendMsg(line.Errorf(line.CodeBusy, "already playing or queued"))
		pc.reply <- personReply{err: fmt.Errorf("%w: %s is busy", ErrBusy, name)}
		return
	}
	c.sendMsg(line.Msg{Cmd: "ok", Args: []string{"accept", ch.id}})
	token, hash := newToken()
	c.mu.Lock()
	botID := c.id
	c.mu.Unlock()
	seats := [2]*seat{
		{Human: true, St: store.Seat{Name: pc.who.Display(), Kind: "human", TokenHash: hash, ID: pc.who}},
		botSeatOf(botID),
	}
	g, err := kalah.NewGame(ch.rules)
	if err != nil {
		pc.reply <- personReply{err: err}
		return
	}
	// Not rated is casual (no takebacks, for a bot cannot grant one; no
	// hints, which are against the computer only).
	su := setup{rated: pc.rated, casual: !pc.rated, tags: map[string]string{}, path: gate.Challenge, addrs: [2]string{pc.addr}}
	if su.casual {
		su.tags[tagCasual] = "yes"
	}
	if pc.clock > 0 {
		su.ref = &referee.Referee{Budget: pc.clock, Increment: pc.inc, Grace: 250 * time.Millisecond}
		su.tags[tagPerMove] = "0"
		su.tags[tagDelay] = "0"
		su.tags[tagClock] = strconv.FormatInt(pc.clock.Milliseconds(), 10)
		su.tags[tagInc] = strconv.FormatInt(pc.inc.Milliseconds(), 10)
	}
	limited := -1
	su.limited = &limited
	rd, err := s.begin(s.ctx, g, seats, su)
	if err != nil {
		pc.reply <- personReply{err: err}
		return
	}
	out := Started{ID: rd.ID(), Limited: limited}
	if limited >= 0 {
		out.Note = limitNote(strconv.Itoa(limited), pc.who, [2]identity.ID{seats[0].St.ID, seats[1].St.ID}, [2]string{seats[0].St.Name, seats[1].St.Name})
	}
	out.Tokens[0] = token
	pc.reply <- personReply{st: out}
}
