package bots

import (
	"bufio"
	"fmt"
	"io"
	"log/slog"
	"net"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"kalah/internal/netx"
	"kalah/protocol/line"
)

// wirePair returns a Wire over one end of a loopback TCP connection,
// accepted as the server accepts its bots (netx.Guard), and the other end,
// as a client would hold it.
func wirePair(t *testing.T, cfg WireConfig) (*Wire, net.Conn, *atomic.Int32) {
	t.Helper()
	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln := netx.Guard(tcp, 10, slog.New(slog.DiscardHandler), "bots")
	defer ln.Close()
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	server, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close(); server.Close() })
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	w := NewWire(line.NewTCP(server, 0), "127.0.0.1", cfg)
	var finished atomic.Int32
	w.Start(func() { finished.Add(1) })
	return w, client, &finished
}

// TestWireWritesFromTheSender: a connection's lines go out from the
// goroutine that sends them, in order, lines queued together in one write,
// with no goroutine of the connection's left behind.
func TestWireWritesFromTheSender(t *testing.T) {
	var waits atomic.Uint64
	w, client, _ := wirePair(t, WireConfig{IdleTimeout: time.Hour, WriteTimeout: time.Second, Waits: &waits})
	defer func() {
		if n := waits.Load(); n != 0 {
			t.Errorf("%d writes waited for a client that reads", n)
		}
	}()
	before := runtime.NumGoroutine()
	for i := range 100 {
		w.SendMsg(line.Msg{Cmd: "n", Args: []string{fmt.Sprint(i)}})
	}
	w.Queue(line.Msg{Cmd: "moved", Args: []string{"S", "3"}})
	w.Queue(line.Msg{Cmd: "go", Args: []string{"1"}})
	if after := runtime.NumGoroutine(); after > before {
		t.Errorf("%d goroutines after sending, %d before: a writer was started", after, before)
	}
	w.Flush()
	r := bufio.NewReader(client)
	client.SetReadDeadline(time.Now().Add(5 * time.Second))
	for i := range 100 {
		s, err := r.ReadString('\n')
		if err != nil || s != fmt.Sprintf("n %d\n", i) {
			t.Fatalf("line %d: %q, %v", i, s, err)
		}
	}
	for _, want := range []string{"moved S 3\n", "go 1\n"} {
		if s, err := r.ReadString('\n'); err != nil || s != want {
			t.Fatalf("read %q, %v; want %q", s, err, want)
		}
	}
}

// TestWireClientThatFallsBehind: a client that stops reading fills its
// socket; the server's sender does not wait for it (a goroutine of the
// connection's does), the lines come in order once it reads again, and a
// client that never reads is dropped once maxBacklog lines behind.
func TestWireClientThatFallsBehind(t *testing.T) {
	w, client, finished := wirePair(t, WireConfig{IdleTimeout: time.Hour, WriteTimeout: 10 * time.Second})
	long := strings.Repeat("x", 3000)
	start := time.Now()
	sent := 0
	// Fill the socket's buffers, and some: each SendMsg returns at once.
	for ; sent < maxBacklog/2; sent++ {
		w.SendMsg(line.Msg{Cmd: "n", Args: []string{fmt.Sprint(sent), long}})
	}
	if d := time.Since(start); d > time.Second {
		t.Fatalf("sending to a client that does not read took %v", d)
	}
	r := bufio.NewReader(client)
	client.SetReadDeadline(time.Now().Add(10 * time.Second))
	for i := range sent {
		s, err := r.ReadString('\n')
		if err != nil || !strings.HasPrefix(s, fmt.Sprintf("n %d ", i)) {
			t.Fatalf("line %d: %.20q, %v", i, s, err)
		}
	}
	// Caught up: the pen is put down, and a line goes out from the sender.
	w.SendMsg(line.Msg{Cmd: "again"})
	if s, err := r.ReadString('\n'); err != nil || s != "again\n" {
		t.Fatalf("read %q, %v; want again", s, err)
	}
	// Now never read: past maxBacklog lines behind, the client is dropped.
	for i := 0; i < 100*maxBacklog; i++ {
		w.SendMsg(line.Msg{Cmd: "n", Args: []string{long}})
		if finishedOrDone(w) {
			break
		}
	}
	select {
	case <-w.Done():
	default:
		t.Fatal("a client that reads nothing was not dropped")
	}
	deadline := time.Now().Add(15 * time.Second)
	for finished.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := finished.Load(); n != 1 {
		t.Fatalf("transport closed %d times, want 1", n)
	}
	client.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.Copy(io.Discard, client); err != nil {
		t.Fatalf("the dropped client's connection did not end: %v", err)
	}
}

func finishedOrDone(w *Wire) bool {
	select {
	case <-w.Done():
		return true
	default:
		return false
	}
}

// TestWireCloseSendsTheLastLine: Close writes what is queued (a last
// error) and closes the transport, once.
func TestWireCloseSendsTheLastLine(t *testing.T) {
	w, client, finished := wirePair(t, WireConfig{IdleTimeout: time.Hour, WriteTimeout: time.Second})
	w.Queue(line.Errorf(line.CodeShutdown, "the server is stopping"))
	w.Close()
	w.Close()
	w.SendMsg(line.Msg{Cmd: "after"}) // dropped: closing
	client.SetReadDeadline(time.Now().Add(5 * time.Second))
	b, err := io.ReadAll(client)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(b); !strings.HasPrefix(got, "error") || !strings.Contains(got, "the server is stopping") || strings.Contains(got, "after") {
		t.Fatalf("read %q, want the last error alone", got)
	}
	// The client sees the end as the transport closes; finished is
	// called right after.
	for deadline := time.Now().Add(time.Second); finished.Load() == 0 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(10 * time.Millisecond)
	if n := finished.Load(); n != 1 {
		t.Fatalf("transport closed %d times, want 1", n)
	}
}

// TestWirePings: an idle connection is pinged every IdleTimeout/4, by a
// timer, not a goroutine of its own.
func TestWirePings(t *testing.T) {
	w, client, _ := wirePair(t, WireConfig{IdleTimeout: 200 * time.Millisecond, WriteTimeout: time.Second})
	defer w.Close()
	r := bufio.NewReader(client)
	client.SetReadDeadline(time.Now().Add(5 * time.Second))
	for range 2 {
		if s, err := r.ReadString('\n'); err != nil || s != "ping\n" {
			t.Fatalf("read %q, %v; want ping", s, err)
		}
	}
}
