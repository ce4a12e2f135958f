package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestSlowBodiesAreClosed: 2,000 connections that send a request's headers
// and never its body are closed by the read timeout, while two bots log in
// and play their games meanwhile.
func TestSlowBodiesAreClosed(t *testing.T) {
	// Both ends of 2,000 connections live in this process: make room.
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err == nil && lim.Cur < 5000 {
		if lim.Max < 5000 {
			t.Skipf("needs 5,000 file descriptors; the hard limit is %d", lim.Max)
		}
		old := lim
		lim.Cur = 5000
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
			t.Skipf("cannot raise the descriptor limit: %v", err)
		}
		t.Cleanup(func() { syscall.Setrlimit(syscall.RLIMIT_NOFILE, &old) })
	}
	s := startServe(t, "--read-timeout", "1s", "--max-conns-per-addr", "0") // one address, 2,000 connections
	web := fmt.Sprintf("127.0.0.1:%d", s.httpPort)
	const n = 2000
	conns := make([]net.Conn, 0, n)
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	req := "POST /api/games HTTP/1.1\r\nHost: " + web + "\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"
	for range n {
		c, err := net.Dial("tcp", web)
		if err != nil {
			t.Fatalf("after %d connections: %v", len(conns), err)
		}
		conns = append(conns, c)
		if _, err := io.WriteString(c, req); err != nil {
			t.Fatal(err)
		}
	}
	// Two bots play meanwhile.
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	outs := make([]syncBuffer, 2)
	codes := make([]int, 2)
	for i, p := range []string{"greedy", "first"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i] = run(ctx, []string{"bot", "--server", fmt.Sprintf("127.0.0.1:%d", s.botPort), "--name", "bot-" + p,
				"--token", "token-" + p, "--player", p, "--games", "1"}, strings.NewReader(""), &outs[i], io.Discard)
		}()
	}
	wg.Wait()
	for i := range codes {
		if codes[i] != 0 || !strings.Contains(outs[i].String(), "won 1") && !strings.Contains(outs[i].String(), "lost 1") && !strings.Contains(outs[i].String(), "drew 1") {
			t.Fatalf("bot %d exited %d: %s", i, codes[i], outs[i].String())
		}
	}
	// Every slow connection is closed by the server.
	deadline := time.Now().Add(10 * time.Second)
	closed := 0
	for _, c := range conns {
		c.SetReadDeadline(deadline)
		r := bufio.NewReader(c)
		for {
			if _, err := r.ReadByte(); err != nil {
				if ne, ok := err.(net.Error); ok && ne.Timeout() {
					t.Fatalf("connection %d still open %v after its headers (%d closed)", closed, 10*time.Second, closed)
				}
				closed++
				break
			}
		}
	}
	if closed != n {
		t.Fatalf("%d of %d closed", closed, n)
	}
}

// TestServerSurvivesRunningOutOfDescriptors: a server allowed few file
// descriptors is flooded with bot connections until accept fails (too many
// open files); once they go, it accepts and answers again instead of
// having exited.
func TestServerSurvivesRunningOutOfDescriptors(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("needs sh")
	}
	bin := buildKalah(t)
	dir := t.TempDir()
	httpPort, botPort := freePort(t), freePort(t)
	var stderr syncBuffer
	cmd := exec.Command("sh", "-c", fmt.Sprintf("ulimit -n 64 && exec '%s' serve --data '%s' --addr 127.0.0.1:%d --bot-addr 127.0.0.1:%d --kgp-addr 0",
		bin, filepath.Join(dir, "data"), httpPort, botPort))
	cmd.Stderr = &stderr
	cmd.Env = append(os.Environ(), "KALAH_LOG=warn")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		cmd.Process.Kill()
		<-exited
	}()
	url := fmt.Sprintf("http://127.0.0.1:%d/api/games", httpPort)
	up := func() bool {
		resp, err := http.Get(url)
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}
	for deadline := time.Now().Add(10 * time.Second); !up(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("server did not start: %s", stderr.String())
		}
	}
	var flood []net.Conn
	for range 150 {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", botPort))
		if err != nil {
			break
		}
		flood = append(flood, c)
	}
	for deadline := time.Now().Add(5 * time.Second); !strings.Contains(stderr.String(), "too many open files"); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("accept never failed with 64 descriptors and %d connections:\n%s", len(flood), stderr.String())
		}
	}
	for _, c := range flood {
		c.Close()
	}
	select {
	case err := <-exited:
		exited <- err
		t.Fatalf("the server exited: %v\n%s", err, stderr.String())
	case <-time.After(500 * time.Millisecond):
	}
	for deadline := time.Now().Add(10 * time.Second); !up(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the server no longer answers:\n%s", stderr.String())
		}
	}
	c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", botPort))
	if err != nil {
		t.Fatalf("bot port: %v", err)
	}
	defer c.Close()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if line, err := bufio.NewReader(c).ReadString('\n'); err != nil || !strings.HasPrefix(line, "kalah ") {
		t.Fatalf("bot port greeting %q, %v", line, err)
	}
}

