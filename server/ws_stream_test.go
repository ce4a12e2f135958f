package server

import (
	"bufio"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"kalah/protocol/kgp"
	"kalah/protocol/line"
)

// TestLineWebSocketIsAByteStream writes our line protocol over /ws/bot the
// way a byte-stream client does: a command in pieces over several messages,
// and several commands in one message.
func TestLineWebSocketIsAByteStream(t *testing.T) {
	ts := newTestServer(t, "", Config{})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(ts.http.URL, "http")+"/ws/bot", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	r := bufio.NewReader(websocket.NetConn(ctx, ws, websocket.MessageText))
	expect := func(prefix string) {
		t.Helper()
		for {
			s, err := r.ReadString('\n')
			if err != nil {
				t.Fatalf("waiting for %q: %v", prefix, err)
			}
			if strings.HasPrefix(s, prefix) {
				return
			}
		}
	}
	expect("kalah ")
	for _, piece := range []string{"login", " streamer", " ", "tok", "en-1", "\r", "\n"} {
		if err := ws.Write(ctx, websocket.MessageText, []byte(piece)); err != nil {
			t.Fatal(err)
		}
	}
	expect("ok")
	if err := ws.Write(ctx, websocket.MessageText, []byte("ping\ngames\n")); err != nil {
		t.Fatal(err)
	}
	expect("pong")
	expect("ok games")
}

// TestWebSocketsRefuseAForeignOrigin: a page on another site cannot open
// the bot endpoints from a visitor's browser; a client without Origin can.
func TestWebSocketsRefuseAForeignOrigin(t *testing.T) {
	ts := newTestServer(t, "", Config{})
	ks := &kgp.Server{}
	mux := http.NewServeMux()
	mux.Handle("/ws/", ts.srv.Handler())
	mux.Handle("/kgp", ks.Handler())
	srv := httptest.NewServer(mux)
	defer srv.Close()
	defer srv.CloseClientConnections()
	defer ks.Shutdown(context.Background())
	hs := srv.URL
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, path := range []string{"/ws/bot", "/kgp"} {
		url := "ws" + strings.TrimPrefix(hs, "http") + path
		h := http.Header{"Origin": {"https://evil.example"}}
		if c, resp, err := websocket.Dial(ctx, url, &websocket.DialOptions{HTTPHeader: h}); err == nil {
			c.CloseNow()
			t.Errorf("%s: foreign Origin accepted", path)
		} else if resp == nil || resp.StatusCode != http.StatusForbidden {
			t.Errorf("%s: foreign Origin: %v (%v), want 403", path, err, resp)
		}
		c, _, err := websocket.Dial(ctx, url, nil)
		if err != nil {
			t.Errorf("%s: no Origin refused: %v", path, err)
			continue
		}
		c.CloseNow()
	}
}

// TestPlayingBotIsNotRateLimited: once the logins from an address are used
// up, a bot of that address with a game in progress still logs back in to
// it, while a stranger from there waits.
func TestPlayingBotIsNotRateLimited(t *testing.T) {
	ts := newTestServer(t, "", Config{LoginRate: 0.001, LoginBurst: 2, PerMove: time.Minute})
	alice := dial(t, ts.addr)
	alice.login("alice", "alice-token")
	alice.send("queue")
	alice.expect("ok")
	bob := dial(t, ts.addr)
	bob.login("bob", "bob-token")
	bob.send("queue")
	alice.expect("go")
	// The address's logins are used up now.
	stranger := dial(t, ts.addr)
	stranger.send("login carol carol-token")
	if m := stranger.expect("error"); m.Arg(0) != line.CodeRate {
		t.Fatalf("a stranger got %s, want a rate limit", m)
	}
	alice.tr.Close()
	back := dial(t, ts.addr)
	back.login("alice", "alice-token")
	back.expect("start")
	back.expect("go")
}

// TestStoreFaultIsTold: when the store fails under a game (a full disk,
// say), the game stops and both players are told why, rather than left
// waiting.
func TestStoreFaultIsTold(t *testing.T) {
	ts := newTestServer(t, "", Config{PerMove: time.Minute})
	a := dial(t, ts.addr)
	a.login("alice", "alice-token")
	a.send("queue")
	a.expect("ok")
	b := dial(t, ts.addr)
	b.login("bob", "bob-token")
	b.send("queue")
	a.expect("go")
	// The store goes away under the game.
	ts.st.Close()
	a.send("move 1")
	for _, c := range []*client{a, b} {
		for {
			m, err := c.next()
			if err != nil {
				t.Fatalf("no word of the fault: %v", err)
			}
			if m.Cmd == "error" {
				if m.Arg(0) != line.CodeShutdown || !strings.Contains(m.Rest(0), "stopped") {
					t.Fatalf("told %s", m)
				}
				break
			}
		}
	}
}
