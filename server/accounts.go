package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

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

func readJSON(w http.ResponseWriter, r *http.Request, v any) error {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 16<<10))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
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

// sessionUser returns the signed-in person of a request, or "".
func (s *Server) sessionUser(r *http.Request) string {
	c, err := r.Cookie(SessionCookie)
	if err != nil {
		return ""
	}
	u, err := s.st.SessionUser(r.Context(), c.Value)
	if err != nil {
		return ""
	}
	return u
}

// GuestCookie is the cookie that holds a guest's secret: a browser or
// client without an account is a guest (identity.GuestOf) as long as it
// keeps it.
const GuestCookie = "kalah_guest"

// guestTTL is how long a guest's cookie lasts.
const guestTTL = 365 * 24 * time.Hour

// actor returns who makes r: the signed-in person; else a bot by its
// token (Authorization: Bearer); else the guest whose cookie r carries,
// or, if create, a new guest (the cookie set on w). token is the seat's
// token the request gives, if any.
func (s *Server) actor(w http.ResponseWriter, r *http.Request, token string, create bool) Actor {
	a := Actor{Token: token}
	if u := s.sessionUser(r); u != "" {
		a.ID = identity.Of(identity.Person, u)
		return a
	}
	if h := r.Header.Get("Authorization"); strings.HasPrefix(h, "Bearer ") {
		if bot, err := s.st.BearerBot(r.Context(), h); err == nil {
			a.ID = identity.Of(identity.Bot, bot)
			return a
		}
	}
	if c, err := r.Cookie(GuestCookie); err == nil && len(c.Value) == 32 {
		a.ID = identity.GuestOf(c.Value)
		return a
	}
	if create {
		secret, _ := newToken()
		http.SetCookie(w, &http.Cookie{Name: GuestCookie, Value: secret, Path: "/", MaxAge: int(guestTTL / time.Second),
			HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: netx.HTTPS(r)})
		a.ID = identity.GuestOf(secret)
	}
	return a
}

// rateOK applies the per-address login limit to sign-ups and sign-ins.
func (s *Server) rateOK(w http.ResponseWriter, r *http.Request) bool {
	if !s.limiter.Allow(hostOf(r)) {
		s.refused("login-rate")
		w.Header().Set("Retry-After", "1")
		writeJSON(w, http.StatusTooManyRequests, map[string]string{"error": "too many attempts from your address; wait a little"})
		return false
	}
	return true
}

func (s *Server) accountErr(w http.ResponseWriter, err error) {
	switch {
	case errors.Is(err, store.ErrBadAccount):
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
	case errors.Is(err, store.ErrNameTaken):
		writeJSON(w, http.StatusConflict, map[string]string{"error": err.Error()})
	case errors.Is(err, store.ErrBadPassword), errors.Is(err, store.ErrNoSession):
		writeJSON(w, http.StatusUnauthorized, map[string]string{"error": err.Error()})
	case errors.Is(err, store.ErrHashBusy):
		s.refused("hashing-busy")
		w.Header().Set("Retry-After", "5")
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"error": store.ErrHashBusy.Error()})
	default:
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"error": "cannot do that now, try again later"})
	}
}

// POST /api/account/signup {"name","password"}: a new account, signed in.
func (s *Server) apiSignup(w http.ResponseWriter, r *http.Request) {
	var c credentials
	if err := readJSON(w, r, &c); err != nil {
		writeErr(w, err)
		return
	}
	if !s.rateOK(w, r) {
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
	s.log.Info("account created", "name", c.Name)
	writeJSON(w, http.StatusCreated, map[string]string{"name": c.Name})
}

// POST /api/account/login {"name","password"}: signs in.
func (s *Server) apiLogin(w http.ResponseWriter, r *http.Request) {
	var c credentials
	if err := readJSON(w, r, &c); err != nil {
		writeErr(w, err)
		return
	}
	if !s.rateOK(w, r) {
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.HashWait)
	defer cancel()
	name, err := s.st.CheckPassword(ctx, c.Name, c.Password)
	if err != nil {
		s.accountErr(w, err)
		return
	}
	if err := s.signIn(w, r, name); err != nil {
		s.accountErr(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"name": name})
}

// POST /api/account/logout: ends the session.
func (s *Server) apiLogout(w http.ResponseWriter, r *http.Request) {
	if c, err := r.Cookie(SessionCookie); err == nil {
		s.st.EndSession(r.Context(), c.Value)
	}
	http.SetCookie(w, &http.Cookie{Name: SessionCookie, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: netx.HTTPS(r)})
	writeJSON(w, http.StatusOK, map[string]string{})
}

// GET /api/account: who the request is: a signed-in person (with the bots
// they own), or a bot by its token (Authorization: Bearer).
func (s *Server) apiAccount(w http.ResponseWriter, r *http.Request) {
	if bot, err := s.st.BearerBot(r.Context(), r.Header.Get("Authorization")); err == nil {
		writeJSON(w, http.StatusOK, map[string]any{"bot": bot})
		return
	}
	user := s.sessionUser(r)
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
		writeJSON(w, http.StatusOK, out)
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
	writeJSON(w, http.StatusOK, map[string]any{"name": user, "id": identity.Of(identity.Person, user), "bots": bots})
}

// POST /api/account/bots {"name"}: a new bot of the signed-in person; its
// token is in this answer only.
func (s *Server) apiNewBot(w http.ResponseWriter, r *http.Request) {
	user := s.sessionUser(r)
	if user == "" {
		s.accountErr(w, store.ErrNoSession)
		return
	}
	var req struct {
		Name string `json:"name"`
	}
	if err := readJSON(w, r, &req); err != nil {
		writeErr(w, err)
		return
	}
	token, err := s.st.CreateBot(r.Context(), user, req.Name)
	if err != nil {
		s.accountErr(w, err)
		return
	}
	s.log.Info("bot created", "owner", user, "bot", req.Name)
	writeJSON(w, http.StatusCreated, map[string]string{"name": req.Name, "token": token,
		"note": "keep the token: it is shown only now; it logs the bot in with login NAME TOKEN, set auth:token, or Authorization: Bearer"})
}
