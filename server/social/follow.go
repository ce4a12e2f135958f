package social

import (
	"errors"
	"fmt"
	"net/http"

	"kalah/internal/httpapi"
	"kalah/internal/identity"
	"kalah/internal/store"
	"kalah/server/core"
)

// Following: a signed-in person follows players (people and bots, as on
// lichess), and their lobby shows the games those players are playing.
// Follows are kept in the store, by identity.

// MaxFollows bounds the players one account follows.
const MaxFollows = 500

// Following is what GET /api/account/following answers: the players the
// person follows, and the live games they play (G: the server's summary of
// a game).
type Following[G any] struct {
	Players []identity.ID `json:"players"`
	Games   []G           `json:"games"`
}

// NoPlayer is a player nobody is: core.ErrNotFound (404) in words of its
// own, not a game's.
type NoPlayer string

func (e NoPlayer) Error() string        { return fmt.Sprintf("no player named %q", string(e)) }
func (e NoPlayer) Is(target error) bool { return target == core.ErrNotFound }

// follower returns the signed-in person of r, or core.ErrSignIn.
func (m *Social[G]) follower(r *http.Request) (identity.ID, error) {
	u := m.host.SessionUser(r)
	if u == "" {
		return identity.ID{}, fmt.Errorf("%w: sign in to follow players", core.ErrSignIn)
	}
	return identity.Of(identity.Person, u), nil
}

// followed returns the player {name} of a route.
func (m *Social[G]) followed(r *http.Request) (identity.ID, error) {
	who, err := m.st.Identity(r.Context(), r.PathValue("name"))
	if errors.Is(err, store.ErrNotFound) {
		return who, NoPlayer(r.PathValue("name"))
	}
	return who, err
}

// Follow follows (or, for unfollow, stops following) player {name} (POST
// /api/players/{name}/follow and /unfollow).
func (m *Social[G]) Follow(follow bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		me, err := m.follower(r)
		if err != nil {
			httpapi.WriteError(w, err)
			return
		}
		who, err := m.followed(r)
		if err != nil {
			httpapi.WriteError(w, err)
			return
		}
		switch {
		case !follow:
			err = m.st.Unfollow(r.Context(), me, who)
		case who.Is(me):
			err = fmt.Errorf("%w: you cannot follow yourself", core.ErrBadRequest)
		default:
			err = m.st.Follow(r.Context(), me, who, MaxFollows)
			if errors.Is(err, store.ErrFull) {
				err = fmt.Errorf("%w: you follow %d players, the most this server allows; unfollow some first", core.ErrTooMany, MaxFollows)
			}
		}
		if err != nil {
			httpapi.WriteError(w, err)
			return
		}
		httpapi.WriteJSON(w, http.StatusOK, map[string]any{"player": who, "following": follow})
	}
}

// Following answers the players the signed-in person follows and their
// live games (GET /api/account/following).
func (m *Social[G]) Following(w http.ResponseWriter, r *http.Request) {
	me, err := m.follower(r)
	if err != nil {
		httpapi.WriteError(w, err)
		return
	}
	ids, err := m.st.Following(r.Context(), me)
	if err != nil {
		httpapi.WriteError(w, err)
		return
	}
	out := Following[G]{Players: ids, Games: m.host.PlayedBy(ids)}
	if out.Players == nil {
		out.Players = []identity.ID{}
	}
	if out.Games == nil {
		out.Games = []G{}
	}
	httpapi.WriteJSON(w, http.StatusOK, out)
}