// TestCrossSiteWritesRefused: a page on another site cannot make a
// visitor's browser start games: a form or text/plain body is refused (415),
// and so is a JSON body with a foreign Origin (403); the page's own
// requests and clients without Origin go through.
func TestCrossSiteWritesRefused(t *testing.T) {
	s := startServe(t)
	base := fmt.Sprintf("http://127.0.0.1:%d", s.httpPort)
	// The server's part of the one API (games) and the page's (analysis).
	bodies := map[string]string{
		"/api/games":   `{"rules":{"houses":6,"seeds":4},"south":"human","north":"greedy"}`,
		"/api/analyze": `{"rules":{"houses":6,"seeds":4},"position":"4,4,4,4,4,4/4,4,4,4,4,4 0-0 S","time_ms":10}`,
	}
	post := func(path, ctype, origin string) int {
		req, _ := http.NewRequest("POST", base+path, strings.NewReader(bodies[path]))
		req.Header.Set("Content-Type", ctype)
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, path := range []string{"/api/games", "/api/analyze"} {
		for _, tc := range []struct {
			ctype, origin string
			want          int
		}{
			{"text/plain", "https://evil.example", http.StatusForbidden},
			{"text/plain", "", http.StatusUnsupportedMediaType},
			{"application/x-www-form-urlencoded", "", http.StatusUnsupportedMediaType},
			{"application/json", "https://evil.example", http.StatusForbidden},
			{"application/json", "http://127.0.0.1:1", http.StatusForbidden},
		} {
			if got := post(path, tc.ctype, tc.origin); got != tc.want {
				t.Errorf("POST %s as %s from %q: %d, want %d", path, tc.ctype, tc.origin, got, tc.want)
			}
		}
		if got := post(path, "application/json", base); got >= 300 {
			t.Errorf("POST %s from the server's own page: %d", path, got)
		}
	}
}

// TestEngineLimitsFromTheNetwork: a stranger cannot ask the server for a
// 16 GiB table and 64 threads.
func TestEngineLimitsFromTheNetwork(t *testing.T) {
	s := startServe(t, "--max-table-mb", "128", "--max-threads", "2")
	base := fmt.Sprintf("http://127.0.0.1:%d", s.httpPort)
	for _, tc := range []struct{ path, north, want string }{
		{"/api/games", "engine:tt=16384:threads=64", "tt=16384: at most 128 MiB"},
		{"/api/games", "engine:threads=64", "threads=64: at most 2"},
	} {
		body := `{"rules":{"houses":6,"seeds":4},"south":"human","north":"` + tc.north + `"}`
		resp, err := http.Post(base+tc.path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode < 400 || resp.StatusCode >= 500 || !strings.Contains(string(b), tc.want) {
			t.Errorf("POST %s with %s: %d %s, want a refusal saying %q", tc.path, tc.north, resp.StatusCode, b, tc.want)
		}
	}
}

// TestStrangersCannotStartComputerGames: without the server's admin token
// no one can pull a waiting bot into a game (POST /api/arranged) or start
// a game between two computers; a guest may still play the computer, and
// the token holder (kalah tournament --server) may arrange games.
func TestStrangersCannotStartComputerGames(t *testing.T) {
	s := startServe(t)
	base := fmt.Sprintf("http://127.0.0.1:%d", s.httpPort)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	bots := s.startBots(ctx, nil, [2]string{"alice", "greedy"})
	defer func() { cancel(); bots.wg.Wait() }()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		var waiting []string
		getJSON(t, base+"/api/bots", &waiting)
		if len(waiting) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("alice never waited")
		}
	}
	post := func(path, body, token string) (int, string) {
		req, _ := http.NewRequest("POST", base+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	arranged := `{"rules":{"houses":6,"seeds":4},"south":"bot:alice","north":"greedy","per_move_ms":1000}`
	if code, body := post("/api/arranged", arranged, ""); code != http.StatusUnauthorized || !strings.Contains(body, "admin token") {
		t.Errorf("a stranger's arranged game: %d %s", code, body)
	}
	if code, body := post("/api/arranged", arranged, "wrong-token"); code != http.StatusUnauthorized {
		t.Errorf("a wrong token: %d %s", code, body)
	}
	if code, body := post("/api/games", `{"rules":{"houses":6,"seeds":4},"south":"greedy","north":"random"}`, ""); code != http.StatusUnauthorized {
		t.Errorf("a stranger's game between computers: %d %s", code, body)
	}
	var games []json.RawMessage
	getJSON(t, base+"/api/games", &games)
	if len(games) != 0 {
		t.Fatalf("games started by a stranger: %s", games)
	}
	if code, body := post("/api/games", `{"rules":{"houses":6,"seeds":4},"south":"human","north":"greedy"}`, ""); code != http.StatusCreated {
		t.Errorf("a guest against the computer: %d %s", code, body)
	}
	token, err := os.ReadFile(filepath.Join("kalah-data", "admin.token"))
	if err != nil {
		t.Fatal(err)
	}
	if code, body := post("/api/arranged", arranged, strings.TrimSpace(string(token))); code != http.StatusOK {
		t.Errorf("the token holder's arranged game: %d %s", code, body)
	}
}
