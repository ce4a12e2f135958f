package bots

import (
	"net/http"

	"kalah/internal/httpapi"
	"kalah/internal/identity"
	"kalah/protocol/line"
)

// RotateToken serves POST /api/account/bots/{name}/token: a new token for the signed-in
// person's bot, in this answer only; the old one is refused from now on,
// on every protocol, and the bot's connections close after the game each
// plays (at once if none).
func (b *Bots) RotateToken(w http.ResponseWriter, r *http.Request) {
	user, ok := b.host.SignedIn(w, r, "give a bot a new token")
	if !ok {
		return
	}
	canon, token, err := b.cfg.Store.RotateBotToken(r.Context(), user, r.PathValue("name"))
	if err != nil {
		b.host.AccountErr(w, err)
		return
	}
	b.retire(identity.Of(identity.Bot, canon))
	b.cfg.Log.Info("bot token replaced", "owner", user, "bot", canon)
	httpapi.WriteJSON(w, http.StatusOK, map[string]string{"name": canon, "token": token,
		"note": "keep the token: it is shown only now; the old one no longer logs the bot in, and its connections close after their game"})
}

// retire closes the connections of bot id, logged in with a token that
// is no longer its own: one that plays a game closes after it, any other
// at once. The line protocol's (TCP or WebSocket) leaves the sessions, so
// no challenge or arranged game finds it meanwhile.
func (b *Bots) retire(id identity.ID) {
	key := id.Key()
	c := b.sessions.Take(key)
	if c != nil {
		c.mu.Lock()
		c.retired = true
		c.waiting = false
		game, queued := c.game, c.queued
		c.queued = nil
		c.mu.Unlock()
		if queued != nil {
			b.queue.remove(queued)
		}
		bye := func() {
			c.SendMsg(line.Errorf(line.CodeAuth, "%s", TokenReplaced))
			c.Close()
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
	idle := b.kgp.Idle(key)
	// A seated KGP client's connection ends with its game, as every KGP
	// client's does.
	for _, kc := range idle {
		kc.Refuse(TokenReplaced)
		kc.Close()
	}
}

// retiredConn reports whether c's bot's token was replaced: it may finish
// its game, and do nothing else.
func (c *Conn) retiredConn() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.retired && c.game == nil
}
