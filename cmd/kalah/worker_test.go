package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"kalah/tournament/dist"
)

// TestWorkerWaitsForCoordinator starts kalah worker with nothing at its
// --join address: it says it is waiting for the coordinator and never that
// it joined, until a coordinator's NATS server starts there; then it says
// "joined", once.
func TestWorkerWaitsForCoordinator(t *testing.T) {
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	wctx, stop := context.WithCancel(ctx)
	var out, errb syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(wctx, []string{"worker", "--join", "nats://" + addr, "--jobs", "1", "--no-solve"}, strings.NewReader(""), &out, &errb)
	}()
	waitFor := func(what string) {
		t.Helper()
		for deadline := time.Now().Add(20 * time.Second); !strings.Contains(errb.String(), what); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("no %q within 20s; stderr:\n%s", what, errb.String())
			}
		}
	}
	waitFor("waiting for the coordinator at nats://" + addr)
	// Several of its reconnection attempts (one a second) go by.
	time.Sleep(2500 * time.Millisecond)
	if s := errb.String(); strings.Contains(s, "joined") {
		t.Fatalf("with no coordinator the worker says it joined:\n%s", s)
	}

	emb, err := dist.StartEmbedded(ctx, dist.EmbeddedConfig{Listen: addr, Slots: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer emb.Close()
	waitFor("joined nats://" + addr)
	stop()
	if code := <-done; code != 0 {
		t.Errorf("kalah worker stopped with exit %d; stderr:\n%s", code, errb.String())
	}
	s := errb.String()
	if strings.Count(s, "joined") != 1 || strings.Index(s, "waiting for the coordinator") > strings.Index(s, "joined") {
		t.Errorf("want the wait, then one \"joined\":\n%s", s)
	}
}
