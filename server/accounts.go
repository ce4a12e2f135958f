package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"kalah/internal/httpapi"
	"kalah/internal/identity"
	"kalah/internal/netx"
	"kalah/internal/store"
)

// SessionCookie is the cookie that holds a signed-in person's session.
const SessionCookie = "kalah_session"

// sessionTTL is how long a session lasts.
const sessionTTL = 30 * 24 * time.Hour

type credentials struct {
	Name     string `json:"name"`
	Password string `json:"password"`
}

// signIn starts a session and sets its cookie: HttpOnly (no script reads
// it), SameSite=Lax (no other site's request carries it), Secure when the
// client used HTTPS (TLS here, or a trusted proxy's word).
func (s *Server) signIn(w http.ResponseWriter, r *http.Request, user string) error {
	tok, err := s.st.NewSession(r.Context(), user, sessionTTL)
	if err != nil {
		return err
	}
	http.SetCookie(w, &http.Cookie{Name: SessionCookie, Value: tok, Path: "/", MaxAge: int(sessionTTL / time.Second),
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: netx.HTTPS(r)})
	return nil
}

// sessionUser returns the signed-in person of a request, or "" (for a
// store that fails too: use signedIn where only a person may ask).
func (s *Server) sessionUser(r *http.Request) string {
	u, _ := s.session(r)
	return u
}

// session returns the signed-in person of a request: "" and no error for
// a request with no live session; an error if the store cannot tell.
func (s *Server) session(r *http.Request) (string, error) {
	c, err := r.Cookie(SessionCookie)
	if err != nil {
		return "", nil
	}
	u, err := s.st.SessionUser(r.Context(), c.Value)
	if errors.Is(err, store.ErrNoSession) {
		return "", nil
	}
	return u, err
}

// signedIn returns the signed-in person of a request, or answers it: 401
// (sign in to do what), or the store's failure (503, not the client's
// fault), and reports false.
func (s *Server) signedIn(w http.ResponseWriter, r *http.Request, what string) (string, bool) {
	u, err := s.session(r)
	if err == nil && u == "" {
		err = fmt.Errorf("%w: sign in to %s", ErrSignIn, what)
	}
	if err != nil {
		httpapi.WriteError(w, err)
		return "", false
	}
	return u, true
}

// GuestCookie is the cookie that holds a guest's number signed by the
// server (guests.go): a browser or client without an account is that
// guest (identity.GuestNumbered) as long as it keeps it.
const GuestCookie = "kalah_guest"

// guestTTL is how long a guest's cookie lasts.
const guestTTL = 365 * 24 * time.Hour

// actor returns who makes r: the signed-in person; else a bot by its
// token (Authorization: Bearer); else the guest whose cookie r carries,
// or, if create, a new guest (the cookie set on w). token is the seat's
// token the request gives, if any.
func (s *Server) actor(w http.ResponseWriter, r *http.Request, token string, create bool) Actor {
	a, _ := s.actorErr(w, r, token, create)
	return a
}

// actorErr is actor, with the store's failure to tell a session: a
// request that must know who asks answers it (503), not as a stranger's.
func (s *Server) actorErr(w http.ResponseWriter, r *http.Request, token string, create bool) (Actor, error) {
	a := Actor{Token: token, Addr: hostOf(r)}
	u, err := s.session(r)
	if err != nil {
		return a, err
	}
	if u != "" {
		a.ID = identity.Of(identity.Person, u)
		return a, nil
	}
	if h := r.Header.Get("Authorization"); strings.HasPrefix(h, "Bearer ") {
		if bot, err := s.st.BearerBot(r.Context(), h); err == nil {
			a.ID = identity.Of(identity.Bot, bot)
			return a, nil
		}
	}
	if c, err := r.Cookie(GuestCookie); err == nil {
		// Only a cookie this server signed names a guest (guests.go); any
		// other value is refused, and replaced if a guest is to be made.
		if id, ok := s.guestOf(r.Context(), c.Value); ok {
			a.ID = id
			return a, nil
		}
	}
	if create {
		id, err := s.newGuest(w, r)
		if err != nil {
			return a, errGuest(err)
		}
		a.ID = id
	}
	return a, nil
}

// rateOK applies the per-address login limit to sign-ups and sign-ins.
func (s *Server) rateOK(w http.ResponseWriter, r *http.Request) bool {
	if !s.limiter.Allow(hostOf(r)) {
		s.refused("login-rate")
		w.Header().Set("Retry-After", "1")
		httpapi.WriteError(w, fmt.Errorf("%w: too many attempts from your address; wait a little", ErrTooMany))
		return false
	}
	return true
}

