// Package remote holds players reached through kalah's line protocol
// (docs/PROTOCOL.md): Process, an external bot program spoken to on its
// standard input and output (the "exec:CMD" player), and Client, which puts
// any player online on a kalah server ("kalah bot", "kalah join").
package remote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"

	"kalah"
	"kalah/internal/proc"
	"kalah/player"
	"kalah/protocol/line"
)

func init() {
	player.Register(player.Info{
		Name:    "exec",
		Usage:   "exec:CMD",
		Summary: "an external bot program speaking kalah's line protocol on stdin/stdout (docs/PROTOCOL.md)",
		Source:  "kalah's own protocol",
		Raw:     true,
		New: func(s player.Spec, o player.Options) (player.Player, error) {
			return &Process{Command: s.Raw, Stderr: o.Stderr}, nil
		},
	})
}

// Process is a bot program run as a child process and spoken to in the
// line protocol's stdio form: no greeting answer and no login; it is sent
// "kalah 1", "start", "go", "moved", "state" and "end" lines and answers
// each "go" with "move N". The program starts at the first move or
// observation and is stopped when the game ends or Close is called.
//
// A program that exits or whose output closes has crashed
// (player.ErrCrashed); a line it writes that is not a move, "pong", "ping",
// "info ..." or a "#" comment is a protocol error (player.ErrProtocol).
type Process struct {
	// Command is run by the shell (sh -c, or cmd /c on Windows).
	Command string
	// Stderr receives the program's standard error; nil keeps the last
	// 2 KiB for error messages only.
	Stderr io.Writer
	// Dir is the working directory; empty for the current one.
	Dir string

	mu      sync.Mutex
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	lines   chan string
	readErr error
	dead    chan struct{} // closed when stdout ends
	exited  chan struct{} // closed when the process has exited and been reaped
	stdout  *os.File
	quit    chan struct{} // closed when the process is stopped
	tail    tailBuffer
	side    kalah.Side
	seen    int // moves already reported
	started bool
	closed  bool
}

const maxStderrTail = 2048

type tailBuffer struct {
	mu sync.Mutex
	b  []byte
	w  io.Writer
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.w != nil {
		t.w.Write(p)
	}
	t.b = append(t.b, p...)
	if len(t.b) > maxStderrTail {
		t.b = t.b[len(t.b)-maxStderrTail:]
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(bytes.ToValidUTF8(t.b, nil)))
}

// start runs the program and sends the greeting and "start".
func (p *Process) start(g *kalah.Game, side kalah.Side) error {
	if p.closed {
		return fmt.Errorf("%w: process closed", player.ErrCrashed)
	}
	if p.started {
		return nil
	}
	p.started = true
	var cmd *exec.Cmd
	if runtime.GOOS == "windows" {
		cmd = exec.Command("cmd", "/c", p.Command)
	} else {
		cmd = exec.Command("sh", "-c", p.Command)
	}
	cmd.Dir = p.Dir
	proc.Group(cmd)
	// A program's children may hold its output open after it is killed;
	// stop waiting for them after a moment.
	cmd.WaitDelay = 500 * time.Millisecond
	p.tail.w = p.Stderr
	cmd.Stderr = &p.tail
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	// Our own pipe for the output, so that reaping the process (which may
	// exit at any time) never closes it under the reader.
	outR, outW, err := os.Pipe()
	if err != nil {
		return err
	}
	cmd.Stdout = outW
	err = cmd.Start()
	outW.Close()
	if err != nil {
		outR.Close()
		return fmt.Errorf("%w: cannot start %q: %v", player.ErrCrashed, p.Command, err)
	}
	p.cmd, p.stdin, p.stdout = cmd, stdin, outR
	p.lines = make(chan string, 16)
	p.dead = make(chan struct{})
	p.quit = make(chan struct{})
	p.exited = make(chan struct{})
	quit, exited := p.quit, p.exited
	go func() {
		cmd.Wait()
		close(exited)
	}()
	go func() {
		r := line.NewReader(outR, line.MaxLine)
		for {
			s, err := r.ReadLine()
			if err != nil {
				p.mu.Lock()
				p.readErr = err
				p.mu.Unlock()
				close(p.dead)
				return
			}
			select {
			case p.lines <- s:
			case <-quit:
				return
			}
		}
	}()
	p.side = side
	p.seen = g.Len()
	return p.send(line.Greeting(),
		line.Start{Game: "-", Side: side, Opponent: g.Player(side.Other()), Rules: g.Rules()}.Msg(),
		line.State(g.Position()))
}

