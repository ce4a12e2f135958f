package server

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"kalah/internal/identity"
)

// guestSeek makes c seek a casual game and cancels it: the seek's answer
// names who c is now (a guest made for it, if c was nobody).
func guestSeek(t *testing.T, c *webClient) Seek {
	t.Helper()
	var sk Seek
	if code := c.do("POST", "/api/seeks", `{"clock_ms":60000}`, &sk); code != http.StatusCreated {
		t.Fatalf("a guest's seek: %d", code)
	}
	if code := c.do("POST", "/api/seeks/"+itoa(sk.ID)+"/cancel", `{}`, nil); code != http.StatusOK {
		t.Fatalf("cancelling seek %d: %d", sk.ID, code)
	}
	return sk
}

// guestCookieOf returns the guest cookie c holds for ts.
func guestCookieOf(c *webClient) string {
	u, _ := url.Parse(c.base)
	for _, k := range c.c.Jar.Cookies(u) {
		if k.Name == GuestCookie {
			return k.Value
		}
	}
	return ""
}

// withCookie returns a client of ts that starts out holding a guest
// cookie of its own making.
func withCookie(t *testing.T, ts *testServer, value string) *webClient {
	c := newWebClient(t, ts)
	u, _ := url.Parse(ts.http.URL)
	c.c.Jar.SetCookies(u, []*http.Cookie{{Name: GuestCookie, Value: value, Path: "/"}})
	return c
}

// TestGuestCookieIsTheServers: a kalah_guest value a client makes up is
// no one on any server: it is refused (the account view names nobody) and,
// where a guest is needed, replaced by a cookie the server signed, whose
// guest the server numbered. One server's cookie is no one on another.
// The same made-up value on two fresh servers therefore never shows one
// name twice by choice of the client.
func TestGuestCookieIsTheServers(t *testing.T) {
	made := []string{
		"0123456789abcdef0123456789abcdef", // an older release's form
		"1.00000000000000000000000000000000",
		"1",
		"-1." + strings.Repeat("a", 32),
	}
	a, b := newTestServer(t, "", Config{}), newTestServer(t, "", Config{})
	for _, v := range made {
		names := map[*testServer]string{}
		for _, ts := range []*testServer{a, b} {
			c := withCookie(t, ts, v)
			var me map[string]any
			if code := c.do("GET", "/api/account", "", &me); code != http.StatusOK || len(me) != 0 {
				t.Errorf("made-up cookie %q is someone: %d %v", v, code, me)
			}
			sk := guestSeek(t, c)
			got := guestCookieOf(c)
			if got == v || got == "" {
				t.Errorf("made-up cookie %q kept: %q", v, got)
			}
			if sk.ByID.Kind != identity.Guest || sk.By != sk.ByID.Display() || !strings.HasPrefix(sk.By, identity.GuestPrefix) {
				t.Errorf("the guest made for %q: %v %q", v, sk.ByID, sk.By)
			}
			// The replacement names the same guest from now on.
			var me2 map[string]any
			c.do("GET", "/api/account", "", &me2)
			if me2["id"] != sk.ByID.String() {
				t.Errorf("the replaced cookie's guest is %v, the seek's %v", me2["id"], sk.ByID)
			}
			names[ts] = got
		}
		// Server a's cookie is nobody on server b.
		c := withCookie(t, b, names[a])
		var me map[string]any
		if code := c.do("GET", "/api/account", "", &me); code != http.StatusOK || len(me) != 0 {
			t.Errorf("server a's guest cookie is someone on server b: %v", me)
		}
	}
}

// TestThousandGuestsThousandNames: 1,000 clients without an account each
// become a guest over HTTP; the 1,000 names (and cookies) are distinct,
// none is a person's or bot's, and a restarted server keeps both its
// guests and its count.
func TestThousandGuestsThousandNames(t *testing.T) {
	ts := newTestServer(t, "", Config{})
	alice := newWebClient(t, ts)
	alice.signUp("alice")
	names, cookies := map[string]bool{}, map[string]bool{}
	var first *webClient
	for i := range 1000 {
		c := newWebClient(t, ts)
		if i == 0 {
			first = c
		}
		sk := guestSeek(t, c)
		if names[sk.By] || sk.By == "alice" || !strings.HasPrefix(sk.By, identity.GuestPrefix) {
			t.Fatalf("guest %d is named %q, which is taken", i, sk.By)
		}
		names[sk.By] = true
		cookies[guestCookieOf(c)] = true
	}
	if len(names) != 1000 || len(cookies) != 1000 {
		t.Fatalf("%d names and %d cookies for 1000 guests", len(names), len(cookies))
	}
	// After a restart the first guest is still itself, and a new one takes
	// a name no one had.
	u, _ := url.Parse(ts.http.URL)
	kept := first.c.Jar.Cookies(u)
	ts.stop()
	ts2 := newTestServer(t, ts.path, Config{})
	again := newWebClient(t, ts2)
	u2, _ := url.Parse(ts2.http.URL)
	again.c.Jar.SetCookies(u2, kept)
	var me map[string]any
	again.do("GET", "/api/account", "", &me)
	if n, _ := me["guest"].(string); !names[n] {
		t.Errorf("the first guest after a restart: %v", me)
	}
	if sk := guestSeek(t, newWebClient(t, ts2)); names[sk.By] {
		t.Errorf("a new guest after a restart is named %q, an old guest's name", sk.By)
	}
}
