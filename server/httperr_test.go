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

	"kalah/internal/httpapi"
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
