package accounts

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"kalah/internal/httpapi"
	"kalah/internal/identity"
	"kalah/internal/netx"
	"kalah/internal/store"
)

// ErrGamesUnfinished refuses to delete an account while it, or a bot it
// owns, plays a game: the game would go on under a name that no longer
// exists.
var ErrGamesUnfinished = errors.New("unfinished games")

// endCookie removes the session cookie from the browser.
func endCookie(w http.ResponseWriter, r *http.Request) {
	http.SetCookie(w, &http.Cookie{Name: SessionCookie, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: netx.HTTPS(r)})
}

// sessionToken is the session cookie's token of r, "" for none.
func sessionToken(r *http.Request) string {
	if c, err := r.Cookie(SessionCookie); err == nil {
		return c.Value
	}
	return ""
}

// Password answers POST /api/account/password {"current","new"}: a new
// password for the signed-in person, given the current one; every other
// session of theirs ends (this one stays).
func (s *Service) Password(w http.ResponseWriter, r *http.Request) {
	user, ok := s.SignedIn(w, r, "change your password")
	if !ok {
		return
	}
	var req struct {
		Current string `json:"current"`
		New     string `json:"new"`
	}
	if err := httpapi.ReadJSON(w, r, &req); err != nil {
		httpapi.WriteError(w, err)
		return
	}
	// The current password is guessed no faster here than at sign-in.
	if !s.rateOK(w, r) {
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 2*s.cfg.HashWait)
	defer cancel()
	if err := s.st.ChangePassword(ctx, user, req.Current, req.New, sessionToken(r)); err != nil {
		s.AccountErr(w, err)
		return
	}
	s.log.Info("password changed", "name", user)
	httpapi.WriteJSON(w, http.StatusOK, map[string]string{})
}

// LogoutEverywhere answers POST /api/account/logout/everywhere {}: ends
// every session of the signed-in person, on every device, this one too.
func (s *Service) LogoutEverywhere(w http.ResponseWriter, r *http.Request) {
	user, ok := s.SignedIn(w, r, "sign out everywhere")
	if !ok {
		return
	}
	n, err := s.st.EndSessions(r.Context(), user)
	if err != nil {
		s.AccountErr(w, err)
		return
	}
	endCookie(w, r)
	httpapi.WriteJSON(w, http.StatusOK, map[string]int{"sessions": n})
}

// DeleteAccount answers DELETE /api/account {"password"}: deletes the
// signed-in person's account and its data (store.DeleteUser), given its
// password; the games it played stay, its seat shown as deleted. Refused
// while it or one of its bots plays a game.
func (s *Service) DeleteAccount(w http.ResponseWriter, r *http.Request) {
	// A DELETE is as much a change as a POST: the server's writesChecked
	// holds it to a same-site JSON request.
	user, ok := s.SignedIn(w, r, "delete your account")
	if !ok {
		return
	}
	var req struct {
		Password string `json:"password"`
	}
	if err := httpapi.ReadJSON(w, r, &req); err != nil {
		httpapi.WriteError(w, err)
		return
	}
	if !s.rateOK(w, r) {
		return
	}
	bots, err := s.st.BotsOf(r.Context(), user)
	if err != nil {
		s.AccountErr(w, err)
		return
	}
	ids := []identity.ID{identity.Of(identity.Person, user)}
	for _, b := range bots {
		ids = append(ids, identity.Of(identity.Bot, b))
	}
	for _, id := range ids {
		live, err := s.st.Games(r.Context(), store.Filter{Status: store.Live, Player: id, Limit: 1})
		if err != nil {
			s.AccountErr(w, err)
			return
		}
		if len(live) > 0 {
			who := "you play"
			if id.Kind == identity.Bot {
				who = "your bot " + id.Name + " plays"
			}
			httpapi.WriteError(w, fmt.Errorf("%w: %s game %d: finish, abort or resign it, then delete the account", ErrGamesUnfinished, who, live[0].ID))
			return
		}
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.HashWait)
	defer cancel()
	deleted, err := s.st.DeleteUser(ctx, user, req.Password)
	if err != nil {
		s.AccountErr(w, err)
		return
	}
	endCookie(w, r)
	s.log.Info("account deleted", "name", user, "bots", deleted)
	httpapi.WriteJSON(w, http.StatusOK, map[string]any{"deleted": user, "bots": deleted})
}
