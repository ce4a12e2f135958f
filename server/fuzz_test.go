package server

import (
	"bufio"
	"context"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"kalah/internal/store"
	"kalah/protocol/line"
)

// FuzzConn feeds arbitrary bytes to a server connection: whatever comes,
// the server answers or drops the connection and keeps serving others.
func FuzzConn(f *testing.F) {
	for _, s := range []string{
		"login a b\nqueue\nmove 3\n",
		"ping\npong\ngames\nwatch 1\nunwatch 1\nquit\n",
		"kalah 2\n",
		"login a b\nchallenge a\naccept 1\ndecline 2\nleave\nresign\n",
		"\x00\xff\r\n\r\nmove swap\n",
		strings.Repeat("z", 600),
	} {
		f.Add([]byte(s))
	}
	st, err := store.Open(":memory:")
	if err != nil {
		f.Fatal(err)
	}
	srv, err := New(Config{Store: st, MaxLine: 256, HandshakeTimeout: 200 * time.Millisecond, LoginRate: 1e6, LoginBurst: 1e6})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
		st.Close()
	})
	f.Fuzz(func(t *testing.T, data []byte) {
		cl, sv := net.Pipe()
		srv.startConn(line.NewTCP(sv, 256))
		drained := make(chan struct{})
		go func() {
			io.Copy(io.Discard, cl)
			close(drained)
		}()
		cl.SetWriteDeadline(time.Now().Add(2 * time.Second))
		cl.Write(data)
		cl.Close()
		<-drained
		// The server still serves a newcomer.
		cl, sv = net.Pipe()
		defer cl.Close()
		srv.startConn(line.NewTCP(sv, 256))
		cl.SetDeadline(time.Now().Add(5 * time.Second))
		r := bufio.NewReader(cl)
		if s, err := r.ReadString('\n'); err != nil || s != "kalah 1\n" {
			t.Fatalf("greeting %q, %v", s, err)
		}
		cl.Write([]byte("ping\n"))
		if s, err := r.ReadString('\n'); err != nil || s != "pong\n" {
			t.Fatalf("ping answered %q, %v", s, err)
		}
	})
}
