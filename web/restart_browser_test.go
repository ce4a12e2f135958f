package web

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"kalah"
	"kalah/internal/store"
	"kalah/server"
)

// TestBrowserServerRestart: the server stops in the middle of a game; the
// page says the connection is lost and takes no move; the server starts
// again on the same data and address, and the page, without a reload,
// shows the right position and the person plays on.
func TestBrowserServerRestart(t *testing.T) {
	chromium(t) // skip, without a browser, before a server starts that only the end of the test halts
	path := filepath.Join(t.TempDir(), "kalah.db")
	type running struct {
		http *httptest.Server
		srv  *server.Server
		st   *store.Store
		stop context.CancelFunc
	}
	start := func(addr string) *running {
		st, err := store.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		srv, err := server.New(server.Config{Store: st})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		h, err := New(ctx, Options{Server: srv})
		if err != nil {
			t.Fatal(err)
		}
		var l net.Listener
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			if l, err = net.Listen("tcp", addr); err == nil || time.Now().After(deadline) {
				break
			}
		}
		if err != nil {
			t.Fatal(err)
		}
		hs := &httptest.Server{Listener: l, Config: &http.Server{Handler: h}}
		hs.Start()
		return &running{http: hs, srv: srv, st: st, stop: cancel}
	}
	halt := func(r *running) {
		r.stop()
		r.http.CloseClientConnections()
		r.http.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		r.srv.Shutdown(ctx)
		r.st.Close()
	}
	first := start("127.0.0.1:0")
	addr := first.http.Listener.Addr().String()
	g, err := first.srv.StartGame(context.Background(), server.GameRequest{Rules: kalah.Standard(), South: "human", North: "first"})
	if err != nil {
		t.Fatal(err)
	}
	id := itoa(g.ID)
	ctx := browser(t, 900, 800)
	open(t, ctx, first.http.URL+"/#/play")
	takeSeat(t, ctx, id, 0, g.Tokens[0])
	open(t, ctx, first.http.URL+"/#/game/"+id)
	waitJS(t, ctx, `document.querySelector('button.pit[data-side="S"][data-house="1"]:not(:disabled)')`)
	click(t, ctx, "#animate")
	// Clicked by script: a click by coordinates may land on another house
	// if the page moves under it on a busy machine.
	eval[bool](t, ctx, `(document.querySelector('button.pit[data-side="S"][data-house="1"]').click(), true)`)
	waitJS(t, ctx, `document.querySelector("#moves").textContent.startsWith("1. 1 ") && document.querySelector("#status").textContent === "Your move"`)
	moves := eval[string](t, ctx, `document.querySelector("#moves").textContent`)

	halt(first)
	waitJS(t, ctx, `document.querySelector("#status").textContent.includes("reconnecting") && !document.querySelector("button.pit:not(:disabled)")`)
	shot(t, ctx, "restart-offline")

	second := start(addr)
	defer halt(second)
	waitJS(t, ctx, `document.querySelector("#status").textContent === "Your move" && document.querySelector('button.pit[data-side="S"]:not(:disabled)')`)
	if got := eval[string](t, ctx, `document.querySelector("#moves").textContent`); got != moves {
		t.Fatalf("after the restart the page shows %q, before %q", got, moves)
	}
	// The person plays on, with the seat's token from before the restart.
	h := eval[int](t, ctx, `Math.max(...[...document.querySelectorAll('button.pit[data-side="S"]:not(:disabled)')].map(b => +b.dataset.house))`)
	eval[bool](t, ctx, `(document.querySelector('button.pit[data-side="S"][data-house="`+itoa(int64(h))+`"]').click(), true)`)
	waitJS(t, ctx, `document.querySelector("#moves").textContent.length > `+itoa(int64(len(moves))))
	b, err := second.srv.BoardOf(context.Background(), g.ID)
	if err != nil || len(b.Moves) < 3 {
		t.Fatalf("the server after the restart: %d moves, %v", len(b.Moves), err)
	}
}
