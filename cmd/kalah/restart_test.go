package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"kalah/server"
)

// TestKillNineResumesEveryGame: live games between kalah bot clients, all
// behind one address, survive kill -9 of the server. The restarted server
// resumes them, the bots connect again by themselves, and every game ends
// normally, though the address's login allowance is far smaller than the
// crowd coming back: 100 games, 200 bots.
func TestKillNineResumesEveryGame(t *testing.T) {
	const games = 100
	bin := buildKalah(t)
	dir := t.TempDir()
	httpPort, botPort := freePort(t), freePort(t)
	start := func(burst int) (*exec.Cmd, chan error, *syncBuffer) {
		var stderr syncBuffer
		cmd := exec.Command(bin, "serve", "--data", filepath.Join(dir, "data"), "--addr", fmt.Sprintf("127.0.0.1:%d", httpPort),
			"--bot-addr", fmt.Sprintf("127.0.0.1:%d", botPort), "--kgp-addr", "0", "--time", "3s", "--delay", "150ms",
			"--login-rate", "0.5", "--login-burst", fmt.Sprint(burst))
		cmd.Env = append(os.Environ(), "KALAH_LOG=warn")
		cmd.Stdout, cmd.Stderr = io.Discard, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		t.Cleanup(func() {
			cmd.Process.Kill()
			<-exited
			exited <- nil
		})
		return cmd, exited, &stderr
	}
	base := fmt.Sprintf("http://127.0.0.1:%d", httpPort)
	live := func() (n int, ok bool) {
		var gs []server.GameInfo
		if err := getJSONErr(base+"/api/games?status=live&limit=1000", &gs); err != nil {
			return 0, false
		}
		return len(gs), true
	}
	// Enough logins for the first arrival, one at a time.
	cmd, exited, _ := start(2*games + 10)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, ok := live(); ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the server did not start")
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	outs := make([]syncBuffer, 2*games)
	codes := make([]int, 2*games)
	for i := range 2 * games {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i] = run(ctx, []string{"bot", "--server", fmt.Sprintf("127.0.0.1:%d", botPort), "--name", fmt.Sprintf("bot%03d", i),
				"--token", fmt.Sprintf("token-%03d-secret", i), "--player", []string{"greedy", "first"}[i%2], "--games", "1"},
				strings.NewReader(""), &outs[i], &outs[i])
		}()
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if n, _ := live(); n == games {
			break
		}
		if time.Now().After(deadline) {
			n, _ := live()
			t.Fatalf("%d of %d games live", n, games)
		}
	}
	time.Sleep(time.Second) // a few moves into every game
	cmd.Process.Kill()      // kill -9
	<-exited
	exited <- nil
	// The restarted server lets only 5 logins a burst through from this
	// address: the bots of live games come back on their own allowance.
	_, _, stderr := start(5)
	wg.Wait()
	for i := range codes {
		if codes[i] != 0 {
			t.Errorf("bot %d exited %d:\n%s", i, codes[i], outs[i].String())
		}
	}
	var gs []server.GameInfo
	if err := getJSONErr(base+"/api/games?status=finished&limit=1000", &gs); err != nil {
		t.Fatal(err)
	}
	if len(gs) != games {
		t.Fatalf("%d games finished, want %d\n%s", len(gs), games, stderr.String())
	}
	for _, g := range gs {
		if g.Termination.String() != "normal" {
			t.Errorf("game %d ended %s", g.ID, g.Termination)
		}
	}
}

// getJSONErr is getJSON for polling: it reports errors instead of failing.
func getJSONErr(url string, v any) error {
	resp, err := http.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s", url, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(v)
}
