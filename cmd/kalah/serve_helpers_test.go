package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// testServe is a kalah serve run by a test in a fresh working directory,
// with its data in ./kalah-data and its listeners on ports the system
// chose (:0), read back from its --ready-file: no race for a free port.
type testServe struct {
	httpPort, botPort, kgpPort int
	log                        syncBuffer // its standard error
	cancel                     context.CancelFunc
	exited                     chan int
}

// startServe starts kalah serve with extra flags and waits until it
// serves; the test's cleanup stops it.
func startServe(t *testing.T, extra ...string) *testServe {
	t.Helper()
	t.Chdir(t.TempDir())
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	if err := os.Mkdir("kalah-data", 0o755); err != nil {
		t.Fatal(err)
	}
	s := &testServe{exited: make(chan int, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	args := append([]string{"serve", "--data", "kalah-data", "--addr", "127.0.0.1:0", "--kgp-addr", "0",
		"--bot-addr", "127.0.0.1:0", "--ready-file", "ready"}, extra...)
	go func() { s.exited <- run(ctx, args, strings.NewReader(""), io.Discard, &s.log) }()
	t.Cleanup(s.stop)
	var ready []byte
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if b, err := os.ReadFile("ready"); err == nil && len(b) > 0 {
			ready = b
			break
		}
		select {
		case code := <-s.exited:
			s.exited <- code
			t.Fatalf("kalah serve exited with %d:\n%s", code, s.log.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("kalah serve did not start:\n%s", s.log.String())
		}
	}
	for _, line := range strings.Split(strings.TrimSpace(string(ready)), "\n") {
		what, addr, _ := strings.Cut(line, " ")
		_, port, _ := net.SplitHostPort(addr)
		p, _ := strconv.Atoi(port)
		switch what {
		case "http":
			s.httpPort = p
		case "bots":
			s.botPort = p
		case "kgp":
			s.kgpPort = p
		}
	}
	return s
}

// stop stops the server and waits for it to exit; it may be called again.
func (s *testServe) stop() {
	s.cancel()
	code := <-s.exited
	s.exited <- code
}

// testBots are kalah bot --wait processes (in goroutines) logged in to a
// testServe.
type testBots struct {
	wg    sync.WaitGroup
	outs  []syncBuffer
	codes []int
}

// startBots runs a kalah bot --wait for each {name, player spec}, with
// extra flags, until ctx ends (or their --games are played); wait for them
// with wg.
func (s *testServe) startBots(ctx context.Context, extra []string, bots ...[2]string) *testBots {
	b := &testBots{outs: make([]syncBuffer, len(bots)), codes: make([]int, len(bots))}
	for i, bot := range bots {
		args := append([]string{"bot", "--server", fmt.Sprintf("127.0.0.1:%d", s.botPort), "--name", bot[0], "--player", bot[1],
			"--token", "t", "--wait"}, extra...)
		b.wg.Add(1)
		go func() {
			defer b.wg.Done()
			b.codes[i] = run(ctx, args, strings.NewReader(""), &b.outs[i], io.Discard)
		}()
	}
	return b
}
