package client

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"kalah"
	"kalah/internal/store"
	"kalah/server/core"
)

// fakeServer answers GET /api/bots, and whatever else handle answers.
func fakeServer(t *testing.T, handle func(w http.ResponseWriter, r *http.Request) bool) (*httptest.Server, *Remote) {
	t.Helper()
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if handle != nil && handle(w, r) {
			return
		}
		if r.URL.Path == "/api/bots" {
			json.NewEncoder(w).Encode([]string{"alice"})
			return
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(hs.Close)
	r, err := Dial(context.Background(), hs.URL)
	if err != nil {
		t.Fatal(err)
	}
	return hs, r
}

// finished returns a game of small rules played to its end, first legal
// move each time.
func finished(t *testing.T) kalah.Record {
	t.Helper()
	g, err := kalah.NewGame(kalah.Rules{Houses: 4, Seeds: 3})
	if err != nil {
		t.Fatal(err)
	}
	for !g.Over() {
		if _, err := g.Play(g.Legal()[0]); err != nil {
			t.Fatal(err)
		}
	}
	return g.Record()
}

// gameJSON is GET /api/games/{id}'s answer as the server writes it (a
// GameView), reduced to the fields a client reads and one it ignores.
func gameJSON(t *testing.T, status store.Status, rec kalah.Record) []byte {
	t.Helper()
	b, err := json.Marshal(map[string]any{"id": 7, "status": status, "record": rec, "to_move": 0})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestRemoteFollowsALostAnswer: the connection drops after the game
// started; PlayArranged follows it through GET /api/games/{id} until it is
// finished, with the players named by their specs, or reports a game
// adjudicated meanwhile as unavailable (cut by a restart: play it again).
func TestRemoteFollowsALostAnswer(t *testing.T) {
	for _, c := range []struct {
		name string
		term kalah.Termination
	}{{"played", kalah.Normal}, {"adjudicated", kalah.Adjudicated}} {
		t.Run(c.name, func(t *testing.T) {
			rec := finished(t)
			if c.term == kalah.Adjudicated {
				g, _ := kalah.NewGame(kalah.Rules{Houses: 4, Seeds: 3})
				g.Adjudicate(kalah.Draw)
				rec = g.Record()
			}
			var looks atomic.Int32
			_, r := fakeServer(t, func(w http.ResponseWriter, hr *http.Request) bool {
				switch hr.URL.Path {
				case "/api/arranged":
					var req ArrangedRequest
					if err := json.NewDecoder(hr.Body).Decode(&req); err != nil || req.South != "bot:alice" || req.PerMoveMS != 5000 {
						t.Errorf("request %+v: %v", req, err)
					}
					w.Header().Set(GameHeader, "7")
					w.WriteHeader(http.StatusOK)
					io.WriteString(w, `{"id":7,"rec`)
					w.(http.Flusher).Flush()
					panic(http.ErrAbortHandler) // the connection drops
				case "/api/games/7":
					if looks.Add(1) < 3 {
						w.Write(gameJSON(t, store.Live, kalah.Record{}))
					} else {
						w.Write(gameJSON(t, store.Finished, rec))
					}
					return true
				}
				return false
			})
			r.Poll = time.Millisecond
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			var started int64
			res, err := r.PlayArranged(ctx, Arranged{South: "bot:alice", North: " greedy", PerMove: 5 * time.Second,
				OnStart: func(id int64) { started = id }})
			if started != 7 || res.ID != 7 || looks.Load() != 3 {
				t.Fatalf("started %d, result %+v, %d looks", started, res, looks.Load())
			}
			if c.term == kalah.Adjudicated {
				if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "play it again") {
					t.Fatalf("adjudicated: %v", err)
				}
				return
			}
			if err != nil || res.Record.Players.South != "bot:alice" || res.Record.Players.North != "greedy" ||
				res.Record.Result != rec.Result || len(res.Record.Moves) != len(rec.Moves) {
				t.Fatalf("followed %+v: %v", res, err)
			}
		})
	}
}

// TestRemoteFollowGivesUp: following a game on a server that has gone
// away ends once Patience has passed.
func TestRemoteFollowGivesUp(t *testing.T) {
	hs, r := fakeServer(t, nil)
	r.Poll, r.Patience = time.Millisecond, 20*time.Millisecond
	hs.Close()
	if _, err := r.follow(context.Background(), 7, Arranged{}); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("follow: %v", err)
	}
	// Ending ctx ends it too, with ctx's error.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	r.Patience = time.Hour
	if _, err := r.follow(ctx, 7, Arranged{}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("follow with ctx ended: %v", err)
	}
}