// send writes messages to the program, stopping at the first that fails:
// that failure is the reason, where a program that died at once would
// otherwise be reported once a message.
func (p *Process) send(ms ...line.Msg) error {
	for _, m := range ms {
		if _, err := io.WriteString(p.stdin, m.String()+"\n"); err != nil {
			return p.crashed(err)
		}
	}
	return nil
}

// crashed describes the program's failure with its exit status, if it
// has exited, and the last lines of its stderr.
func (p *Process) crashed(err error) error {
	msg := err.Error()
	closed := errors.Is(err, syscall.EPIPE) || errors.Is(err, os.ErrClosed)
	if closed {
		msg = "the program closed its input"
	}
	if p.exited != nil {
		select {
		case <-p.exited:
		case <-time.After(500 * time.Millisecond):
		}
		if st := p.cmd.ProcessState; st != nil {
			if closed {
				msg = "the program exited"
			}
			msg += " (" + st.String() + ")"
		}
	}
	if t := lastLines(p.tail.String(), 5); t != "" {
		msg += "; stderr: " + t
	}
	return fmt.Errorf("%w: %s", player.ErrCrashed, msg)
}

// lastLines returns the last n lines of s, joined by " | ".
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}

// catchUp reports the moves made since the program last heard.
func (p *Process) catchUp(g *kalah.Game) error {
	moves := g.Moves()
	if p.seen > len(moves) {
		p.seen = 0
	}
	for _, m := range moves[p.seen:] {
		if err := p.send(line.Moved(m)); err != nil {
			return err
		}
	}
	if p.seen == len(moves) {
		return nil
	}
	p.seen = len(moves)
	return p.send(line.State(g.Position()))
}

// Move sends "go" and waits for the program's move.
func (p *Process) Move(ctx context.Context, g *kalah.Game, c player.Clock) (kalah.Move, error) {
	p.mu.Lock()
	err := p.start(g, g.ToMove())
	if err == nil {
		err = p.catchUp(g)
	}
	if err == nil {
		err = p.send(line.Turn{PerMove: c.PerMove, Remaining: c.Remaining, Position: g.Position()}.Msg())
	}
	lines, dead := p.lines, p.dead
	p.mu.Unlock()
	if err != nil {
		return kalah.NoMove, err
	}
	for {
		select {
		case s := <-lines:
			m, err := line.Parse(s)
			if err != nil {
				if strings.TrimSpace(s) == "" {
					continue
				}
				return kalah.NoMove, fmt.Errorf("%w: %q: %v", player.ErrProtocol, s, err)
			}
			switch m.Cmd {
			case "move":
				mv, err := line.ParseMove(m)
				if err != nil {
					return kalah.NoMove, fmt.Errorf("%w: %q: %v", player.ErrProtocol, s, err)
				}
				return mv, nil
			case "ping":
				p.mu.Lock()
				p.send(line.Msg{Cmd: "pong"})
				p.mu.Unlock()
			case "pong", "info":
			default:
				if strings.HasPrefix(m.Cmd, "#") {
					continue
				}
				return kalah.NoMove, fmt.Errorf("%w: unexpected line %q", player.ErrProtocol, s)
			}
		case <-dead:
			p.mu.Lock()
			err := p.readErr
			p.mu.Unlock()
			if errors.Is(err, line.ErrTooLong) {
				return kalah.NoMove, fmt.Errorf("%w: %v", player.ErrProtocol, err)
			}
			return kalah.NoMove, p.crashed(errors.New("the program's output ended"))
		case <-ctx.Done():
			return kalah.NoMove, ctx.Err()
		}
	}
}

// Observe reports the moves since the last call and, once the game is
// over, sends "end" and stops the program.
func (p *Process) Observe(ctx context.Context, g *kalah.Game) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.started {
		if g.Over() {
			return nil
		}
		// The first thing this player sees is the opponent's move: it plays
		// the side that did not just move.
		side := g.ToMove().Other()
		if last, ok := g.Last(); ok {
			side = last.Side.Other()
		}
		if err := p.start(g, side); err != nil {
			return err
		}
	}
	if p.closed {
		return nil
	}
	err := p.catchUp(g)
	if g.Over() {
		p.send(line.EndOf(g).Msg())
		p.stop(2 * time.Second)
		return nil
	}
	return err
}

// Close stops the program if it is running.
func (p *Process) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stop(time.Second)
	return nil
}

// stop closes the program's input, gives it wait to exit and then kills
// it, with whatever it started.
func (p *Process) stop(wait time.Duration) {
	if p.closed {
		return
	}
	p.closed = true
	if p.cmd == nil {
		return
	}
	close(p.quit)
	p.stdin.Close()
	select {
	case <-p.exited:
	case <-time.After(wait):
	}
	proc.Kill(p.cmd)
	<-p.exited
	p.stdout.Close()
}
