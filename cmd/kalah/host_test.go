package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer safe for a writer and a reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func freePort(t *testing.T) int {
	// A port below the kernel's ephemeral range (32768 and up on Linux):
	// one the kernel handed out for port 0 is soon handed out again, to
	// another test's listener or to an outgoing connection of the other
	// packages' tests, before the server started here binds it (a server
	// that "did not start" on a busy machine).
	for range 100 {
		port := 20000 + rand.IntN(12000)
		l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			continue
		}
		l.Close()
		return port
	}
	t.Fatal("no free port between 20000 and 32000")
	return 0
}

// TestHostAndJoin plays a person at the host's terminal (typing every house
// in turn; illegal ones are refused) against a computer that joined.
func TestHostAndJoin(t *testing.T) {
	port := freePort(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	moves := strings.Repeat("1\n2\n3\n4\n5\n6\n", 200)
	var hostOut, hostErr, joinOut, joinErr syncBuffer
	var wg sync.WaitGroup
	var hostCode, joinCode int
	wg.Add(1)
	go func() {
		defer wg.Done()
		hostCode = run(ctx, []string{"host", "--port", fmt.Sprint(port), "--name", "alice"}, strings.NewReader(moves), &hostOut, &hostErr)
	}()
	for !strings.Contains(hostOut.String(), "Waiting") {
		time.Sleep(10 * time.Millisecond)
	}
	joinCode = run(ctx, []string{"join", fmt.Sprintf("127.0.0.1:%d", port), "--player", "greedy", "--name", "bob"}, strings.NewReader(""), &joinOut, &joinErr)
	wg.Wait()
	if hostCode != 0 || joinCode != 0 {
		t.Fatalf("host exit %d: %s\njoin exit %d: %s", hostCode, hostErr.String(), joinCode, joinErr.String())
	}
	for _, want := range []string{"kalah join", "Your move (", "is not a move here", "The game is over", "Game over: alice"} {
		if !strings.Contains(hostOut.String(), want) {
			t.Errorf("host output lacks %q:\n%s", want, hostOut.String())
		}
	}
	if !strings.Contains(joinOut.String(), "Game 1 against alice") || !strings.Contains(joinOut.String(), "The game is over: South") {
		t.Errorf("join output:\n%s", joinOut.String())
	}
}

// TestHostAndJoinWithDefaultNames: host and join on one machine both take
// their name from $USER; the guest is not refused as the host queued
// twice ("busy already playing or queued"), and both play the game out.
func TestHostAndJoinWithDefaultNames(t *testing.T) {
	t.Setenv("USER", "alice")
	port := freePort(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var hostOut, hostErr, joinOut, joinErr syncBuffer
	hosted := make(chan int, 1)
	go func() {
		hosted <- run(ctx, []string{"host", "--port", fmt.Sprint(port), "--player", "greedy"}, strings.NewReader(""), &hostOut, &hostErr)
	}()
	for !strings.Contains(hostOut.String(), "Waiting") {
		time.Sleep(10 * time.Millisecond)
	}
	joinCode := run(ctx, []string{"join", fmt.Sprintf("localhost:%d", port), "--player", "pekar"}, strings.NewReader(""), &joinOut, &joinErr)
	hostCode := <-hosted
	if hostCode != 0 || joinCode != 0 {
		t.Fatalf("host exit %d: %s%s\njoin exit %d: %s%s", hostCode, hostOut.String(), hostErr.String(), joinCode, joinOut.String(), joinErr.String())
	}
	if !strings.Contains(joinOut.String(), "Connecting to localhost:") || !strings.Contains(joinOut.String(), "as alice") ||
		!strings.Contains(joinOut.String(), "Game 1 against alice") || !strings.Contains(hostOut.String(), "Game over: alice") {
		t.Errorf("host said:\n%s\njoin said:\n%s", hostOut.String(), joinOut.String())
	}
}

func TestServeConfigFile(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "serve.toml")
	os.WriteFile(cfg, []byte("colour = \"red\"\n"), 0o644)
	_, errs, code := runCmd(t, "serve", "--config", cfg, "--data", dir)
	if code != 2 || !strings.Contains(errs, "unknown setting") {
		t.Fatalf("unknown setting: exit %d, %s", code, errs)
	}
	os.WriteFile(cfg, []byte("trusted-proxy = [\"10.0.0.0/8\", \"example.com\"]\n"), 0o644)
	if _, errs, code := runCmd(t, "serve", "--config", cfg, "--data", dir); code != 2 || !strings.Contains(errs, `trusted proxy "example.com"`) {
		t.Fatalf("a bad trusted proxy: exit %d, %s", code, errs)
	}
	// A valid file: every listener on a free port, stopped at once; a
	// list sets a repeatable flag once an item.
	os.WriteFile(cfg, []byte("addr = \"127.0.0.1:0\"\nbot-addr = \"127.0.0.1:0\"\nkgp-addr = \"0\"\ntime = \"3s\"\ntrusted-proxy = [\"10.0.0.0/8\", \"192.168.1.5\"]\n"), 0o644)
	ctx, cancel := context.WithCancel(context.Background())
	var out, errb syncBuffer
	done := make(chan int)
	go func() {
		done <- run(ctx, []string{"serve", "--config", cfg, "--data", dir}, strings.NewReader(""), &out, &errb)
	}()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(errb.String(), "serving") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	if code := <-done; code != 130 && code != 0 {
		t.Fatalf("serve exit %d: %s", code, errb.String())
	}
	if !strings.Contains(errb.String(), "trusted-proxies=2") {
		t.Errorf("the config file's two trusted proxies are not both trusted: %s", errb.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "kalah.db")); err != nil {
		t.Fatal(err)
	}
}

// TestBotCommand puts two built-in players online on a running server.
func TestBotCommand(t *testing.T) {
	dir := t.TempDir()
	port := freePort(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var serveErr syncBuffer
	served := make(chan int)
	go func() {
		served <- run(ctx, []string{"serve", "--data", dir, "--addr", "", "--kgp-addr", "0", "--bot-addr", fmt.Sprintf("127.0.0.1:%d", port)},
			strings.NewReader(""), io.Discard, &serveErr)
	}()
	for !strings.Contains(serveErr.String(), "serving") {
		time.Sleep(10 * time.Millisecond)
	}
	var wg sync.WaitGroup
	outs, errs := make([]syncBuffer, 2), make([]syncBuffer, 2)
	codes := make([]int, 2)
	for i, spec := range []string{"greedy", "pekar"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			args := []string{"bot", "--server", fmt.Sprintf("127.0.0.1:%d", port), "--player", spec, "--games", "2"}
			if i == 0 {
				args = append(args, "--token", "t") // pekar's is made for it
			}
			codes[i] = run(ctx, args, strings.NewReader(""), &outs[i], &errs[i])
		}()
	}
	wg.Wait()
	// Another bot under a name pekar's token holds is refused, and told
	// the flags that help.
	var refused syncBuffer
	if code := run(ctx, []string{"bot", "--server", fmt.Sprintf("127.0.0.1:%d", port), "--player", "pekar", "--token", "not-pekars", "--games", "1"},
		strings.NewReader(""), io.Discard, &refused); code != 1 || !strings.Contains(refused.String(), "wrong token for pekar; pick another name with --name NAME, or log in with the name's --token") {
		t.Errorf("a bot under a taken name: exit %d:\n%s", code, refused.String())
	}
	cancel()
	<-served
	for i, name := range []string{"greedy", "pekar"} {
		if codes[i] != 0 || !strings.Contains(outs[i].String(), name+": won ") || strings.Count(outs[i].String(), "(normal)") != 2 {
			t.Errorf("bot %s exit %d:\n%s", name, codes[i], outs[i].String())
		}
	}
	// The token made for pekar is told once the server took it.
	if !regexp.MustCompile(`(?m)^kalah bot: logged in as pekar with the new token [0-9a-f]{24}; keep it: --token [0-9a-f]{24} \(or \$KALAH_TOKEN\) logs in as pekar again$`).MatchString(errs[1].String()) {
		t.Errorf("pekar's new token not told:\n%s", errs[1].String())
	}
	if strings.Contains(errs[0].String(), "token") {
		t.Errorf("a token told for a bot that gave its own:\n%s", errs[0].String())
	}
}
