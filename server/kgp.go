package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"sync/atomic"

	"kalah/internal/identity"
	"kalah/internal/store"
	"kalah/protocol/kgp"
	"kalah/protocol/line"
)

// kgpSerial numbers anonymous KGP clients, so that clients sharing a name
// (only a label) are told apart in the queue.
var kgpSerial atomic.Uint64

// KGPJoin is the kgp.Server's Join for this server: the client waits in
// the one queue with every other bot and plays the game it is paired for.
// A client logged in by its token plays as its bot; an anonymous client's
// name is only a label ("kgp-NAME"), which any number of clients may share.
func (s *Server) KGPJoin(ctx context.Context, c *kgp.Client) {
	name, key, bot := c.Identity(), "", c.Identity()
	if name == "" {
		name = "kgp-" + label(c.Name())
		key = fmt.Sprintf("kgp#%d", kgpSerial.Add(1))
	}
	if err := s.Play(ctx, Entrant{Name: name, Kind: "kgp", Player: c, Done: c.Done(), Key: key, Seated: c.Seated, Bot: bot}); err != nil {
		s.log.Info("kgp client left", "name", name, "err", err)
	}
}

// label makes a name a client chose (only a label) safe to show and to
// send on, as one word: letters, digits, '-', '_' and '.', at most 24.
func label(name string) string {
	b := []byte(identity.CleanText(name, 24))
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			b[i] = '_'
		}
	}
	if len(b) == 0 {
		return "anonymous"
	}
	return string(b)
}

// TokenLogin logs in a bot that gives a token, as KGP's auth:token does
// (spec section 043: the token is the identity, no registration needed).
// A token some bot already has logs in as that bot. A new token registers
// a bot: under name if the client gave a valid, free one, else under a
// name made from the token. A name that belongs to a bot with another
// token is refused. With forget, the server forgets the token instead
// (it finds no bot any more) and the client plays anonymously: the
// identity returned is "".
func (s *Server) TokenLogin(ctx context.Context, name, token string, forget bool) (string, error) {
	if forget {
		if err := s.st.ForgetToken(ctx, token); err != nil {
			return "", fmt.Errorf("cannot forget the token now: %w", err)
		}
		s.log.Info("bot token forgotten", "label", name)
		return "", nil
	}
	bot, err := s.st.BotByToken(ctx, token)
	switch {
	case err == nil:
		return bot, nil
	case !errors.Is(err, store.ErrNoBot):
		return "", fmt.Errorf("cannot check the token now, try again later")
	}
	if !line.ValidName(name) {
		sum := sha256.Sum256([]byte(token))
		name = "kgp-" + hex.EncodeToString(sum[:4])
	}
	login := s.st.BotLogin
	if !line.ValidName(name) {
		login = s.st.BotLoginMade // the name made from the token
	}
	canon, created, err := login(ctx, name, token)
	switch {
	case errors.Is(err, store.ErrBadToken):
		return "", fmt.Errorf("the name %s belongs to a bot with another token: set another info:name, or the token of %s", canon, canon)
	case errors.Is(err, store.ErrNameTaken), errors.Is(err, store.ErrBadAccount):
		return "", fmt.Errorf("%v: set info:name to a name of your own", err)
	case err != nil:
		s.log.Error("bot login by token failed", "name", name, "err", err)
		return "", fmt.Errorf("cannot log in now, try again later")
	}
	if created {
		s.log.Info("bot registered by token", "name", canon)
	}
	return canon, nil
}
