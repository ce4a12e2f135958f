package accounts

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"kalah/internal/httpapi"
	"kalah/internal/identity"
	"kalah/internal/netx"
	"kalah/internal/store"
	"kalah/server/core"
)

// testService returns a Service on a store of its own and the refusals
// it counts, by reason.
func testService(t *testing.T) (*Service, func() map[string]int) {
	t.Helper()
	st, err := store.Open(filepath.Join(t.TempDir(), "kalah.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	var mu sync.Mutex
	refusals := map[string]int{}
	s := New(Config{Store: st, HashWait: 10 * time.Second, Logins: netx.NewLimiter(1000, 1000),
		SignupRate: 0.5, SignupBurst: 60,
		Refused: func(reason string) {
			mu.Lock()
			defer mu.Unlock()
			refusals[reason]++
		}})
	return s, func() map[string]int {
		mu.Lock()
		defer mu.Unlock()
		out := map[string]int{}
		for k, v := range refusals {
			out[k] = v
		}
		return out
	}
}

// from returns a request to the account API from addr, carrying cookies.
func from(addr string, cookies ...*http.Cookie) *http.Request {
	r := httptest.NewRequest("POST", "/api/account/login", nil)
	r.RemoteAddr = addr + ":1234"
	for _, c := range cookies {
		r.AddCookie(c)
	}
	return r
}

// serve answers r with f under the one HTTP layer, its limits' refusals
// mapped to 429 as the server maps them.
func serve(r *http.Request, f func(w http.ResponseWriter, r *http.Request)) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	errs := httpapi.NewErrors().Map(http.StatusTooManyRequests, core.ErrTooMany)
	httpapi.Requests(http.HandlerFunc(f), slog.New(slog.DiscardHandler), errs).ServeHTTP(w, r)
	return w
}

// cookie returns the cookie called name that w set, or nil.
func cookie(w *httptest.ResponseRecorder, name string) *http.Cookie {
	for _, c := range w.Result().Cookies() {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// TestFailuresWait: a new place waits nothing for the first failures,
// then twice as long after each, then the lockout; a pending try counts
// as a failure; failures are forgotten loginLockout after the latest.
func TestFailuresWait(t *testing.T) {
	now := time.Now()
	for _, tc := range []struct {
		name string
		a    *accountFails
		want time.Duration
	}{
		{"no failures", nil, 0},
		{"free failures", &accountFails{n: LoginFreeFailures - 1, last: now}, 0},
		{"first slowed try", &accountFails{n: LoginFreeFailures, last: now}, time.Second},
		{"the wait doubles", &accountFails{n: LoginFreeFailures + 2, last: now}, 4 * time.Second},
		{"the wait passes", &accountFails{n: LoginFreeFailures + 2, last: now.Add(-3 * time.Second)}, time.Second},
		{"the wait passed", &accountFails{n: LoginFreeFailures + 2, last: now.Add(-5 * time.Second)}, 0},
		{"pending tries count", &accountFails{n: LoginFreeFailures - 1, pending: 1, last: now.Add(-time.Hour)}, time.Second},
		{"locked", &accountFails{n: 2 * LoginFreeFailures, last: now.Add(-time.Minute)}, loginLockout - time.Minute},
		{"forgotten", &accountFails{n: 2 * LoginFreeFailures, last: now.Add(-loginLockout)}, 0},
		{"not forgotten while a try is pending", &accountFails{n: 2*LoginFreeFailures - 1, pending: 1, last: now.Add(-loginLockout)}, time.Second},
	} {
		if got := tc.a.wait(now); got != tc.want {
			t.Errorf("%s: waits %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestTriesAtOnce: tries of one account sent at once from new places
// pass only up to the free failures before any is told; the rest are
// refused (429, Retry-After, counted), and once the failures are counted
// a new place waits, while the owner's known address does not.
func TestTriesAtOnce(t *testing.T) {
	s, refusals := testService(t)
	s.signedInFrom(httptest.NewRecorder(), from("192.0.2.1"), "Alice")
	var dones []func(bool)
	for i := range 3 * LoginFreeFailures {
		var done func(bool)
		var ok bool
		w := serve(from("198.51.100."+strconv.Itoa(i+1)), func(w http.ResponseWriter, r *http.Request) {
			done, ok = s.loginTry(w, r, "alice")
		})
		if !ok {
			if w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") == "" {
				t.Errorf("try %d refused with %d, Retry-After %q", i+1, w.Code, w.Header().Get("Retry-After"))
			}
			continue
		}
		dones = append(dones, done)
	}
	if len(dones) != LoginFreeFailures {
		t.Fatalf("%d tries at once passed, want %d", len(dones), LoginFreeFailures)
	}
	if got := refusals()["login-account"]; got != 2*LoginFreeFailures {
		t.Errorf("%d refusals counted, want %d", got, 2*LoginFreeFailures)
	}
	for _, done := range dones {
		done(true)
	}
	if _, ok := s.loginTry(httptest.NewRecorder(), from("203.0.113.1"), "ALICE"); ok {
		t.Error("a new place tries at once after the free failures")
	}
	if done, ok := s.loginTry(httptest.NewRecorder(), from("192.0.2.1"), "alice"); !ok {
		t.Error("the owner's known address is refused")
	} else {
		done(true) // counts nothing
	}
	if _, ok := s.loginTry(httptest.NewRecorder(), from("203.0.113.2"), "bob"); !ok {
		t.Error("another account is refused")
	}
	s.logins.mu.Lock()
	defer s.logins.mu.Unlock()
	if a := s.logins.fails["alice"]; a.n != LoginFreeFailures || a.pending != 0 {
		t.Errorf("alice's failures: %+v", *a)
	}
}

// TestFloodOfNames: past maxGuarded names counted at once a new name is
// refused to new places, unless old counts have expired to make room.
func TestFloodOfNames(t *testing.T) {
	s, _ := testService(t)
	recent := time.Now()
	s.logins.fails = map[string]*accountFails{}
	for i := range maxGuarded {
		s.logins.fails["name"+strconv.Itoa(i)] = &accountFails{n: 1, last: recent}
	}
	if _, ok := s.loginTry(httptest.NewRecorder(), from("198.51.100.1"), "newcomer"); ok {
		t.Fatal("a new name passes a full guard")
	}
	for _, a := range s.logins.fails {
		a.last = recent.Add(-loginLockout)
	}
	if _, ok := s.loginTry(httptest.NewRecorder(), from("198.51.100.1"), "newcomer"); !ok {
		t.Fatal("a new name is refused though every count expired")
	}
	if n := len(s.logins.fails); n != 1 {
		t.Errorf("%d names counted after the sweep, want 1", n)
	}
}

// TestKnownPlaces: an account's addresses are remembered newest last,
// once each, at most knownAddrs; its device cookie lets the browser in
// from anywhere, for that account only, and holds at most four accounts,
// the newest first.
func TestKnownPlaces(t *testing.T) {
	s, _ := testService(t)
	for i := range knownAddrs + 1 {
		s.signedInFrom(httptest.NewRecorder(), from("198.51.100."+strconv.Itoa(i+1)), "alice")
	}
	s.signedInFrom(httptest.NewRecorder(), from("198.51.100.5"), "alice")
	s.logins.mu.Lock()
	known := append([]string(nil), s.logins.known["alice"]...)
	s.logins.mu.Unlock()
	if len(known) != knownAddrs || known[len(known)-1] != "198.51.100.5" {
		t.Fatalf("alice's known addresses: %v", known)
	}
	if s.knownPlace(from("198.51.100.1"), "alice") {
		t.Error("the oldest address beyond the bound is still known")
	}
	if !s.knownPlace(from("198.51.100.2"), "Alice") {
		t.Error("a remembered address is not known")
	}

	var device *http.Cookie
	for _, name := range []string{"a1", "a2", "a3", "a4", "a5"} {
		w := httptest.NewRecorder()
		var held []*http.Cookie
		if device != nil {
			held = append(held, device)
		}
		s.signedInFrom(w, from("192.0.2.1", held...), name)
		if device = cookie(w, DeviceCookie); device == nil || !device.HttpOnly || device.SameSite != http.SameSiteStrictMode {
			t.Fatalf("the device cookie after %s: %+v", name, device)
		}
	}
	vals := strings.Split(device.Value, "~")
	if len(vals) != 4 || !strings.HasPrefix(vals[0], "a5/") {
		t.Fatalf("the device cookie holds %v", vals)
	}
	if !s.knownPlace(from("203.0.113.9", device), "a2") || s.knownPlace(from("203.0.113.9", device), "a1") {
		t.Error("the device cookie lets in the wrong accounts")
	}
	if s.knownPlace(from("203.0.113.9", device), "bob") {
		t.Error("alice's device cookie lets bob's account in")
	}
	forged := &http.Cookie{Name: DeviceCookie, Value: "bob/" + strings.Repeat("0", 32)}
	if s.knownPlace(from("203.0.113.9", forged), "bob") {
		t.Error("a forged device cookie is known")
	}
}

// TestGuestCookies: a new guest's cookie names it on this server only;
// a changed or made-up value, or another server's, names nobody; the key
// is read from the store once.
func TestGuestCookies(t *testing.T) {
	s, _ := testService(t)
	other, _ := testService(t)
	w := httptest.NewRecorder()
	id, err := s.NewGuest(w, from("192.0.2.1"))
	if err != nil {
		t.Fatal(err)
	}
	c := cookie(w, GuestCookie)
	if c == nil || !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || id.Kind != identity.Guest {
		t.Fatalf("guest %v, cookie %+v", id, c)
	}
	if got, ok := s.GuestOf(t.Context(), c.Value); !ok || got != id {
		t.Errorf("the guest's own cookie names %v, %v", got, ok)
	}
	if a := s.Actor(httptest.NewRecorder(), from("192.0.2.1", c), "", false); a.ID != id || a.Addr != "192.0.2.1" {
		t.Errorf("the actor of the guest's cookie: %+v", a)
	}
	num, mac, _ := strings.Cut(c.Value, ".")
	flip := "0"
	if mac[0] == '0' {
		flip = "1"
	}
	for _, v := range []string{
		num + "." + flip + mac[1:],
		"0" + num + "." + mac,
		"+" + num + "." + mac,
		num,
		"",
		strconv.Itoa(1<<20) + "." + mac,
	} {
		if got, ok := s.GuestOf(t.Context(), v); ok {
			t.Errorf("%q names %v", v, got)
		}
	}
	if got, ok := other.GuestOf(t.Context(), c.Value); ok {
		t.Errorf("another server's cookie names %v", got)
	}
	s.keys.mu.Lock()
	_, cached := s.keys.keys[guestKeyName]
	s.keys.mu.Unlock()
	if !cached {
		t.Error("the guests' key is not kept once read")
	}
	// Without create, nobody is made; with it, a new guest.
	if a := s.Actor(httptest.NewRecorder(), from("192.0.2.2"), "", false); !a.ID.IsZero() {
		t.Errorf("an actor made without create: %+v", a)
	}
	w = httptest.NewRecorder()
	if a := s.Actor(w, from("192.0.2.2"), "tok", true); a.ID.Kind != identity.Guest || a.ID == id || a.Token != "tok" || cookie(w, GuestCookie) == nil {
		t.Errorf("a new guest's actor: %+v", a)
	}
}

// TestSignupsOfTheServer: past the server's bucket a sign-up is refused
// (429 with Retry-After) and counted, whatever the address.
func TestSignupsOfTheServer(t *testing.T) {
	s, refusals := testService(t)
	s.cfg.SignupRate, s.cfg.SignupBurst = 0.01, 2
	s.signup = netx.NewLimiter(s.cfg.SignupRate, s.cfg.SignupBurst)
	for i := range 3 {
		var ok bool
		w := serve(from("192.0.2."+strconv.Itoa(i+1)), func(w http.ResponseWriter, _ *http.Request) { ok = s.signupOK(w) })
		if ok != (i < 2) {
			t.Errorf("sign-up %d: %v", i+1, ok)
		}
		if !ok && (w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") != "100") {
			t.Errorf("sign-up %d refused with %d, Retry-After %q", i+1, w.Code, w.Header().Get("Retry-After"))
		}
	}
	if got := refusals()["signup-rate"]; got != 1 {
		t.Errorf("%d refusals counted", got)
	}
}
