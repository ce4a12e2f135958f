// Package accounts is who asks on the HTTP side of the match server:
// accounts (sign-up, sign-in, sessions, a new password, sign-out
// everywhere, deletion), the bots people make, the guests the server
// numbers and whose cookies it signs with its secret keys, and who makes
// a request (Actor: a person, a bot by its token, or a guest). It guards
// sign-ins by account as well as by address, letting the owner's known
// browsers and addresses through, and limits sign-ups on the whole server.
//
// A Service owns its state (the failed sign-ins by account, the places
// each account signed in from, the server's keys once read) under locks
// that guard nothing else; it never calls out of the package while
// holding them. What it needs of the server (its store, its limit on
// logins by address, its refusal counts) comes in its Config.
package accounts

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"kalah/internal/httpapi"
	"kalah/internal/identity"
	"kalah/internal/netx"
	"kalah/internal/store"
	"kalah/server/core"
)

// Config is what a Service needs of the server.
type Config struct {
	// Store keeps the accounts, sessions, bots, guests and secret keys.
	Store *store.Store
	// Log is the server's log.
	Log *slog.Logger
	// HashWait is how long a sign-up or sign-in waits for a free hasher
	// of passwords.
	HashWait time.Duration
	// Logins limits sign-ups, sign-ins and other password checks by
	// address: the server's limiter, which bots' logins share.
	Logins *netx.Limiter
	// SignupRate and SignupBurst are the token bucket for sign-ups on the
	// whole server, whatever the address.
	SignupRate  float64
	SignupBurst int
	// Refused counts a refusal by reason in the server's metrics.
	Refused func(reason string)
}

// Service is the server's accounts and identities of people on the HTTP
// side. Make it with New.
type Service struct {
	cfg    Config
	st     *store.Store
	log    *slog.Logger
	signup *netx.Limiter // sign-ups of the whole server
	logins loginGuard    // failed sign-ins by account (logins.go)
	keys   serverKeys    // the secret keys kept in the store (guests.go)
}

// New returns a Service on cfg; cfg.Store and cfg.Logins must be set.
func New(cfg Config) *Service {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.Refused == nil {
		cfg.Refused = func(string) {}
	}
	return &Service{cfg: cfg, st: cfg.Store, log: cfg.Log, signup: netx.NewLimiter(cfg.SignupRate, cfg.SignupBurst)}
}

// refused counts a refusal by reason.
func (s *Service) refused(reason string) { s.cfg.Refused(reason) }

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
func (s *Service) signIn(w http.ResponseWriter, r *http.Request, user string) error {
	tok, err := s.st.NewSession(r.Context(), user, sessionTTL)
	if err != nil {
		return err
	}
	http.SetCookie(w, &http.Cookie{Name: SessionCookie, Value: tok, Path: "/", MaxAge: int(sessionTTL / time.Second),
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: netx.HTTPS(r)})
	return nil
}

// SessionUser returns the signed-in person of a request, or "" (for a
// store that fails too: use SignedIn where only a person may ask).
func (s *Service) SessionUser(r *http.Request) string {
	u, _ := s.Session(r)
	return u
}

// Requester names who makes r, for the limits on unfinished games:
// "user:NAME" for a signed-in person, else "addr:HOST" for a guest.
func (s *Service) Requester(r *http.Request) string {
	if u := s.SessionUser(r); u != "" {
		return "user:" + strings.ToLower(u)
	}
	return "addr:" + core.HostOf(r)
}

