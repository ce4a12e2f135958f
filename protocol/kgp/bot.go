package kgp

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"

	"kalah"
	"kalah/player"
)

// Bot connects one of our players to a KGP server as a freeplay client:
// it answers each state with a quick fallback move, then the player's
// choice, then yield.
type Bot struct {
	// Name, Authors and Description are sent with set info:... .
	Name, Authors, Description string
	// Player chooses the moves.
	Player player.Player
	// Rules interprets the boards the server sends; the houses come from
	// each board. The zero value means the kgp preset.
	Rules kalah.Rules
	// Think is the time the player is given for a state (Clock.PerMove).
	// Zero gives the server's time:clock as its budget if the server sent
	// one, or no limit: the server's stop then interrupts the player.
	Think time.Duration
	// Token, if set, is sent as auth:token (spec 043): the server keeps the
	// bot's identity across connections by it.
	Token string
	// Fallback is how long the bot waits for its player before it sends a
	// quick first legal move as a safety net (default 100ms). Waiting a
	// moment means the server has registered the state before any answer
	// to it arrives.
	Fallback time.Duration
	// OnResult, if not nil, is called at the end of each game the server
	// reports (set game:result, then game:termination), with the result
	// from the bot's side (win, loss, draw) and how the game ended.
	OnResult func(result, termination string)
	// Logger receives protocol events; nil means slog.Default().
	Logger *slog.Logger
}

// ErrBadGreeting is returned by Bot.Play when the server does not speak a
// version of KGP the bot understands.
var ErrBadGreeting = errors.New("kgp: server does not speak kgp 1.x")

func (b *Bot) logger() *slog.Logger {
	if b.Logger != nil {
		return b.Logger
	}
	return slog.Default()
}

type lineResult struct {
	line string
	err  error
}

// Play speaks KGP over conn until the server says goodbye (nil), the
// connection fails or ctx ends. It closes conn before returning.
func (b *Bot) Play(ctx context.Context, conn io.ReadWriteCloser) error {
	var wmu sync.Mutex
	send := func(c Command) error {
		wmu.Lock()
		defer wmu.Unlock()
		_, err := io.WriteString(conn, c.String()+"\r\n")
		return err
	}
	lines := make(chan lineResult)
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		r := bufio.NewReaderSize(conn, MaxLine)
		for {
			s, err := r.ReadString('\n')
			if len(s) > MaxLine {
				err = fmt.Errorf("%w: line of %d characters from the server", ErrSyntax, len(s))
			}
			if s != "" && err == nil || s != "" && errors.Is(err, io.EOF) {
				select {
				case lines <- lineResult{line: trimEOL(s)}:
				case <-quit:
					return
				}
			}
			if err != nil {
				select {
				case lines <- lineResult{err: err}:
				case <-quit:
				}
				return
			}
		}
	}()

	var think context.CancelFunc
	var thinkID uint64
	stopThinking := func() {
		if think != nil {
			think()
			think = nil
		}
	}
	defer func() {
		stopThinking()
		close(quit)
		conn.Close()
		wg.Wait()
	}()

	var remaining time.Duration
	var result string
	greeted := false
	for {
		var lr lineResult
		select {
		case <-ctx.Done():
			send(Command{Name: "goodbye"})
			return ctx.Err()
		case lr = <-lines:
		}
		if lr.err != nil {
			if errors.Is(lr.err, io.EOF) {
				return fmt.Errorf("kgp: server closed the connection: %w", io.ErrUnexpectedEOF)
			}
			return lr.err
		}
		cmd, err := Parse(lr.line)
		if err != nil {
			b.logger().Debug("kgp bot: bad line from server", "line", lr.line, "err", err)
			continue
		}
		switch cmd.Name {
		case "kgp":
			if len(cmd.Args) < 1 || cmd.Args[0].Kind != Integer || cmd.Args[0].Int != 1 {
				return fmt.Errorf("%w: %q", ErrBadGreeting, lr.line)
			}
			greeted = true
			for _, kv := range [][2]string{{"info:name", b.Name}, {"info:authors", b.Authors}, {"info:description", b.Description}, {"auth:token", b.Token}} {
				if kv[1] != "" {
					send(Command{Name: "set", Args: []Arg{WordArg(kv[0]), Str(kv[1])}})
				}
			}
			if err := send(Command{Name: "mode", Args: []Arg{WordArg("freeplay")}}); err != nil {
				return err
			}
		case "state":
			if !greeted || len(cmd.Args) != 1 || cmd.Args[0].Kind != Board {
				continue
			}
			pos, err := kalah.ParseKGPBoard(cmd.Args[0].Text)
			if err != nil {
				send(Command{Ref: cmd.ID, Name: "error", Args: []Arg{Str(err.Error())}})
				continue
			}
			stopThinking()
			tctx, cancel := context.WithCancel(ctx)
			think = cancel
			thinkID = cmd.ID
			clock := player.Clock{PerMove: b.Think}
			if b.Think == 0 {
				clock.Remaining = remaining
			}
			wg.Add(1)
			go func(id uint64) {
				defer wg.Done()
				b.think(tctx, id, pos, clock, send)
			}(cmd.ID)
		case "stop":
			if cmd.Ref == thinkID {
				stopThinking()
			}
		case "ping":
			send(Command{Ref: cmd.ID, Name: "pong"})
		case "set":
			if len(cmd.Args) != 2 {
				continue
			}
			switch cmd.Args[0].String() {
			case "time:clock":
				if cmd.Args[1].Kind == Integer && cmd.Args[1].Int > 0 {
					remaining = time.Duration(cmd.Args[1].Int) * time.Second
				}
			case "game:result":
				result = cmd.Args[1].String()
			case "game:termination":
				if b.OnResult != nil {
					b.OnResult(result, cmd.Args[1].String())
				}
				result = ""
			}
		case "error":
			// An answer that reached the server before it registered the
			// state (the reference server's race) or after its stop is
			// harmless: the server decides without it.
			if len(cmd.Args) > 0 && harmless(cmd.Args[0].String()) {
				b.logger().Debug("kgp bot: server ignored an answer", "line", lr.line)
				continue
			}
			b.logger().Info("kgp bot: server reports an error", "line", lr.line)
		case "goodbye":
			return nil
		}
	}
}

