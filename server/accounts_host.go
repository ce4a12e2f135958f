package server

import (
	"net/http"

	"kalah/server/accounts"
)

// The accounts and identities of people on the HTTP side are package
// server/accounts's: sign-up, sign-in and sessions, the settings of an
// account, the guard on sign-ins by account, the server's secret keys and
// its signed guests' cookies. This file builds its Service from the
// server's config and keeps the names the rest of the server calls.

// SessionCookie is the cookie that holds a signed-in person's session.
const SessionCookie = accounts.SessionCookie

// GuestCookie is the cookie that holds a guest's number signed by the
// server.
const GuestCookie = accounts.GuestCookie

// DeviceCookie marks a browser that has signed in to an account.
const DeviceCookie = accounts.DeviceCookie

// ErrGamesUnfinished refuses to delete an account while it, or a bot it
// owns, plays a game.
var ErrGamesUnfinished = accounts.ErrGamesUnfinished

// newAccounts returns the accounts of s: its store, its limit on logins
// by address (which bots' logins share), its refusal counts.
func (s *Server) newAccounts() *accounts.Service {
	return accounts.New(accounts.Config{
		Store:       s.st,
		Log:         s.log,
		HashWait:    s.cfg.HashWait,
		Logins:      s.bots.Logins(),
		SignupRate:  s.cfg.SignupRate,
		SignupBurst: s.cfg.SignupBurst,
		Refused:     s.refused,
	})
}

// sessionUser returns the signed-in person of a request, or "".
func (s *Server) sessionUser(r *http.Request) string { return s.accounts.SessionUser(r) }

// signedIn returns the signed-in person of a request, or answers it and
// reports false.
func (s *Server) signedIn(w http.ResponseWriter, r *http.Request, what string) (string, bool) {
	return s.accounts.SignedIn(w, r, what)
}

// actor returns who makes r (accounts.Service.Actor).
func (s *Server) actor(w http.ResponseWriter, r *http.Request, token string, create bool) Actor {
	return s.accounts.Actor(w, r, token, create)
}

// actorErr is actor, with the store's failure to tell a session.
func (s *Server) actorErr(w http.ResponseWriter, r *http.Request, token string, create bool) (Actor, error) {
	return s.accounts.ActorErr(w, r, token, create)
}

// accountErr answers an account's failure.
func (s *Server) accountErr(w http.ResponseWriter, err error) { s.accounts.AccountErr(w, err) }