// Session returns the signed-in person of a request: "" and no error for
// a request with no live session; an error if the store cannot tell.
func (s *Service) Session(r *http.Request) (string, error) {
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

// SignedIn returns the signed-in person of a request, or answers it: 401
// (sign in to do what), or the store's failure (503, not the client's
// fault), and reports false.
func (s *Service) SignedIn(w http.ResponseWriter, r *http.Request, what string) (string, bool) {
	u, err := s.Session(r)
	if err == nil && u == "" {
		err = fmt.Errorf("%w: sign in to %s", core.ErrSignIn, what)
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

// Actor returns who makes r: the signed-in person; else a bot by its
// token (Authorization: Bearer); else the guest whose cookie r carries,
// or, if create, a new guest (the cookie set on w). token is the seat's
// token the request gives, if any.
func (s *Service) Actor(w http.ResponseWriter, r *http.Request, token string, create bool) core.Actor {
	a, _ := s.ActorErr(w, r, token, create)
	return a
}

// ActorErr is Actor, with the store's failure to tell a session: a
// request that must know who asks answers it (503), not as a stranger's.
func (s *Service) ActorErr(w http.ResponseWriter, r *http.Request, token string, create bool) (core.Actor, error) {
	a := core.Actor{Token: token, Addr: core.HostOf(r)}
	u, err := s.Session(r)
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
		if id, ok := s.GuestOf(r.Context(), c.Value); ok {
			a.ID = id
			return a, nil
		}
	}
	if create {
		id, err := s.NewGuest(w, r)
		if err != nil {
			return a, errGuest(err)
		}
		a.ID = id
	}
	return a, nil
}

// rateOK applies the per-address login limit to sign-ups and sign-ins.
func (s *Service) rateOK(w http.ResponseWriter, r *http.Request) bool {
	if !s.cfg.Logins.Allow(core.HostOf(r)) {
		s.refused("login-rate")
		w.Header().Set("Retry-After", "1")
		httpapi.WriteError(w, fmt.Errorf("%w: too many attempts from your address; wait a little", core.ErrTooMany))
		return false
	}
	return true
}

// AccountErr answers an account's failure, counting a refusal of a
// hasher too busy to check a password in time.
func (s *Service) AccountErr(w http.ResponseWriter, err error) {
	if errors.Is(err, store.ErrHashBusy) {
		s.refused("hashing-busy")
	}
	httpapi.WriteError(w, err)
}

// Signup answers POST /api/account/signup {"name","password"}: a new
// account, signed in.
func (s *Service) Signup(w http.ResponseWriter, r *http.Request) {
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
		s.AccountErr(w, err)
		return
	}
	if err := s.signIn(w, r, c.Name); err != nil {
		s.AccountErr(w, err)
		return
	}
	s.signedInFrom(w, r, c.Name)
	s.log.Info("account created", "name", c.Name)
	httpapi.WriteJSON(w, http.StatusCreated, map[string]string{"name": c.Name})
}

// Login answers POST /api/account/login {"name","password"}: signs in.
func (s *Service) Login(w http.ResponseWriter, r *http.Request) {
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
		s.AccountErr(w, err)
		return
	}
	s.signedInFrom(w, r, name)
	if err := s.signIn(w, r, name); err != nil {
		s.AccountErr(w, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, map[string]string{"name": name})
}

// Logout answers POST /api/account/logout: ends the session.
func (s *Service) Logout(w http.ResponseWriter, r *http.Request) {
	if c, err := r.Cookie(SessionCookie); err == nil {
		s.st.EndSession(r.Context(), c.Value)
	}
	http.SetCookie(w, &http.Cookie{Name: SessionCookie, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: netx.HTTPS(r)})
	httpapi.WriteJSON(w, http.StatusOK, map[string]string{})
}

// Account answers GET /api/account: who the request is: a signed-in
// person (with the bots they own), or a bot by its token (Authorization:
// Bearer).
func (s *Service) Account(w http.ResponseWriter, r *http.Request) {
	if bot, err := s.st.BearerBot(r.Context(), r.Header.Get("Authorization")); err == nil {
		httpapi.WriteJSON(w, http.StatusOK, map[string]any{"bot": bot})
		return
	}
	user, err := s.Session(r)
	if err != nil {
		httpapi.WriteError(w, err)
		return
	}
	if user == "" && r.Header.Get("Authorization") != "" {
		s.AccountErr(w, fmt.Errorf("%w: the token of no bot", store.ErrNoSession))
		return
	}
	if user == "" {
		// A visitor: who they are here, if anyone (200, so a page asks
		// without a failed request).
		out := map[string]any{}
		if a := s.Actor(w, r, "", false); !a.ID.IsZero() {
			out["id"], out["guest"] = a.ID, a.ID.Display()
		}
		httpapi.WriteJSON(w, http.StatusOK, out)
		return
	}
	bots, err := s.st.BotsOf(r.Context(), user)
	if err != nil {
		s.AccountErr(w, err)
		return
	}
	if bots == nil {
		bots = []string{}
	}
	httpapi.WriteJSON(w, http.StatusOK, map[string]any{"name": user, "id": identity.Of(identity.Person, user), "bots": bots})
}

// NewBot answers POST /api/account/bots {"name"}: a new bot of the
// signed-in person; its token is in this answer only.
func (s *Service) NewBot(w http.ResponseWriter, r *http.Request) {
	user, ok := s.SignedIn(w, r, "make a bot")
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
		s.AccountErr(w, err)
		return
	}
	s.log.Info("bot created", "owner", user, "bot", req.Name)
	httpapi.WriteJSON(w, http.StatusCreated, map[string]string{"name": req.Name, "token": token,
		"note": "keep the token: it is shown only now; it logs the bot in with login NAME TOKEN, set auth:token, or Authorization: Bearer"})
}

// Routes registers the accounts' routes on mux (a bot's new token is the
// server's: it closes the bot's connections).
func (s *Service) Routes(mux *http.ServeMux) {
	mux.HandleFunc("POST /api/account/signup", s.Signup)
	mux.HandleFunc("POST /api/account/login", s.Login)
	mux.HandleFunc("POST /api/account/logout", s.Logout)
	mux.HandleFunc("GET /api/account", s.Account)
	mux.HandleFunc("POST /api/account/bots", s.NewBot)
	mux.HandleFunc("POST /api/account/password", s.Password)
	mux.HandleFunc("POST /api/account/logout/everywhere", s.LogoutEverywhere)
	mux.HandleFunc("DELETE /api/account", s.DeleteAccount)
}
