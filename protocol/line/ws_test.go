package line

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// TestWebSocketReadTimeoutKeepsTheConnection: a read that times out on a
// WebSocket transport (kalah bot waits a second for a game in progress
// after logging in) leaves the connection open for the next line, as on
// TCP; the WebSocket library alone would close it.
func TestWebSocketReadTimeoutKeepsTheConnection(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		tr := NewWebSocket(c, 0, "test")
		defer tr.Close()
		<-release
		tr.WriteLine("hello again", time.Second)
		tr.ReadLine(5 * time.Second) // until the client is done
	}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	tr, err := Dial(ctx, "ws://"+strings.TrimPrefix(srv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	if _, err := tr.ReadLine(100 * time.Millisecond); !errors.Is(err, ErrTimeout) {
		t.Fatalf("a read with nothing to read: %v, want a timeout", err)
	}
	close(release)
	line, err := tr.ReadLine(5 * time.Second)
	if err != nil || line != "hello again" {
		t.Fatalf("after the timeout: %q, %v", line, err)
	}
	tr.WriteLine("bye", time.Second)
}
