package server

import (
	"net/http"
	"sync"

	"kalah/internal/httpapi"
	"kalah/internal/identity"
	"kalah/protocol/kgp"
	"kalah/protocol/line"
)

// tokenReplaced is what a connection of a bot whose token its owner
// replaced is told before it is closed.
const tokenReplaced = "the bot's token was replaced by its owner: log in with the new one"

// kgpBots are the KGP connections of bots logged in by a token, by the
// bot's identity key, so a replaced token's connections can be closed.
type kgpBots struct {
	mu sync.Mutex
	by map[string]map[*kgp.Client]*kgpSeat
}

// kgpSeat says whether a KGP client has been seated in its game.
type kgpSeat struct {
	mu     sync.Mutex
	seated bool
}

// add notes client c of bot key; the function returned forgets it.
func (k *kgpBots) add(key string, c *kgp.Client) (*kgpSeat, func()) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.by == nil {
		k.by = map[string]map[*kgp.Client]*kgpSeat{}
	}
	if k.by[key] == nil {
		k.by[key] = map[*kgp.Client]*kgpSeat{}
	}
	st := &kgpSeat{}
	k.by[key][c] = st
	return st, func() {
		k.mu.Lock()
		defer k.mu.Unlock()
		delete(k.by[key], c)
		if len(k.by[key]) == 0 {
			delete(k.by, key)
		}
	}
}

// POST /api/account/bots/{name}/token: a new token for the signed-in
// person's bot, in this answer only; the old one is refused from now on,
// on every protocol, and the bot's connections close after the game each
// plays (at once if none).
func (s *Server) apiRotateBotToken(w http.ResponseWriter, r *http.Request) {
	user, ok := s.signedIn(w, r, "give a bot a new token")
	if !ok {
		return
	}
	canon, token, err := s.st.RotateBotToken(r.Context(), user, r.PathValue("name"))
	if err != nil {
		s.accountErr(w, err)
		return
	}
	s.retireBot(identity.Of(identity.Bot, canon))
	s.log.Info("bot token replaced", "owner", user, "bot", canon)
	httpapi.WriteJSON(w, http.StatusOK, map[string]string{"name": canon, "token": token,
		"note": "keep the token: it is shown only now; the old one no longer logs the bot in, and its connections close after their game"})
}

// retireBot closes the connections of bot id, logged in with a token that
// is no longer its own: one that plays a game closes after it, any other
// at once. The line protocol's (TCP or WebSocket) leaves the sessions, so
// no challenge or arranged game finds it meanwhile.
func (s *Server) retireBot(id identity.ID) {
	key := id.Key()
	s.mu.Lock()
	c := s.sessions[key]
	if c != nil {
		delete(s.sessions, key)
	}
	s.mu.Unlock()
	if c != nil {
		c.mu.Lock()
		c.retired = true
		c.waiting = false
		game, queued := c.game, c.queued
		c.queued = nil
		c.mu.Unlock()
		if queued != nil {
			s.dequeue(queued)
		}
		bye := func() {
			c.sendMsg(line.Errorf(line.CodeAuth, "%s", tokenReplaced))
			c.close()
		}
		if game == nil {
			bye()
		} else {
			go func() {
				select {
				case <-game.Done():
				case <-c.Done():
				}
				bye()
			}()
		}
	}
	s.kgp.mu.Lock()
	var idle []*kgp.Client
	for kc, st := range s.kgp.by[key] {
		st.mu.Lock()
		if !st.seated {
			idle = append(idle, kc)
		}
		st.mu.Unlock()
	}
	s.kgp.mu.Unlock()
	// A seated KGP client's connection ends with its game, as every KGP
	// client's does.
	for _, kc := range idle {
		kc.Refuse(tokenReplaced)
		kc.Close()
	}
}

// retiredConn reports whether c's bot's token was replaced: it may finish
// its game, and do nothing else.
func (c *conn) retiredConn() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.retired && c.game == nil
}
