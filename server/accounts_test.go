package server

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"testing"
	"time"
)

// TestAccountsOverHTTP: sign up, the session cookie's attributes, a bot
// whose token is shown once and logs it in on our protocol and over HTTP,
// sign out; a game between computers needs an account (or the admin token).
func TestAccountsOverHTTP(t *testing.T) {
	ts := newTestServer(t, "", Config{AdminToken: "the-admin-token"})
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar}
	anon := &http.Client{}
	call := func(c *http.Client, method, path, body string, header ...string) (int, map[string]any, *http.Response) {
		t.Helper()
		req, _ := http.NewRequest(method, ts.http.URL+path, strings.NewReader(body))
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		var v map[string]any
		json.Unmarshal(b, &v)
		return resp.StatusCode, v, resp
	}
	game := `{"rules":{"houses":4,"seeds":2},"south":"greedy","north":"first"}`
	if code, _, _ := call(anon, "POST", "/api/games", game); code != http.StatusUnauthorized {
		t.Fatalf("a stranger's game between computers: %d", code)
	}
	if code, v, _ := call(client, "POST", "/api/account/signup", `{"name":"alice","password":"short"}`); code != http.StatusBadRequest {
		t.Fatalf("a short password: %d %v", code, v)
	}
	code, v, resp := call(client, "POST", "/api/account/signup", `{"name":"alice","password":"correct horse"}`)
	if code != http.StatusCreated {
		t.Fatalf("sign up: %d %v", code, v)
	}
	var cookie *http.Cookie
	for _, c := range resp.Cookies() {
		if c.Name == SessionCookie {
			cookie = c
		}
	}
	if cookie == nil || !cookie.HttpOnly || cookie.SameSite != http.SameSiteLaxMode {
		t.Fatalf("session cookie %+v", cookie)
	}
	if code, v, _ := call(client, "POST", "/api/account/signup", `{"name":"Alice","password":"another horse"}`); code != http.StatusConflict {
		t.Fatalf("the same name again: %d %v", code, v)
	}
	if code, v, _ := call(client, "GET", "/api/account", ""); code != http.StatusOK || v["name"] != "alice" {
		t.Fatalf("who am I: %d %v", code, v)
	}
	if code, v, _ := call(client, "POST", "/api/games", game); code != http.StatusCreated {
		t.Fatalf("a signed-in person's game between computers: %d %v", code, v)
	}
	code, v, _ = call(client, "POST", "/api/account/bots", `{"name":"alicebot"}`)
	token, _ := v["token"].(string)
	if code != http.StatusCreated || len(token) < 32 {
		t.Fatalf("new bot: %d %v", code, v)
	}
	if code, v, _ := call(client, "GET", "/api/account", ""); code != http.StatusOK || !strings.Contains(strings.Join(toStrings(v["bots"]), ","), "alicebot") || strings.Contains(mustJSON(v), token) {
		t.Fatalf("alice's bots (the token must not show again): %d %v", code, v)
	}
	// The token logs the bot in: our protocol, and HTTP.
	c := dial(t, ts.addr)
	c.login("alicebot", token)
	if code, v, _ := call(anon, "GET", "/api/account", "", "Authorization", "Bearer "+token); code != http.StatusOK || v["bot"] != "alicebot" {
		t.Fatalf("bearer: %d %v", code, v)
	}
	if code, _, _ := call(anon, "GET", "/api/account", "", "Authorization", "Bearer nope"); code != http.StatusUnauthorized {
		t.Fatalf("a wrong bearer: %d", code)
	}
	// Sign out, in, and a wrong password.
	if code, _, _ := call(client, "POST", "/api/account/logout", "{}"); code != http.StatusOK {
		t.Fatalf("sign out: %d", code)
	}
	// A visitor is answered 200 (a page asks without a failed request),
	// with no name.
	if code, v, _ := call(client, "GET", "/api/account", ""); code != http.StatusOK || v["name"] != nil {
		t.Fatalf("after sign-out: %d %v", code, v)
	}
	if code, _, _ := call(client, "POST", "/api/account/login", `{"name":"alice","password":"wrong horse"}`); code != http.StatusUnauthorized {
		t.Fatalf("a wrong password: %d", code)
	}
	if code, v, _ := call(client, "POST", "/api/account/login", `{"name":"ALICE","password":"correct horse"}`); code != http.StatusOK || v["name"] != "alice" {
		t.Fatalf("sign in: %d %v", code, v)
	}
}

func toStrings(v any) []string {
	var out []string
	if a, ok := v.([]any); ok {
		for _, x := range a {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
	}
	return out
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestOpenGamesPerGuestAreBounded: guests of one address (each request a
// fresh guest: no cookie) cannot fill the server with unfinished games;
// finishing one frees a place.
func TestOpenGamesPerGuestAreBounded(t *testing.T) {
	ts := newTestServer(t, "", Config{MaxGuestGamesPerAddr: 2, NoClock: true})
	start := func() (int, map[string]any) {
		resp, err := http.Post(ts.http.URL+"/api/games", "application/json", strings.NewReader(`{"rules":{"houses":4,"seeds":2},"south":"human","north":"first"}`))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var v map[string]any
		json.NewDecoder(resp.Body).Decode(&v)
		return resp.StatusCode, v
	}
	var first map[string]any
	for i := range 2 {
		code, v := start()
		if code != http.StatusCreated {
			t.Fatalf("game %d: %d %v", i+1, code, v)
		}
		if i == 0 {
			first = v
		}
	}
	if code, v := start(); code != http.StatusTooManyRequests {
		t.Fatalf("a third unfinished game: %d %v", code, v)
	}
	// The guest resigns the first by playing it out badly: move until over.
	id := int64(first["id"].(float64))
	tok := first["tokens"].([]any)[0].(string)
	for range 100 {
		g, err := ts.srv.st.Game(t.Context(), id)
		if err != nil || g.Status == "finished" {
			break
		}
		for _, m := range []string{"1", "2", "3", "4"} {
			resp, err := http.Post(fmt.Sprintf("%s/api/games/%d/move", ts.http.URL, id), "application/json", strings.NewReader(`{"token":"`+tok+`","move":"`+m+`"}`))
			if err == nil {
				resp.Body.Close()
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		if code, _ := start(); code == http.StatusCreated {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("finishing a game freed no place")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
