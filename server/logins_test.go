package server

import (
	"net/http"
	"net/http/cookiejar"
	"strconv"
	"strings"
	"testing"

	"kalah/internal/netx"
	"kalah/server/accounts"
)

// behindProxy is a test server that believes X-Forwarded-For from
// loopback, so one test speaks from many addresses.
func behindProxy(t *testing.T, cfg Config) *testServer {
	t.Helper()
	p, err := netx.ParseProxies("127.0.0.1", "::1")
	if err != nil {
		t.Fatal(err)
	}
	cfg.TrustedProxies = p
	return newTestServer(t, "", cfg)
}

// accountCall posts body to /api/account/PATH from addr (X-Forwarded-For)
// with c's cookies; it returns the status and the Retry-After header.
func accountCall(t *testing.T, ts *testServer, c *http.Client, addr, path, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", ts.http.URL+"/api/account/"+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Forwarded-For", addr)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("Retry-After")
}

func jarClient() *http.Client {
	jar, _ := cookiejar.New(nil)
	return &http.Client{Jar: jar}
}

// TestLoginLimitsPerAccount: 30 wrong passwords for one account, each from
// an address of its own, so no address's limit is reached: the first few
// are answered 401, then the account is slowed and refused to new places
// (429 with Retry-After), even with the right password. Its owner still
// signs in: from the browser that holds its session and device cookie
// (from a new address too), and from an address it signed in from before.
func TestLoginLimitsPerAccount(t *testing.T) {
	ts := behindProxy(t, Config{})
	owner := jarClient()
	if code, _ := accountCall(t, ts, owner, "10.0.0.1", "signup", `{"name":"alice","password":"alice's long password"}`); code != http.StatusCreated {
		t.Fatalf("sign-up: %d", code)
	}
	var codes []int
	for i := 1; i <= 30; i++ {
		code, retry := accountCall(t, ts, &http.Client{}, "10.1.0."+strconv.Itoa(i), "login", `{"name":"alice","password":"a wrong guess"}`)
		codes = append(codes, code)
		if code == http.StatusTooManyRequests {
			if n, err := strconv.Atoi(retry); err != nil || n < 1 {
				t.Errorf("try %d: 429 with Retry-After %q", i, retry)
			}
		}
	}
	wrong := 0
	for i, code := range codes {
		switch {
		case code == http.StatusUnauthorized:
			wrong++
		case code != http.StatusTooManyRequests:
			t.Errorf("try %d: %d", i+1, code)
		}
	}
	if wrong > 2*accounts.LoginFreeFailures || codes[0] != http.StatusUnauthorized {
		t.Errorf("%d of 30 guesses were checked: %v", wrong, codes)
	}
	for i, code := range codes[20:] {
		if code != http.StatusTooManyRequests {
			t.Errorf("try %d: %d, want 429", 21+i, code)
		}
	}
	// A new place is refused even with the right password: a guess that
	// hits is not told apart from one that misses.
	if code, _ := accountCall(t, ts, jarClient(), "10.9.9.9", "login", `{"name":"alice","password":"alice's long password"}`); code != http.StatusTooManyRequests {
		t.Errorf("the right password from a new place during the lock: %d, want 429", code)
	}
	// The owner's own browser (its session and device cookie), from a new
	// address; then, after signing out, by its device cookie alone.
	if code, _ := accountCall(t, ts, owner, "10.2.0.1", "login", `{"name":"alice","password":"alice's long password"}`); code != http.StatusOK {
		t.Errorf("the owner's session signs in: %d", code)
	}
	if code, _ := accountCall(t, ts, owner, "10.2.0.1", "logout", `{}`); code != http.StatusOK {
		t.Fatalf("sign-out: %d", code)
	}
	if code, _ := accountCall(t, ts, owner, "10.2.0.2", "login", `{"name":"alice","password":"alice's long password"}`); code != http.StatusOK {
		t.Errorf("the owner's device signs in: %d", code)
	}
	// Another browser at an address the owner signed in from.
	if code, _ := accountCall(t, ts, jarClient(), "10.0.0.1", "login", `{"name":"alice","password":"alice's long password"}`); code != http.StatusOK {
		t.Errorf("the owner's known address signs in: %d", code)
	}
	// Another account is not touched by alice's lock, and a device cookie
	// of alice's opens nothing for bob.
	if code, _ := accountCall(t, ts, jarClient(), "10.3.0.1", "signup", `{"name":"bob","password":"bob's long password"}`); code != http.StatusCreated {
		t.Fatalf("bob's sign-up: %d", code)
	}
	for i := 1; i <= 12; i++ {
		accountCall(t, ts, owner, "10.4.0."+strconv.Itoa(i), "login", `{"name":"bob","password":"a wrong guess"}`)
	}
	if code, _ := accountCall(t, ts, owner, "10.4.1.1", "login", `{"name":"bob","password":"bob's long password"}`); code != http.StatusTooManyRequests {
		t.Errorf("alice's device cookie for bob's locked account: %d, want 429", code)
	}
}

// TestSignupsLimitedServerWide: sign-ups from many addresses, each within
// its own address's limit, are limited on the whole server.
func TestSignupsLimitedServerWide(t *testing.T) {
	ts := behindProxy(t, Config{SignupRate: 0.01, SignupBurst: 3})
	for i := 1; i <= 5; i++ {
		code, retry := accountCall(t, ts, jarClient(), "10.5.0."+strconv.Itoa(i), "signup", `{"name":"user`+strconv.Itoa(i)+`","password":"a long password"}`)
		switch {
		case i <= 3 && code != http.StatusCreated:
			t.Errorf("sign-up %d: %d", i, code)
		case i > 3 && (code != http.StatusTooManyRequests || retry == ""):
			t.Errorf("sign-up %d: %d (Retry-After %q), want 429", i, code, retry)
		}
	}
}
