package mkp_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"kalah"
	"kalah/internal/identity"
	"kalah/internal/store"
	"kalah/player"
	"kalah/protocol/kgp"
	"kalah/protocol/mkp"
	"kalah/server"
)

// TestManchesterAgentAgainstKGPClientThroughTheServer seats a Manchester
// agent (this test binary, speaking the engine protocol as the spec
// describes it) and a KGP client written here from the KGP spec in the
// match server's queue, and checks that they play a whole game under the
// manchester rules, swap included.
func TestManchesterAgentAgainstKGPClientThroughTheServer(t *testing.T) {
	t.Run("agent waits first", func(t *testing.T) { throughServer(t, true) })
	t.Run("kgp client waits first", func(t *testing.T) { throughServer(t, false) })
}

// throughServer plays the game; the one who waits in the queue first plays
// South (a hint only: the checks hold either way).
func throughServer(t *testing.T, agentFirst bool) {
	r, _ := kalah.PresetRules("manchester")
	st, err := store.Open(filepath.Join(t.TempDir(), "kalah.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	srv, err := server.New(server.Config{Store: st, Rules: r, PerMove: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	joined := make(chan struct{}, 1)
	ks := &kgp.Server{Logger: slog.New(slog.DiscardHandler), Join: func(ctx context.Context, c *kgp.Client) {
		joined <- struct{}{}
		srv.Play(ctx, server.Entrant{Name: "kgp-" + c.Name(), Kind: "kgp", Player: c, Done: c.Done()})
	}}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- ks.Serve(l) }()
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := ks.Shutdown(ctx); err != nil {
			t.Errorf("kgp shutdown: %v", err)
		}
		if err := srv.Shutdown(ctx); err != nil {
			t.Errorf("server shutdown: %v", err)
		}
		<-served
	}()

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	// The agent swaps if it is North, so the KGP client then plays North
	// and must be sent mirrored boards.
	agent, err := player.New(agentSpec(t, "swapper"), player.Options{Rules: r})
	if err != nil {
		t.Fatal(err)
	}
	mkDone := make(chan error, 1)
	kgpDone := make(chan error, 1)
	if agentFirst {
		go func() { mkDone <- srv.Play(ctx, server.Entrant{Name: "mk-agent", Kind: "mk", Player: agent}) }()
		time.Sleep(100 * time.Millisecond)
		go func() { kgpDone <- rawKGPClient(ctx, l.Addr().String(), "raw") }()
	} else {
		go func() { kgpDone <- rawKGPClient(ctx, l.Addr().String(), "raw") }()
		<-joined
		time.Sleep(100 * time.Millisecond)
		go func() { mkDone <- srv.Play(ctx, server.Entrant{Name: "mk-agent", Kind: "mk", Player: agent}) }()
	}
	if err := <-mkDone; err != nil {
		t.Fatalf("mk entrant: %v", err)
	}
	if err := <-kgpDone; err != nil {
		t.Fatalf("kgp client: %v", err)
	}
	agent.(*mkp.Agent).Close()
	games, err := srv.FinishedGames(ctx, 10, 0, identity.ID{})
	if err != nil {
		t.Fatal(err)
	}
	if len(games) != 1 {
		t.Fatalf("%d finished games", len(games))
	}
	g := games[0]
	if g.Termination != kalah.Normal {
		t.Fatalf("game ended %v", g.Termination)
	}
	names := g.South + " " + g.North
	if !strings.Contains(names, "mk-agent") || !strings.Contains(names, "kgp-raw") {
		t.Errorf("players %q", names)
	}
	view, err := srv.Game(ctx, g.ID)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(view.Record.Moves); n < 10 {
		t.Errorf("only %d moves: %+v", n, view.Record)
	}
	swapped := false
	for _, m := range view.Record.Moves {
		swapped = swapped || m.Swap
	}
	t.Logf("South %s, North %s, swapped %v, %d-%d", g.South, g.North, swapped, g.Score.South, g.Score.North)
	if swapped != (g.North == "mk-agent") {
		t.Errorf("swapped %v with the agent playing %s", swapped, map[bool]string{true: "North", false: "South"}[g.North == "mk-agent"])
	}
	if g.Score.South+g.Score.North != r.TotalSeeds() {
		t.Errorf("score %+v", g.Score)
	}
}

// rawKGPClient is a KGP freeplay client written from the spec alone: it
// greets, names itself, and answers every state with its highest non-empty
// house (as South, which the board always shows it as) and yield.
func rawKGPClient(ctx context.Context, addr, name string) error {
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	defer c.Close()
	stop := context.AfterFunc(ctx, func() { c.Close() })
	defer stop()
	r := bufio.NewReader(c)
	send := func(s string) error {
		_, err := c.Write([]byte(s + "\r\n"))
		return err
	}
	states := 0
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return fmt.Errorf("after %d states: %w", states, err)
		}
		if !strings.HasSuffix(line, "\r\n") {
			return fmt.Errorf("line %q does not end in CRLF", line)
		}
		f := strings.Fields(line)
		id := ""
		if len(f) > 0 && (f[0][0] >= '0' && f[0][0] <= '9' || f[0][0] == '@') {
			id, _, _ = strings.Cut(f[0], "@")
			f = f[1:]
		}
		if len(f) == 0 {
			return fmt.Errorf("empty command %q", line)
		}
		switch f[0] {
		case "kgp":
			if len(f) != 4 || f[1] != "1" {
				return fmt.Errorf("greeting %q", line)
			}
			if err := send(`set info:name "` + name + `"`); err != nil {
				return err
			}
			if err := send("mode freeplay"); err != nil {
				return err
			}
		case "state":
			states++
			if id == "" || len(f) != 2 {
				return fmt.Errorf("state %q has no id or board", line)
			}
			v := strings.Split(strings.Trim(f[1], "<>"), ",")
			n, _ := strconv.Atoi(v[0])
			if len(v) != 2*n+3 {
				return fmt.Errorf("board %q", f[1])
			}
			move := 0
			for h := n; h >= 1; h-- {
				if v[2+h] != "0" {
					move = h
					break
				}
			}
			if move == 0 {
				return fmt.Errorf("asked to move with no seeds: %q", line)
			}
			if err := send(fmt.Sprintf("@%s move %d", id, move)); err != nil {
				return err
			}
			if err := send("@" + id + " yield"); err != nil {
				return err
			}
		case "ping":
			if err := send("@" + id + " pong"); err != nil {
				return err
			}
		case "goodbye":
			if states == 0 {
				return errors.New("goodbye before any state")
			}
			return nil
		case "error":
			return fmt.Errorf("server error: %q", line)
		}
	}
}
