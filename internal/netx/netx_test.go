package netx

import (
	"errors"
	"log/slog"
	"net"
	"os"
	"syscall"
	"testing"
	"time"
)

// flaky fails its first accepts as a process out of descriptors does.
type flaky struct {
	net.Listener
	fails int
}

func (f *flaky) Accept() (net.Conn, error) {
	if f.fails > 0 {
		f.fails--
		return nil, &net.OpError{Op: "accept", Net: "tcp", Err: os.NewSyscallError("accept4", syscall.EMFILE)}
	}
	return f.Listener.Accept()
}

func TestGuardSurvivesAcceptErrors(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	g := Guard(&flaky{Listener: l, fails: 3}, 2, slog.New(slog.DiscardHandler), "test")
	defer g.Close()
	go func() {
		c, err := net.Dial("tcp", l.Addr().String())
		if err == nil {
			defer c.Close()
			time.Sleep(time.Second)
		}
	}()
	c, err := g.Accept()
	if err != nil {
		t.Fatalf("accept gave up after errors: %v", err)
	}
	c.Close()
}

func TestGuardCapsConnections(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	g := Guard(l, 1, nil, "test")
	for range 2 {
		c, err := net.Dial("tcp", l.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
	}
	first, err := g.Accept()
	if err != nil {
		t.Fatal(err)
	}
	second := make(chan net.Conn, 1)
	go func() {
		c, err := g.Accept()
		if err == nil {
			second <- c
		}
		close(second)
	}()
	select {
	case <-second:
		t.Fatal("a second connection was accepted over the cap of 1")
	case <-time.After(100 * time.Millisecond):
	}
	first.Close() // frees the place
	select {
	case c, ok := <-second:
		if !ok {
			t.Fatal("accept failed after a place was freed")
		}
		c.Close()
	case <-time.After(2 * time.Second):
		t.Fatal("the freed place was not taken")
	}
	g.Close()
	if _, err := g.Accept(); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("accept after close: %v", err)
	}
}
