package dist

import (
	"cmp"
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"kalah/internal/cores"
)

// EmbeddedConfig configures a coordinator with its own NATS server.
type EmbeddedConfig struct {
	Listen  string // see ServerConfig
	Token   string
	AckWait time.Duration
	// Slots is the number of games played at once inside this process:
	// zero means one a core, negative none (remote workers play them all).
	Slots int
	Name  string // the in-process worker's name
	Log   *slog.Logger
}

// Embedded is a NATS server, an executor publishing to it and, unless
// turned off, workers inside the same process: the default way a
// tournament runs.
type Embedded struct {
	Server   *Server
	Executor *Executor
	conns    []*nats.Conn
	cancel   context.CancelFunc
	wg       sync.WaitGroup
}

// StartEmbedded starts the server, connects the executor and starts the
// in-process workers.
func StartEmbedded(ctx context.Context, cfg EmbeddedConfig) (*Embedded, error) {
	srv, err := Serve(ServerConfig{Listen: cfg.Listen, Token: cfg.Token})
	if err != nil {
		return nil, err
	}
	e := &Embedded{Server: srv}
	nc, err := srv.Connect(cfg.Token)
	if err != nil {
		srv.Shutdown()
		return nil, err
	}
	e.conns = append(e.conns, nc)
	e.Executor = &Executor{Conn: nc, AckWait: cfg.AckWait, Log: cfg.Log}
	// Create the streams now so workers find them at once.
	js, err := jetstream.New(nc)
	if err == nil {
		_, err = setup(ctx, js, cmp.Or(cfg.AckWait, DefaultAckWait))
	}
	if err != nil {
		nc.Close()
		srv.Shutdown()
		return nil, err
	}
	wctx, cancel := context.WithCancel(ctx)
	e.cancel = cancel
	slots := cfg.Slots
	if slots == 0 {
		slots = cores.N()
	}
	if slots > 0 {
		wc, err := srv.Connect(cfg.Token)
		if err != nil {
			e.Close()
			return nil, err
		}
		e.conns = append(e.conns, wc)
		w := &Worker{Conn: wc, Name: cfg.Name, Slots: slots}
		e.wg.Add(1)
		go func() {
			defer e.wg.Done()
			w.Run(wctx)
		}()
	}
	return e, nil
}

// Close stops the in-process workers (their unfinished games go back to
// the queue), the connections and the server.
func (e *Embedded) Close() {
	e.cancel()
	e.wg.Wait()
	for _, c := range e.conns {
		c.Close()
	}
	e.Server.Shutdown()
}
