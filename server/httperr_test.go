package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"kalah/internal/httpapi"
	"kalah/internal/store"
	"kalah/protocol/line"
)

// lockedBuffer is a log's output, read while the server writes it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestStoreFailureIsNotTheClientsFault: with the store gone, every request
// that needs it is answered 500 or 503, never a 4xx that blames the
// client, never with the store's own words (SQL), and each is logged with
// the id its answer gives.
func TestStoreFailureIsNotTheClientsFault(t *testing.T) {
	var logs lockedBuffer
	ts := newTestServer(t, "", Config{Log: slog.New(slog.NewTextHandler(&logs, nil))})
	w := newWebClient(t, ts)
	w.signUp("ann")
	var g Started
	if code := w.do("POST", "/api/games", `{"south":"human","north":"greedy"}`, &g); code != http.StatusCreated {
		t.Fatalf("a game: %d", code)
	}
	ts.st.Close()
	for _, rq := range []struct{ method, path, body string }{
		{"GET", "/api/games", ""},
		{"GET", "/api/games?status=finished", ""},
		{"GET", "/api/games/999", ""},
		{"GET", "/api/games/999/board", ""},
		{"GET", "/api/games/999/record", ""},
		{"GET", "/api/players/ann", ""},
		{"GET", "/api/players/ann/records", ""},
		{"GET", "/api/ratings", ""},
		{"GET", "/api/account", ""},
		{"POST", "/api/account/signup", `{"name":"bob","password":"a long password"}`},
		{"POST", "/api/account/login", `{"name":"ann","password":"a long password"}`},
		{"POST", "/api/account/bots", `{"name":"annbot"}`},
		{"POST", "/api/games", `{"south":"human","north":"greedy"}`},
		{"POST", "/api/games/999/rematch", `{}`},
		{"POST", "/api/seeks", `{"rated":true}`},
	} {
		req, _ := http.NewRequest(rq.method, ts.http.URL+rq.path, strings.NewReader(rq.body))
		if rq.body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := w.c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var e struct {
			Error     string `json:"error"`
			RequestID string `json:"request_id"`
		}
		json.Unmarshal(b, &e)
		switch {
		case resp.StatusCode < 400:
			continue // needs no store (the live list, a session kept in memory)
		case resp.StatusCode < 500:
			t.Errorf("%s %s: %d %s: the store's failure blamed on the client", rq.method, rq.path, resp.StatusCode, b)
			continue
		}
		if low := strings.ToLower(e.Error); strings.Contains(low, "sql") || strings.Contains(low, "database") || strings.Contains(low, "store:") {
			t.Errorf("%s %s: the answer tells the store's own words: %q", rq.method, rq.path, e.Error)
		}
		id := resp.Header.Get("X-Request-Id")
		if id == "" || e.RequestID != id || !strings.Contains(logs.String(), "id="+id) {
			t.Errorf("%s %s: %d with request id %q (body %q), not in the log", rq.method, rq.path, resp.StatusCode, id, e.RequestID)
		}
	}
	if t.Failed() {
		fmt.Println(logs.String())
	}
}

// TestStatusOf: the one mapping of errors to statuses.
func TestStatusOf(t *testing.T) {
	for err, want := range map[error]int{
		ErrBadRequest: 400, fmt.Errorf("x: %w", ErrNotFound): 404, ErrForbidden: 403, ErrSignIn: 401,
		ErrNotYourTurn: 409, ErrTooMany: 429, ErrBusy: 503, ErrClosed: 503, httpapi.ErrNotJSON: 415,
		fmt.Errorf("a failure of the server's own"): 500,
	} {
		if got := Errors().StatusOf(err); got != want {
			t.Errorf("StatusOf(%v) = %d, want %d", err, got, want)
		}
	}
}