// think answers one state: a fallback move at once, the player's move when
// it has one, then yield.
func (b *Bot) think(ctx context.Context, id uint64, pos kalah.Position, clock player.Clock, send func(Command) error) {
	r := b.Rules
	if r.Houses == 0 {
		r, _ = kalah.PresetRules("kgp")
	}
	r.Houses = pos.Houses()
	r.Pie = false
	r.First = kalah.South
	g, err := kalah.NewGameFrom(r, pos)
	if err != nil || g.Over() {
		send(Command{Ref: id, Name: "yield"})
		return
	}
	legal := g.Legal()
	if len(legal) == 1 || b.Player == nil {
		send(Command{Ref: id, Name: "move", Args: []Arg{Int(int64(legal[0]))}})
		send(Command{Ref: id, Name: "yield"})
		return
	}
	// The player thinks; if it takes longer than a moment, a first legal
	// move goes out as a safety net, to be replaced by the player's.
	var mu sync.Mutex
	answered := false
	fallback := time.AfterFunc(b.fallback(), func() {
		mu.Lock()
		defer mu.Unlock()
		if !answered {
			send(Command{Ref: id, Name: "move", Args: []Arg{Int(int64(legal[0]))}})
		}
	})
	m, err := b.Player.Move(ctx, g, clock)
	mu.Lock()
	answered = true
	mu.Unlock()
	fallback.Stop()
	if err == nil && m != kalah.Swap && g.IsLegal(m) {
		send(Command{Ref: id, Name: "move", Args: []Arg{Int(int64(m))}})
	} else if err != nil && ctx.Err() == nil {
		b.logger().Warn("kgp bot: player failed", "err", err)
	}
	if ctx.Err() == nil {
		send(Command{Ref: id, Name: "yield"})
	}
}

func (b *Bot) fallback() time.Duration {
	if b.Fallback > 0 {
		return b.Fallback
	}
	return 100 * time.Millisecond
}

// harmless reports whether a server's error only says that an answer came
// for a state it no longer (or not yet) holds.
func harmless(msg string) bool {
	msg = strings.ToLower(msg)
	return strings.Contains(msg, "no state associated") || strings.Contains(msg, "after stop")
}
