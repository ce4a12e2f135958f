package bots

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"kalah"
	"kalah/internal/httpapi"
	"kalah/internal/identity"
	"kalah/protocol/line"
	"kalah/server/core"
)

// challenge is an invitation from one bot to another.
type challenge struct {
	id       string
	from, to *Conn
	rules    kalah.Rules
	at       time.Time // when it was made
	// person, for a challenge from a person on the page (from is nil),
	// hears the bot's answer.
	person *personChallenge
}

// challenges are the open challenges, by id; their lock guards nothing
// else, and nothing is called while it is held.
type challenges struct {
	mu   sync.Mutex
	by   map[string]*challenge
	next int
}

// countLocked counts the open challenges from a bot's connection or from
// a person's account (ch.mu held). A bot's challenge left unanswered
// longer than a person's may wait (challengeTimeout) lapses here, so a bot
// whose challenges were ignored can challenge again.
func (ch *challenges) countLocked(from *Conn, person string) int {
	n := 0
	for id, c := range ch.by {
		switch {
		case from != nil && c.from == from:
			if time.Since(c.at) > challengeTimeout {
				delete(ch.by, id)
				continue
			}
			n++
		case person != "" && c.person != nil && c.person.Who.Is(identity.Of(identity.Person, person)):
			n++
		}
	}
	return n
}

// openChallenge gives c an id and keeps it, unless its bot (c.from) or
// person already has the most open challenges allowed: then it says why
// not, and the refusal is counted.
func (b *Bots) openChallenge(c *challenge, person string) string {
	ch := &b.chals
	ch.mu.Lock()
	if ch.countLocked(c.from, person) >= b.cfg.MaxChallenges {
		ch.mu.Unlock()
		b.host.Refused("challenges")
		return strconv.Itoa(b.cfg.MaxChallenges) + " open challenges already, the most this server allows at once; wait for an answer or withdraw one"
	}
	ch.next++
	c.id = strconv.Itoa(ch.next)
	ch.by[c.id] = c
	ch.mu.Unlock()
	return ""
}

// take removes challenge id to bot connection to and returns it, or nil
// if there is none such.
func (ch *challenges) take(id string, to *Conn) *challenge {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	c := ch.by[id]
	if c == nil || c.to != to {
		return nil
	}
	delete(ch.by, id)
	return c
}

// withdraw removes challenge id.
func (ch *challenges) withdraw(id string) {
	ch.mu.Lock()
	delete(ch.by, id)
	ch.mu.Unlock()
}

// forget removes the challenges from or to connection c, which ended.
func (ch *challenges) forget(c *Conn) {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	for id, x := range ch.by {
		if x.from == c || x.to == c {
			delete(ch.by, id)
		}
	}
}

// A signed-in person may challenge a bot that is online and free: the bot
// is asked as by another bot (challenged ID FROM RULES) and plays only if
// it accepts. The person plays South, as a challenger does.

// PersonChallenge is a person's challenge to a bot, as the game it
// starts needs it.
type PersonChallenge struct {
	Who        identity.ID // the person
	Clock, Inc time.Duration
	Rated      bool
	Addr       string // the address the person asked from (for the gate)
}

type personChallenge struct {
	PersonChallenge
	reply chan personReply
}

type personReply struct {
	answer any
	err    error
}

// challengeTimeout is how long a bot has to answer a person's challenge.
var challengeTimeout = 30 * time.Second

// OnlineBots returns the bots logged in on our protocol that are neither
// playing nor queued nor waiting for tournament games: the ones a person
// may challenge.
func (b *Bots) OnlineBots() []string {
	var out []string
	for key, c := range b.sessions.All() {
		c.mu.Lock()
		free := c.game == nil && c.queued == nil && !c.waiting
		name := c.name
		c.mu.Unlock()
		if free && b.host.Seated(key) == nil {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// APIOnlineBots serves GET /api/bots/online: OnlineBots.
func (b *Bots) APIOnlineBots(w http.ResponseWriter, r *http.Request) {
	bots := b.OnlineBots()
	if bots == nil {
		bots = []string{}
	}
	httpapi.WriteJSON(w, http.StatusOK, bots)
}

// APIChallengeBot asks a bot to play the signed-in person; it answers the
// game (the person's seat's token) once the bot accepts, 409 if it
// declines, 504 if it does not answer in time.
func (b *Bots) APIChallengeBot(w http.ResponseWriter, r *http.Request) {
	user, ok := b.host.SignedIn(w, r, "challenge a bot")
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
	if err := core.CheckSettings(&req.Rules, b.cfg.Rules, req.ClockMS, req.IncrementMS); err != nil {
		httpapi.WriteError(w, err)
		return
	}
	name := r.PathValue("name")
	if !slices.ContainsFunc(b.OnlineBots(), func(b string) bool { return strings.EqualFold(b, name) }) {
		httpapi.WriteError(w, fmt.Errorf("bot %s is not online and free: %w", name, core.ErrNotFound))
		return
	}
	pc := &personChallenge{PersonChallenge: PersonChallenge{Who: who, Clock: time.Duration(req.ClockMS) * time.Millisecond,
		Inc: time.Duration(req.IncrementMS) * time.Millisecond, Rated: req.Rated, Addr: core.HostOf(r)}, reply: make(chan personReply, 1)}
	to := b.sessions.Get(identity.Of(identity.Bot, name).Key())
	if to == nil {
		httpapi.WriteError(w, fmt.Errorf("bot %s is not online: %w", name, core.ErrNotFound))
		return
	}
	ch := &challenge{to: to, rules: req.Rules, person: pc, at: time.Now()}
	if why := b.openChallenge(ch, user); why != "" {
		httpapi.WriteError(w, fmt.Errorf("%w: %s", core.ErrTooMany, why))
		return
	}
	to.SendMsg(line.Msg{Cmd: "challenged", Args: []string{ch.id, user, line.RulesToken(req.Rules)}})
	withdraw := func() { b.chals.withdraw(ch.id) }
	select {
	case rep := <-pc.reply:
		if rep.err != nil {
			httpapi.WriteError(w, rep.err)
			return
		}
		httpapi.WriteJSON(w, http.StatusCreated, rep.answer)
	case <-time.After(challengeTimeout):
		withdraw()
		httpapi.WriteError(w, fmt.Errorf("%w: %s did not answer the challenge in %v", core.ErrNoAnswer, name, challengeTimeout))
	case <-r.Context().Done():
		withdraw()
	}
}

// answerPerson plays a person's challenge the bot accepted (or tells the
// person it declined).
func (b *Bots) answerPerson(c *Conn, name string, ch *challenge, accept bool) {
	pc := ch.person
	if !accept {
		c.SendMsg(line.Msg{Cmd: "ok", Args: []string{"decline", ch.id}})
		pc.reply <- personReply{err: fmt.Errorf("%w: %s declined the challenge", core.ErrNoSeat, name)}
		return
	}
	if c.busy() {
		c.SendMsg(line.Errorf(line.CodeBusy, "already playing or queued"))
		pc.reply <- personReply{err: fmt.Errorf("%w: %s is busy", core.ErrBusy, name)}
		return
	}
	c.SendMsg(line.Msg{Cmd: "ok", Args: []string{"accept", ch.id}})
	c.mu.Lock()
	botID := c.id
	c.mu.Unlock()
	answer, err := b.host.PersonGame(pc.PersonChallenge, ch.rules, botID)
	pc.reply <- personReply{answer: answer, err: err}
}
