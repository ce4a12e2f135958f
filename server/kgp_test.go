package server

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"testing"
	"time"

	"kalah"
	"kalah/player"
	"kalah/protocol/kgp"
)

// TestKGPClientPlaysALineBot joins a KGP bot through kgp.Server into the
// server's queue, the way kalah serve wires them, against a bot speaking
// the line protocol.
func TestKGPClientPlaysALineBot(t *testing.T) {
	ts := newTestServer(t, "", Config{})
	ks := &kgp.Server{Logger: slog.New(slog.DiscardHandler)}
	ks.Join = func(ctx context.Context, c *kgp.Client) {
		if err := ts.srv.Play(ctx, Entrant{Name: "kgp-" + c.Name(), Kind: "kgp", Player: c, Done: c.Done()}); err != nil {
			t.Errorf("play: %v", err)
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- ks.Serve(l) }()
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		ks.Shutdown(ctx)
		<-served
	}()

	lb := dial(t, ts.addr)
	lb.login("liner", "t")
	lb.send("queue kgp")
	lb.expect("ok")

	kr, _ := kalah.PresetRules("kgp")
	greedy, _ := player.New("greedy", player.Options{Rules: kr})
	bot := &kgp.Bot{Name: "greedy", Player: greedy}
	conn, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var botErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		botErr = bot.Play(context.Background(), conn)
	}()
	st, e := lb.playGame()
	wg.Wait()
	if botErr != nil {
		t.Fatalf("kgp bot: %v", botErr)
	}
	if st.Opponent != "kgp-greedy" || e.Termination != kalah.Normal {
		t.Fatalf("start %+v end %+v", st, e)
	}
	var id int64
	fmt.Sscan(st.Game, &id)
	rec := checkStored(t, ts.st, id, &e)
	if rec.Rules.Name != "kgp" {
		t.Fatalf("rules %v", rec.Rules)
	}
}
