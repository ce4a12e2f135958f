package kgp

import (
	"context"
	"io"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"kalah"
	"kalah/player"
)

// FuzzSession feeds arbitrary client input to a server session that asks
// for one move, and checks that the session never panics and always ends
// with a move, a forfeit-worthy error or the connection closed.
func FuzzSession(f *testing.F) {
	f.Add("mode freeplay\r\n@1 move 3\r\n@1 yield\r\n")
	f.Add("set info:name \"x\"\r\nmode freeplay\r\n@1 move 99\r\n@1 yield\r\ngoodbye\r\n")
	f.Add("mode freeplay\r\n\x00\xff\r\n\"\\\r\nmode again\r\n@1 yield\r\n")
	f.Add("mode freeplay\r\n" + strings.Repeat("9", MaxLine+10) + "\r\n")
	f.Fuzz(func(t *testing.T, input string) {
		srvConn, cliConn := net.Pipe()
		moved := make(chan error, 1)
		s := &Server{Logger: slog.New(slog.DiscardHandler), HandshakeTimeout: 20 * time.Millisecond,
			MoveTime: 10 * time.Millisecond, MaxErrors: 4,
			Join: func(ctx context.Context, c *Client) {
				g, _ := kalah.NewGame(kalah.Standard())
				_, err := c.Move(ctx, g, player.Clock{})
				moved <- err
			}}
		done := make(chan struct{})
		go func() {
			defer close(done)
			s.serve(newStreamTransport(srvConn))
		}()
		go io.Copy(io.Discard, cliConn)
		cliConn.SetWriteDeadline(time.Now().Add(time.Second))
		io.WriteString(cliConn, input)
		select {
		case <-done:
		case <-time.After(3 * time.Second):
			t.Fatal("session did not end")
		}
		cliConn.Close()
		select {
		case <-moved:
		default:
		}
	})
}