// TestDiskFullIsTryLater: with the disk full (every write failing as
// SQLite's SQLITE_FULL does, which the store tells as ErrUnavailable:
// store's TestDiskFullIsUnavailable), a sign-up and a new game are
// answered 503 with Retry-After, never 500, each with a request id the
// log has with its cause; once there is room again both go through, and
// the game started before the outage has every move it had.
func TestDiskFullIsTryLater(t *testing.T) {
	var logs lockedBuffer
	ts := newTestServer(t, "", Config{NoClock: true, Log: slog.New(slog.NewTextHandler(&logs, nil))})
	g := newWebClient(t, ts)
	var started Started
	if code := g.do("POST", "/api/games", `{"south":"human","north":"first","rules":{"houses":4,"seeds":2}}`, &started); code != http.StatusCreated {
		t.Fatalf("a game before: %d", code)
	}
	if code := g.do("POST", fmt.Sprintf("/api/games/%d/move", started.ID), `{"move":"1"}`, nil); code != http.StatusOK {
		t.Fatalf("a move before: %d", code)
	}
	before := storedMoves(t, ts, started.ID, 2)
	ts.st.FailWrites(fmt.Errorf("%w: database or disk is full (SQLITE_FULL)", store.ErrUnavailable))
	ask := func(path, body string) (int, http.Header, map[string]string) {
		req, _ := http.NewRequest("POST", ts.http.URL+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var v map[string]string
		json.NewDecoder(resp.Body).Decode(&v)
		return resp.StatusCode, resp.Header, v
	}
	for _, tc := range []struct{ path, body string }{
		{"/api/account/signup", `{"name":"fullda","password":"a long password"}`},
		{"/api/games", `{"south":"human","north":"first"}`},
	} {
		code, h, v := ask(tc.path, tc.body)
		id := h.Get("X-Request-Id")
		if code != http.StatusServiceUnavailable || h.Get("Retry-After") == "" || v["request_id"] != id {
			t.Fatalf("%s with the disk full: %d, Retry-After %q, body %v", tc.path, code, h.Get("Retry-After"), v)
		}
		if !strings.Contains(logs.String(), "id="+id) || !strings.Contains(logs.String(), "full") {
			t.Fatalf("%s: request %s is not in the log with its cause:\n%s", tc.path, id, logs.String())
		}
	}
	ts.st.FailWrites(nil)
	for _, tc := range []struct{ path, body string }{
		{"/api/account/signup", `{"name":"fullda","password":"a long password"}`},
		{"/api/games", `{"south":"human","north":"first"}`},
	} {
		if code, _, v := ask(tc.path, tc.body); code != http.StatusCreated {
			t.Fatalf("%s once there is room: %d %v", tc.path, code, v)
		}
	}
	if after := storedMoves(t, ts, started.ID, 2); after != before {
		t.Fatalf("the game before the outage: %q, then %q", before, after)
	}
}

// storedMoves waits until game id has at least n moves stored and returns
// them in words.
func storedMoves(t *testing.T, ts *testServer, id int64, n int) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		g, err := ts.st.Game(t.Context(), id)
		if err == nil && len(g.Record.Moves) >= n {
			return fmt.Sprint(g.Record.Moves)
		}
		if time.Now().After(deadline) {
			t.Fatalf("game %d: %v, %d moves", id, err, len(g.Record.Moves))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestLoginBurstIsBusy: first logins the store cannot take (it keeps up
// with no more, or its disk is full) are told "busy, retry" over the line
// protocol, and the log has one line for the burst, not an ERROR a bot;
// once the store writes again the same bots log in.
func TestLoginBurstIsBusy(t *testing.T) {
	var logs lockedBuffer
	ts := newTestServer(t, "", Config{LoginBurst: 1000, LoginRate: 1000, Log: slog.New(slog.NewTextHandler(&logs, nil))})
	ts.st.FailWrites(fmt.Errorf("%w: the writer is behind", store.ErrUnavailable))
	const bots = 20
	for i := range bots {
		c := dial(t, ts.addr)
		c.send(fmt.Sprintf("login burst%d token%d", i, i))
		m := c.expect("error")
		if m.Arg(0) != line.CodeBusy || !strings.Contains(m.String(), "retry") {
			t.Fatalf("login %d while the store is behind: %s", i, m)
		}
	}
	if n := strings.Count(logs.String(), "level=ERROR"); n != 0 {
		t.Fatalf("%d ERROR lines for a burst of busy logins:\n%s", n, logs.String())
	}
	if n := strings.Count(logs.String(), "bot logins refused as busy"); n != 1 {
		t.Fatalf("%d lines for the burst, want 1:\n%s", n, logs.String())
	}
	ts.st.FailWrites(nil)
	c := dial(t, ts.addr)
	c.login("burst0", "token0")
}
