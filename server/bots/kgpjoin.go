package bots

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"

	"kalah/internal/identity"
	"kalah/internal/store"
	"kalah/player"
	"kalah/protocol/kgp"
	"kalah/protocol/line"
	"kalah/server/core"
)

// KGPJoin is the kgp.Server's Join for this server: the client waits in
// the one queue with every other bot and plays the game it is paired for.
// A client logged in by its token plays as its bot; an anonymous client's
// name is only a label, shown as "kgp-NAME" and made distinct among the
// clients connected at once ("kgp-NAME-2"), so that two copies of one
// program can be told apart. A client that cannot be seated is told why
// (error, then goodbye).
func (b *Bots) KGPJoin(ctx context.Context, c *kgp.Client) {
	name, key, bot := c.Identity(), "", c.Identity()
	seated := c.Seated
	if name == "" {
		name = b.anonKGP.Take(Label(c.Name()))
		defer b.anonKGP.Release(name)
		key = "kgp:" + name
	} else {
		// Known, so a token its owner replaces closes it (tokens.go).
		st, forget := b.kgp.Add(identity.Of(identity.Bot, bot).Key(), c)
		defer forget()
		seated = func(seat int) {
			st.Seat()
			c.Seated(seat)
		}
	}
	err := b.Play(ctx, Entrant{Name: name, Kind: "kgp", Player: c, Done: c.Done(), Key: key, Seated: seated, Bot: bot})
	switch {
	case err == nil:
	case errors.Is(err, player.ErrDisconnected), errors.Is(err, context.Canceled):
		b.cfg.Log.Info("kgp client left", "name", name, "err", err)
	case errors.Is(err, core.ErrClosed):
		c.Refuse("the server is stopping")
	default:
		b.cfg.Log.Info("kgp client refused", "name", name, "err", err)
		c.Refuse(err.Error())
	}
}

// KGPAdmit is the kgp.Server's Admit for this server: a bot logged in by
// its token may wait for one game at a time, so a second connection of the
// same bot (two copies started) is refused, with the reason, before it is
// told ok.
func (b *Bots) KGPAdmit(ctx context.Context, c *kgp.Client) error {
	id := c.Identity()
	if id == "" {
		return nil
	}
	b.queue.mu.Lock()
	defer b.queue.mu.Unlock()
	for _, q := range b.queue.entries {
		if q.key == identity.Of(identity.Bot, id).Key() {
			return fmt.Errorf("%s is already waiting for a game on another connection: %w", id, core.ErrBusy)
		}
	}
	return nil
}

// TokenLogin logs in a bot that gives a token, as KGP's auth:token does
// (spec section 043: the token is the identity, no registration needed).
// A token some bot already has logs in as that bot. A new token registers
// a bot: under name if the client gave a valid, free one, else under a
// name made from the token. A name that belongs to a bot with another
// token is refused. With forget, the server forgets the token instead
// (it finds no bot any more) and the client plays anonymously: the
// identity returned is "".
func (b *Bots) TokenLogin(ctx context.Context, name, token string, forget bool) (string, error) {
	if forget {
		if err := b.cfg.Store.ForgetToken(ctx, token); err != nil {
			return "", fmt.Errorf("cannot forget the token now: %w", err)
		}
		b.cfg.Log.Info("bot token forgotten", "label", name)
		return "", nil
	}
	bot, err := b.cfg.Store.BotByToken(ctx, token)
	switch {
	case err == nil:
		return bot, nil
	case !errors.Is(err, store.ErrNoBot):
		return "", fmt.Errorf("cannot check the token now, try again later")
	}
	login := b.cfg.Store.BotLogin
	if !line.ValidName(name) {
		// The name made from the token (docs/protocols/kgp.md): its
		// reserved prefix is the server's to give.
		sum := sha256.Sum256([]byte(token))
		name = "kgp-" + hex.EncodeToString(sum[:4])
		login = b.cfg.Store.BotLoginMade
	}
	canon, created, err := login(ctx, name, token)
	switch {
	case errors.Is(err, store.ErrRevokedToken):
		return "", fmt.Errorf("%w: set auth:token to the new one", store.ErrRevokedToken)
	case errors.Is(err, store.ErrBadToken):
		if canon == "" {
			canon = name
		}
		return "", fmt.Errorf("the name %s belongs to a bot with another token: set another info:name, or the token of %s", canon, canon)
	case errors.Is(err, store.ErrNameTaken), errors.Is(err, store.ErrBadAccount):
		return "", fmt.Errorf("%v: set info:name to a name of your own", err)
	case err != nil:
		b.cfg.Log.Error("bot login by token failed", "name", name, "err", err)
		return "", fmt.Errorf("cannot log in now, try again later")
	}
	if created {
		b.cfg.Log.Info("bot registered by token", "name", canon)
	}
	return canon, nil
}
