package accounts

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"kalah/internal/httpapi"
	"kalah/internal/netx"
	"kalah/server/core"
)

// Limits on signing in to one account, whatever the address: the way large
// sites guard an account against guesses from many addresses at once.
// Failures from places the account has not signed in from count against
// it: after LoginFreeFailures each further try must wait twice as long
// as the one before (1 s, 2 s, 4 s, ...), and after twice that many the
// account is refused to new places for loginLockout; failures are
// forgotten loginLockout after the latest. Its owner still gets in from a
// known place: a browser holding the account's device cookie (set at
// every sign-in), a session of the account, or an address it signed in
// from before; failures from those count nothing.
const (
	LoginFreeFailures = 5
	loginLockout      = 15 * time.Minute
	// knownAddrs bounds the addresses remembered for one account.
	knownAddrs = 16
	// maxGuarded bounds the names whose failures are counted at once; past
	// it (a flood of names) new places are refused until old counts
	// expire, rather than counted nowhere.
	maxGuarded = 100_000
)

// DeviceCookie marks a browser that has signed in to an account: the
// account's name signed with the server's key. It proves nothing without
// the password; it only lets its holder's sign-ins past the per-account
// limit that strangers' failures set.
const DeviceCookie = "kalah_device"

// deviceTTL is how long a device cookie lasts.
const deviceTTL = 365 * 24 * time.Hour

// loginGuard counts failed sign-ins by account; its lock guards nothing
// else.
type loginGuard struct {
	mu    sync.Mutex
	fails map[string]*accountFails // by lower-case name, accounts or not
	known map[string][]string      // addresses (netx.Key) an account signed in from, newest last
}

type accountFails struct {
	n       int       // failures from new places
	pending int       // tries from new places being checked now
	last    time.Time // the latest failure
}

// wait returns how long a new place must wait before it may try a at now
// (0: it may): pending tries count as failures, so that tries sent at once
// do not all pass before the first failure is counted.
func (a *accountFails) wait(now time.Time) time.Duration {
	if a == nil {
		return 0
	}
	if now.Sub(a.last) >= loginLockout && a.pending == 0 {
		a.n = 0
	}
	n := a.n + a.pending
	switch {
	case n >= 2*LoginFreeFailures:
		return max(a.last.Add(loginLockout).Sub(now), time.Second)
	case n < LoginFreeFailures:
		return 0
	case a.pending > 0:
		return time.Second // one try at a time once slowed
	}
	backoff := time.Duration(math.Pow(2, float64(a.n-LoginFreeFailures))) * time.Second
	return max(a.last.Add(backoff).Sub(now), 0)
}

// knownPlace reports whether r comes from a place user has signed in
// from: the account's device cookie, one of its sessions, or an address
// it signed in from.
func (s *Service) knownPlace(r *http.Request, user string) bool {
	key := strings.ToLower(user)
	if c, err := r.Cookie(DeviceCookie); err == nil {
		for v := range strings.SplitSeq(c.Value, "~") {
			name, mac, ok := strings.Cut(v, "/")
			if ok && strings.EqualFold(name, user) && s.signed(r.Context(), deviceKeyName, "device\x00"+key, mac) {
				return true
			}
		}
	}
	if u := s.SessionUser(r); u != "" && strings.EqualFold(u, user) {
		return true
	}
	s.logins.mu.Lock()
	defer s.logins.mu.Unlock()
	for _, a := range s.logins.known[key] {
		if a == core.HostOf(r) {
			return true
		}
	}
	return false
}

// deviceKeyName names the key that signs device cookies.
const deviceKeyName = "device-cookie"

// loginTry starts a sign-in of user from r. A try from a new place the
// account's failures refuse is answered (429 with Retry-After) and ok is
// false; otherwise done must be called with the outcome: failed for a
// wrong password.
func (s *Service) loginTry(w http.ResponseWriter, r *http.Request, user string) (done func(failed bool), ok bool) {
	if s.knownPlace(r, user) {
		return func(bool) {}, true
	}
	key := strings.ToLower(user)
	g := &s.logins
	now := time.Now()
	g.mu.Lock()
	if g.fails == nil {
		g.fails = map[string]*accountFails{}
	}
	a := g.fails[key]
	if a == nil && len(g.fails) >= maxGuarded {
		for k, o := range g.fails {
			if now.Sub(o.last) >= loginLockout && o.pending == 0 {
				delete(g.fails, k)
			}
		}
	}
	if a == nil && len(g.fails) < maxGuarded {
		a = &accountFails{}
		g.fails[key] = a
	}
	var wait time.Duration
	if a == nil {
		wait = time.Minute
	} else {
		wait = a.wait(now)
	}
	if wait > 0 {
		g.mu.Unlock()
		s.refused("login-account")
		secs := int(math.Ceil(wait.Seconds()))
		w.Header().Set("Retry-After", strconv.Itoa(secs))
		httpapi.WriteError(w, fmt.Errorf(
			"%w: too many failed sign-ins to this account from places it has not signed in from; try again in %d s, or from a device or address you have signed in from before", core.ErrTooMany, secs))
		return nil, false
	}
	a.pending++
	g.mu.Unlock()
	return func(failed bool) {
		g.mu.Lock()
		defer g.mu.Unlock()
		a.pending--
		if failed {
			a.n++
			a.last = time.Now()
		}
	}, true
}

// signedInFrom remembers r's place for user after a right password: its
// address, and a device cookie on w.
func (s *Service) signedInFrom(w http.ResponseWriter, r *http.Request, user string) {
	key := strings.ToLower(user)
	addr := core.HostOf(r)
	g := &s.logins
	g.mu.Lock()
	if g.known == nil {
		g.known = map[string][]string{}
	}
	list := g.known[key]
	for i, a := range list {
		if a == addr {
			list = append(list[:i], list[i+1:]...)
			break
		}
	}
	list = append(list, addr)
	if len(list) > knownAddrs {
		list = list[len(list)-knownAddrs:]
	}
	g.known[key] = list
	g.mu.Unlock()
	ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
	defer cancel()
	mac, err := s.sign(ctx, deviceKeyName, "device\x00"+key)
	if err != nil {
		return // the address is remembered; the cookie waits for next time
	}
	// One cookie holds the accounts a browser has signed in to (a shared
	// computer: a few), the newest first.
	vals := []string{key + "/" + mac}
	if c, err := r.Cookie(DeviceCookie); err == nil {
		for v := range strings.SplitSeq(c.Value, "~") {
			if name, _, ok := strings.Cut(v, "/"); ok && name != key && len(vals) < 4 {
				vals = append(vals, v)
			}
		}
	}
	http.SetCookie(w, &http.Cookie{Name: DeviceCookie, Value: strings.Join(vals, "~"), Path: "/api/account", MaxAge: int(deviceTTL / time.Second),
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: netx.HTTPS(r)})
}

// signupOK applies the server-wide limit on sign-ups (Config.SignupRate),
// answering 429 beyond it.
func (s *Service) signupOK(w http.ResponseWriter) bool {
	if s.signup.Allow("all") {
		return true
	}
	s.refused("signup-rate")
	w.Header().Set("Retry-After", strconv.Itoa(max(1, int(math.Ceil(1/s.cfg.SignupRate)))))
	httpapi.WriteError(w, fmt.Errorf("%w: too many new accounts on this server just now; try again in a minute", core.ErrTooMany))
	return false
}