func (s *Server) accountErr(w http.ResponseWriter, err error) {
	if errors.Is(err, store.ErrHashBusy) {
		s.refused("hashing-busy")
	}
	httpapi.WriteError(w, err)
}

// POST /api/account/signup {"name","password"}: a new account, signed in.
func (s *Server) apiSignup(w http.ResponseWriter, r *http.Request) {
	var c credentials
	if err := httpapi.ReadJSON(w, r, &c); err != nil {
		httpapi.WriteError(w, err)
		return
	}
	if !s.rateOK(w, r) || !s.signupOK(w) {
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.HashWait)
	defer cancel()
	if err := s.st.CreateUser(ctx, c.Name, c.Password); err != nil {
		s.accountErr(w, err)
		return
	}
	if err := s.signIn(w, r, c.Name); err != nil {
		s.accountErr(w, err)
		return
	}
	s.signedInFrom(w, r, c.Name)
	s.log.Info("account created", "name", c.Name)
	httpapi.WriteJSON(w, http.StatusCreated, map[string]string{"name": c.Name})
}

// POST /api/account/login {"name","password"}: signs in.
func (s *Server) apiLogin(w http.ResponseWriter, r *http.Request) {
	var c credentials
	if err := httpapi.ReadJSON(w, r, &c); err != nil {
		httpapi.WriteError(w, err)
		return
	}
	if !s.rateOK(w, r) {
		return
	}
	// The account's own limit, whatever the address (logins.go).
	tried, ok := s.loginTry(w, r, c.Name)
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.HashWait)
	defer cancel()
	name, err := s.st.CheckPassword(ctx, c.Name, c.Password)
	tried(errors.Is(err, store.ErrBadPassword))
	if err != nil {
		s.accountErr(w, err)
		return
	}
	s.signedInFrom(w, r, name)
	if err := s.signIn(w, r, name); err != nil {
		s.accountErr(w, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, map[string]string{"name": name})
}

// POST /api/account/logout: ends the session.
func (s *Server) apiLogout(w http.ResponseWriter, r *http.Request) {
	if c, err := r.Cookie(SessionCookie); err == nil {
		s.st.EndSession(r.Context(), c.Value)
	}
	http.SetCookie(w, &http.Cookie{Name: SessionCookie, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: netx.HTTPS(r)})
	httpapi.WriteJSON(w, http.StatusOK, map[string]string{})
}

// GET /api/account: who the request is: a signed-in person (with the bots
// they own), or a bot by its token (Authorization: Bearer).
func (s *Server) apiAccount(w http.ResponseWriter, r *http.Request) {
	if bot, err := s.st.BearerBot(r.Context(), r.Header.Get("Authorization")); err == nil {
		httpapi.WriteJSON(w, http.StatusOK, map[string]any{"bot": bot})
		return
	}
	user, err := s.session(r)
	if err != nil {
		httpapi.WriteError(w, err)
		return
	}
	if user == "" && r.Header.Get("Authorization") != "" {
		s.accountErr(w, fmt.Errorf("%w: the token of no bot", store.ErrNoSession))
		return
	}
	if user == "" {
		// A visitor: who they are here, if anyone (200, so a page asks
		// without a failed request).
		out := map[string]any{}
		if a := s.actor(w, r, "", false); !a.ID.IsZero() {
			out["id"], out["guest"] = a.ID, a.ID.Display()
		}
		httpapi.WriteJSON(w, http.StatusOK, out)
		return
	}
	bots, err := s.st.BotsOf(r.Context(), user)
	if err != nil {
		s.accountErr(w, err)
		return
	}
	if bots == nil {
		bots = []string{}
	}
	httpapi.WriteJSON(w, http.StatusOK, map[string]any{"name": user, "id": identity.Of(identity.Person, user), "bots": bots})
}

// POST /api/account/bots {"name"}: a new bot of the signed-in person; its
// token is in this answer only.
func (s *Server) apiNewBot(w http.ResponseWriter, r *http.Request) {
	user, ok := s.signedIn(w, r, "make a bot")
	if !ok {
		return
	}
	var req struct {
		Name string `json:"name"`
	}
	if err := httpapi.ReadJSON(w, r, &req); err != nil {
		httpapi.WriteError(w, err)
		return
	}
	token, err := s.st.CreateBot(r.Context(), user, req.Name)
	if err != nil {
		s.accountErr(w, err)
		return
	}
	s.log.Info("bot created", "owner", user, "bot", req.Name)
	httpapi.WriteJSON(w, http.StatusCreated, map[string]string{"name": req.Name, "token": token,
		"note": "keep the token: it is shown only now; it logs the bot in with login NAME TOKEN, set auth:token, or Authorization: Bearer"})
}