// TestRemoteStatuses: the server's error answers are its sentinel errors.
func TestRemoteStatuses(t *testing.T) {
	var code atomic.Int32
	var retry atomic.Bool
	_, r := fakeServer(t, func(w http.ResponseWriter, hr *http.Request) bool {
		if hr.URL.Path != "/api/arranged" {
			return false
		}
		if retry.Load() {
			w.Header().Set("Retry-After", "1")
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(int(code.Load()))
		io.WriteString(w, `{"error":"refused here"}`)
		return true
	})
	for _, c := range []struct {
		code  int
		retry bool
		want  error
		text  string
	}{
		{http.StatusServiceUnavailable, true, core.ErrBusy, "refused here"},
		{http.StatusServiceUnavailable, false, ErrUnavailable, "refused here"},
		{http.StatusForbidden, false, core.ErrForbidden, "refused here"},
		{http.StatusNotFound, false, core.ErrNotFound, "not a kalah serve"},
		{http.StatusBadGateway, false, ErrUnavailable, "refused here"},
		{http.StatusGatewayTimeout, false, ErrUnavailable, "refused here"},
		{http.StatusTeapot, false, nil, "HTTP 418"},
	} {
		code.Store(int32(c.code))
		retry.Store(c.retry)
		_, err := r.PlayArranged(context.Background(), Arranged{South: "greedy", North: "first"})
		if err == nil || (c.want != nil && !errors.Is(err, c.want)) || !strings.Contains(err.Error(), c.text) {
			t.Errorf("%d (Retry-After %v): %v, want %v with %q", c.code, c.retry, err, c.want, c.text)
		}
		if c.want == nil && (errors.Is(err, ErrUnavailable) || errors.Is(err, core.ErrBusy)) {
			t.Errorf("%d: %v is not to be tried again", c.code, err)
		}
	}
}

// TestRemoteCheckToken: the token is taken when the empty game is refused
// as incomplete (400), and refused with a word on where to find it (401).
func TestRemoteCheckToken(t *testing.T) {
	_, r := fakeServer(t, func(w http.ResponseWriter, hr *http.Request) bool {
		if hr.URL.Path != "/api/arranged" {
			return false
		}
		if hr.Header.Get("Authorization") != "Bearer good" {
			w.WriteHeader(http.StatusUnauthorized)
			return true
		}
		w.WriteHeader(http.StatusBadRequest)
		return true
	})
	ctx := context.Background()
	if err := r.CheckToken(ctx); !errors.Is(err, core.ErrForbidden) || !strings.Contains(err.Error(), "no admin token was given") {
		t.Errorf("no token: %v", err)
	}
	r.Token = "bad"
	if err := r.CheckToken(ctx); !errors.Is(err, core.ErrForbidden) || !strings.Contains(err.Error(), "does not take") {
		t.Errorf("a wrong token: %v", err)
	}
	r.Token = "good"
	if err := r.CheckToken(ctx); err != nil {
		t.Errorf("the token: %v", err)
	}
}

// TestArrangedRequest: an Arranged goes out as its request and comes back
// the same (but OnStart); a request out of bounds or malformed is refused
// with the status it is answered with.
func TestArrangedRequest(t *testing.T) {
	a := Arranged{Rules: kalah.Rules{Houses: 4, Seeds: 3}, South: "bot:alice", North: "bot:bob", Opening: []kalah.Move{2},
		PerMove: 5 * time.Second, Budget: time.Minute, Increment: time.Second, Grace: 3 * time.Millisecond, Delay: 7 * time.Millisecond,
		Seeds: [2]uint64{1, 2}, Tags: map[string]string{"Event": "x"}, Wait: 11 * time.Second}
	b, err := json.Marshal(a.Request())
	if err != nil {
		t.Fatal(err)
	}
	var req ArrangedRequest
	if err := json.Unmarshal(b, &req); err != nil {
		t.Fatal(err)
	}
	back, err := req.Arranged()
	if err != nil || !reflect.DeepEqual(back, a) {
		t.Fatalf("%s came back as %+v: %v", b, back, err)
	}
	// No player but bot is known in this package.
	for _, c := range []struct {
		req  ArrangedRequest
		want error
		text string
	}{
		{ArrangedRequest{South: "bot:a", North: "bot:b", PerMoveMS: -1}, core.ErrBadRequest, "per_move_ms"},
		{ArrangedRequest{South: "bot:a", North: "bot:b", WaitMS: maxArrangedMS + 1}, core.ErrBadRequest, "wait_ms"},
		{ArrangedRequest{South: "bot:a"}, core.ErrBadRequest, "required"},
		{ArrangedRequest{South: "bot:a b", North: "bot:b"}, core.ErrBadRequest, "bot's name"},
		{ArrangedRequest{South: "bot:alice", North: " bot:alice"}, core.ErrForbidden, "itself"},
		{ArrangedRequest{South: "bot:a", North: "nosuchplayer"}, nil, "nosuchplayer"},
	} {
		if _, err := c.req.Arranged(); err == nil || (c.want != nil && !errors.Is(err, c.want)) || !strings.Contains(err.Error(), c.text) {
			t.Errorf("%+v: %v, want %v with %q", c.req, err, c.want, c.text)
		}
	}
	if name, ok, err := BotName(" Bot:alice"); name != "alice" || !ok || err != nil {
		t.Errorf("BotName: %q %v %v", name, ok, err)
	}
	if _, ok, err := BotName("greedy"); ok || err != nil {
		t.Errorf("BotName of a program: %v %v", ok, err)
	}
}
