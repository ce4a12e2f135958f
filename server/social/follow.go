package server

import (
	"errors"
	"fmt"
	"net/http"
	"slices"

	"kalah/internal/httpapi"
	"kalah/internal/identity"
	"kalah/internal/store"
)

// Following: a signed-in person follows players (people and bots, as on
// lichess), and their lobby shows the games those players are playing.
// Follows are kept in the store, by identity.

// MaxFollows bounds the players one account follows.
const MaxFollows = 500

// Following is what GET /api/account/following answers: the players the
// person follows, and the live games they play.
type Following struct {
	Players []identity.ID `json:"players"`
	Games   []GameInfo    `json:"games"`
}

// noPlayer is a player nobody is: ErrNotFound (404) in words of its own,
// not a game's.
type noPlayer string

func (e noPlayer) Error() string        { return fmt.Sprintf("no player named %q", string(e)) }
func (e noPlayer) Is(target error) bool { return target == ErrNotFound }

// follower returns the signed-in person of r, or ErrSignIn.
func (s *Server) follower(r *http.Request) (identity.ID, error) {
	u := s.sessionUser(r)
	if u == "" {
		return identity.ID{}, fmt.Errorf("%w: sign in to follow players", ErrSignIn)
	}
	return identity.Of(identity.Person, u), nil
}

// followed returns the player {name} of a route.
func (s *Server) followed(r *http.Request) (identity.ID, error) {
	who, err := s.st.Identity(r.Context(), r.PathValue("name"))
	if errors.Is(err, store.ErrNotFound) {
		return who, noPlayer(r.PathValue("name"))
	}
	return who, err
}

// apiFollow follows (or, for unfollow, stops following) player {name}.
func (s *Server) apiFollow(follow bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		me, err := s.follower(r)
		if err != nil {
			httpapi.WriteError(w, err)
			return
		}
		who, err := s.followed(r)
		if err != nil {
			httpapi.WriteError(w, err)
			return
		}
		switch {
		case !follow:
			err = s.st.Unfollow(r.Context(), me, who)
		case who.Is(me):
			err = fmt.Errorf("%w: you cannot follow yourself", ErrBadRequest)
		default:
			err = s.st.Follow(r.Context(), me, who, MaxFollows)
			if errors.Is(err, store.ErrFull) {
				err = fmt.Errorf("%w: you follow %d players, the most this server allows; unfollow some first", ErrTooMany, MaxFollows)
			}
		}
		if err != nil {
			httpapi.WriteError(w, err)
			return
		}
		httpapi.WriteJSON(w, http.StatusOK, map[string]any{"player": who, "following": follow})
	}
}

// apiFollowing answers the players the signed-in person follows and their
// live games.
func (s *Server) apiFollowing(w http.ResponseWriter, r *http.Request) {
	me, err := s.follower(r)
	if err != nil {
		httpapi.WriteError(w, err)
		return
	}
	ids, err := s.st.Following(r.Context(), me)
	if err != nil {
		httpapi.WriteError(w, err)
		return
	}
	out := Following{Players: ids, Games: []GameInfo{}}
	if out.Players == nil {
		out.Players = []identity.ID{}
	}
	for _, g := range s.LiveGames() {
		if slices.ContainsFunc(ids, func(id identity.ID) bool { return id.Is(g.SouthID) || id.Is(g.NorthID) }) {
			out.Games = append(out.Games, g)
		}
	}
	httpapi.WriteJSON(w, http.StatusOK, out)
}
