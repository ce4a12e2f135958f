package web

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"kalah"
	"kalah/player"
	"kalah/remote"
	"kalah/server"
)

// botWorld is a match server with a TCP bot listener, the page with the
// server's tournaments, and bots connected with the remote client.
type botWorld struct {
	srv  *server.Server
	web  *httptest.Server
	addr string
	ctx  context.Context
	bots sync.WaitGroup
	errs chan error
}

func newBotWorld(t *testing.T) *botWorld {
	t.Helper()
	srv := newMatchServerTB(t, server.Config{})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(l) }()
	w := &botWorld{srv: srv, addr: l.Addr().String(), errs: make(chan error, 8)}
	var cancel context.CancelFunc
	w.web, _ = browserServerWith(t, func(ctx context.Context) Options {
		w.ctx, cancel = context.WithCancel(ctx)
		return Options{Server: srv, Tournaments: serverTournaments(t, ctx, srv)}
	})
	t.Cleanup(func() {
		cancel()
		w.bots.Wait()
		sctx, scancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer scancel()
		srv.Shutdown(sctx)
		<-served
	})
	return w
}

// connect puts a built-in player online as a bot that waits for
// tournament games, and waits until the server counts it.
func (w *botWorld) connect(t *testing.T, name, spec string) {
	t.Helper()
	p, err := player.New(spec, player.Options{Rules: kalah.Standard(), Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	c := &remote.Client{Addr: w.addr, Name: name, Token: "secret-" + name, Player: p, Wait: true}
	w.bots.Add(1)
	go func() {
		defer w.bots.Done()
		if err := c.Run(w.ctx); err != nil && !errors.Is(err, context.Canceled) {
			w.errs <- fmt.Errorf("bot %s: %w", name, err)
		}
	}()
	deadline := time.Now().Add(10 * time.Second)
	for !slices.Contains(w.srv.WaitingBots(), name) {
		if time.Now().After(deadline) {
			t.Fatalf("bot %s is not waiting: %v", name, w.srv.WaitingBots())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestBrowserTournamentOfBots starts, from the page, a tournament of the
// two bots waiting on the server and a built-in player, and follows one
// of the bots' games to the server's game page.
func TestBrowserTournamentOfBots(t *testing.T) {
	w := newBotWorld(t)
	w.connect(t, "alice", "greedy")
	w.connect(t, "bob", "first")
	ctx := browser(t, 900, 1100)
	open(t, ctx, w.web.URL+"/#/tournaments")
	// The waiting bots are offered beside the built-in players.
	waitJS(t, ctx, `[...document.querySelectorAll(".tplayer")].some(b => b.value === "bot:bob")`)
	if eval[bool](t, ctx, `[...document.querySelectorAll(".tplayer")].some(b => b.value === "bot")`) {
		t.Error("the bare bot kind is offered")
	}
	eval[bool](t, ctx, `(() => {
		for (const b of document.querySelectorAll(".tplayer")) b.checked = ["bot:alice", "bot:bob", "beginner"].includes(b.value);
		document.querySelector("#preset").value = "dec1961";
		document.querySelector("#preset").dispatchEvent(new Event("change"));
		document.querySelector("#tname").value = "Class";
		return true })()`)
	click(t, ctx, "#tstart")
	waitJS(t, ctx, `location.hash.startsWith("#/tournament/") && document.querySelector("#standings")`)
	waitJS(t, ctx, `document.querySelector("#tournament").textContent.includes("6 of 6 games played")`)
	if rows := eval[int](t, ctx, `document.querySelectorAll("#standings tr").length`); rows != 4 {
		t.Errorf("standings rows %d", rows)
	}
	// Every game has a bot, so each links to a server game.
	if n := eval[int](t, ctx, `document.querySelectorAll('#tournament .games a[href^="#/game/"]').length`); n != 6 {
		t.Errorf("%d links to server games", n)
	}
	click(t, ctx, `#tournament .games a[href^="#/game/"]`)
	waitJS(t, ctx, `document.querySelector("main").innerText.includes("alice")`)
	select {
	case err := <-w.errs:
		t.Error(err)
	default:
	}
}
