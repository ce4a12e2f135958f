// Package mkp runs agents written for the Manchester COMP34120 Kalah game
// engine as players: the "mk:CMD" player starts the agent as a process and
// speaks the engine's protocol to it on standard input and output, byte for
// byte, so existing agents run unchanged.
//
// The engine's messages, as the agent sees them (lines end in a bare LF,
// case-sensitive, no spaces):
//
//	START;South            or START;North, once at the start
//	CHANGE;3;<state>;OPP   after every move, the agent's own included
//	CHANGE;SWAP;<state>;YOU
//	END                    at the end, also after a forfeit
//
// and the agent answers each YOU with "MOVE;<n>" or, as North's first
// reply, "SWAP". Anything else is a protocol error and loses the game. See
// docs/protocols/manchester.md.
package mkp

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"kalah"
	"kalah/internal/proc"
	"kalah/player"
)

func init() {
	player.Register(player.Info{
		Name:    "mk",
		Usage:   "mk:CMD",
		Summary: "an agent for the Manchester COMP34120 Kalah engine, run by the shell and spoken to in that engine's protocol (docs/protocols/manchester.md)",
		Source:  "the Manchester COMP34120 game engine protocol",
		Raw:     true,
		New: func(s player.Spec, o player.Options) (player.Player, error) {
			if o.Rules.First != kalah.South {
				return nil, fmt.Errorf("the Manchester protocol has South move first; these rules start with %s", o.Rules.First)
			}
			// The process starts with the game (Start, or the first Move
			// or Observe), not here: a spec checked and dropped leaves none.
			return &Agent{Command: s.Raw, Stderr: o.Stderr}, nil
		},
	})
}

// MaxLine is the longest reply an agent may write, line end included.
const MaxLine = 64

// Agent is a Manchester-protocol agent run as a child process. It is a
// player.Player and a player.Observer, and must be closed. One process
// plays one game; a new process is started if the Agent is asked about
// another game. The agent learns its side at its first move (START goes out
// then, with the moves it missed), since nothing tells a player its seat
// earlier.
type Agent struct {
	// Command is run by the shell (sh -c; cmd /c on Windows).
	Command string
	// Dir is the working directory; empty for the current one.
	Dir string
	// Stderr receives the agent's standard error; nil sends it line by line
	// to Logger at debug level.
	Stderr io.Writer
	// Logger receives events; nil means slog.Default().
	Logger *slog.Logger
	// ExitDelay is how long the agent has to exit after END before it is
	// killed (default 1s).
	ExitDelay time.Duration
	// WriteTimeout limits each message to the agent (default 5s): an agent
	// that stops reading its input is treated as crashed.
	WriteTimeout time.Duration

	mu        sync.Mutex
	proc      *process
	seat      int
	seatKnown bool
	sent      int  // moves of the game already reported
	ended     bool // END sent
	closed    bool
	asked     bool   // the last message told the agent to move
	early     *reply // what the agent wrote while not asked
}

// process is one run of the agent.
type process struct {
	cmd    *exec.Cmd
	stdin  *os.File
	stdout *os.File
	lines  chan reply
	exited chan struct{}
	wg     sync.WaitGroup
	stderr *lineLogger
}

// reply is a line the agent wrote, or why none can come.
type reply struct {
	line string
	err  error
}

// errLong marks a reply longer than MaxLine.
var errLong = errors.New("reply too long")

func (a *Agent) logger() *slog.Logger {
	if a.Logger != nil {
		return a.Logger
	}
	return slog.Default()
}

// Start starts the agent's process, so that its start-up time is not
// charged to its first move. Move and Observe start it when needed.
func (a *Agent) Start() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.start()
}

func (a *Agent) start() error {
	if a.closed {
		return fmt.Errorf("%w: agent closed", player.ErrCrashed)
	}
	if a.proc != nil {
		return nil
	}
	var cmd *exec.Cmd
	if runtime.GOOS == "windows" {
		cmd = exec.Command("cmd", "/c", a.Command)
	} else {
		cmd = exec.Command("sh", "-c", a.Command)
	}
	cmd.Dir = a.Dir
	proc.Group(cmd)
	inR, inW, err := os.Pipe()
	if err != nil {
		return err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return err
	}
	p := &process{cmd: cmd, stdin: inW, stdout: outR, lines: make(chan reply, 4), exited: make(chan struct{})}
	cmd.Stdin, cmd.Stdout = inR, outW
	if a.Stderr != nil {
		cmd.Stderr = a.Stderr
	} else {
		p.stderr = &lineLogger{log: a.logger().With("agent", a.Command)}
		cmd.Stderr = p.stderr
	}
	// Pipes held open by the agent's own children must not block Wait.
	cmd.WaitDelay = time.Second
	err = cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return fmt.Errorf("%w: starting %q: %v", player.ErrCrashed, a.Command, err)
	}
	p.wg.Add(2)
	go func() {
		defer p.wg.Done()
		cmd.Wait()
		close(p.exited)
	}()
	go func() {
		defer p.wg.Done()
		p.read()
	}()
	a.proc = p
	a.sent, a.ended, a.seatKnown, a.asked, a.early = 0, false, false, false, nil
	return nil
}

// read passes the agent's lines on until its output ends.
func (p *process) read() {
	r := bufio.NewReaderSize(p.stdout, MaxLine)
	for {
		b, err := r.ReadSlice('\n')
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			p.lines <- reply{line: string(b), err: errLong}
			return
		case err != nil:
			if len(b) > 0 {
				// A last line without its LF is not a message.
				p.lines <- reply{line: string(b), err: fmt.Errorf("%w: %q has no line end", player.ErrProtocol, b)}
			}
			p.lines <- reply{err: err}
			return
		}
		p.lines <- reply{line: string(b)}
	}
}

// stop ends the process: END if it was not sent, then its input closed,
// then a kill if it has not exited within delay.
func (a *Agent) stop() {
	p := a.proc
	if p == nil {
		return
	}
	a.proc = nil
	if !a.ended && a.seatKnown {
		a.write(p, "END\n")
	}
	a.ended = true
	p.stdin.Close()
	t := time.NewTimer(orDefault(a.ExitDelay, time.Second))
	defer t.Stop()
	select {
	case <-p.exited:
	case <-t.C:
		proc.Kill(p.cmd)
		<-p.exited
	}
	// Kill what the agent may have left behind in its group, then unblock
	// the reader even if such a child still holds the pipe.
	proc.Kill(p.cmd)
	p.stdout.Close()
	go func() {
		for range p.lines {
		}
	}()
	p.wg.Wait()
	close(p.lines)
	if p.stderr != nil {
		p.stderr.flush()
	}
}

func orDefault(v, def time.Duration) time.Duration {
	if v == 0 {
		return def
	}
	return v
}

// Close ends the agent's process; it is safe to call more than once.
func (a *Agent) Close() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.stop()
	a.closed = true
	return nil
}

// write sends one message; a failure means the agent is gone.
func (a *Agent) write(p *process, msg string) error {
	p.stdin.SetWriteDeadline(time.Now().Add(orDefault(a.WriteTimeout, 5*time.Second)))
	if _, err := io.WriteString(p.stdin, msg); err != nil {
		return fmt.Errorf("%w: writing to the agent: %v", player.ErrCrashed, err)
	}
	return nil
}

// prepare makes sure the process for game g runs and knows every move so
// far. seat is the player's seat if known (from Move), or -1.
func (a *Agent) prepare(g *kalah.Game, seat int) error {
	if a.proc != nil && (a.ended || g.Len() < a.sent) {
		// Another game: start afresh.
		a.stop()
	}
	if a.proc == nil {
		if err := a.start(); err != nil {
			return err
		}
	}
	if !a.seatKnown {
		if seat < 0 {
			return nil // not yet told which side it plays; wait for Move
		}
		a.seat, a.seatKnown = seat, true
		side := "South"
		if seat == 1 {
			side = "North"
		}
		if err := a.ask(seat == 0, "START;"+side+"\n"); err != nil {
			return err
		}
	}
	return a.catchUp(g)
}

// catchUp sends a CHANGE for every move the agent has not heard of, except
// its own swap.
func (a *Agent) catchUp(g *kalah.Game) error {
	moves := g.Moves()
	swapped := false
	for i, m := range moves {
		mover := int(m.Side)
		if swapped {
			mover ^= 1
		}
		if m.Move == kalah.Swap {
			swapped = !swapped
		}
		if i < a.sent {
			continue
		}
		a.sent = i + 1
		if m.Move == kalah.Swap && mover == a.seat {
			continue
		}
		move := m.Move.String()
		if m.Move == kalah.Swap {
			move = "SWAP"
		}
		after := g.PositionAt(i + 1)
		turn := "OPP"
		switch {
		case m.Effect&kalah.End != 0:
			turn = "END"
		case (int(after.ToMove()) ^ b2i(swapped)) == a.seat:
			turn = "YOU"
		}
		msg := "CHANGE;" + move + ";" + kalah.ManchesterState(after) + ";" + turn + "\n"
		if err := a.ask(turn == "YOU", msg); err != nil {
			return err
		}
	}
	return nil
}

// ask sends msg, which tells the agent to move if you is set. Anything
// the agent wrote since it was last asked is kept to be reported as out of
// turn at the next move.
func (a *Agent) ask(you bool, msg string) error {
	if !a.asked && a.early == nil {
		select {
		case r := <-a.proc.lines:
			a.early = &r
		default:
		}
	}
	if err := a.write(a.proc, msg); err != nil {
		return err
	}
	if you {
		a.asked = true
	}
	return nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Move tells the agent what happened since its last move and reads its
// reply. An agent that breaks the protocol or crashes is killed at once.
func (a *Agent) Move(ctx context.Context, g *kalah.Game, c player.Clock) (kalah.Move, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	m, err := a.move(ctx, g)
	if (errors.Is(err, player.ErrProtocol) || errors.Is(err, player.ErrCrashed)) && a.proc != nil {
		proc.Kill(a.proc.cmd)
		a.ended = true // no END for an agent that is gone
	}
	return m, err
}

func (a *Agent) move(ctx context.Context, g *kalah.Game) (kalah.Move, error) {
	if a.closed {
		return kalah.NoMove, fmt.Errorf("%w: agent closed", player.ErrCrashed)
	}
	seat := g.Seat(g.ToMove())
	if a.seatKnown && a.proc != nil && !a.ended && g.Len() >= a.sent && seat != a.seat {
		return kalah.NoMove, fmt.Errorf("agent plays seat %d, asked to move for seat %d", a.seat, seat)
	}
	if err := a.prepare(g, seat); err != nil {
		return kalah.NoMove, err
	}
	p := a.proc
	if r := a.early; r != nil {
		if r.err == nil {
			return kalah.NoMove, fmt.Errorf("%w: the agent wrote %q out of turn", player.ErrProtocol, r.line)
		}
		return kalah.NoMove, a.failure(p, *r)
	}
	if !a.asked {
		return kalah.NoMove, fmt.Errorf("agent asked to move without being told it is its turn")
	}
	a.asked = false
	select {
	case r := <-p.lines:
		if r.err != nil {
			return kalah.NoMove, a.failure(p, r)
		}
		return parseReply(r.line)
	case <-ctx.Done():
		return kalah.NoMove, ctx.Err()
	}
}

// failure explains why an agent's output ended.
func (a *Agent) failure(p *process, r reply) error {
	switch {
	case errors.Is(r.err, errLong):
		return fmt.Errorf("%w: reply longer than %d bytes: %q...", player.ErrProtocol, MaxLine, r.line)
	case errors.Is(r.err, player.ErrProtocol):
		return r.err
	}
	// The output ended: give the process a moment to be reaped so the exit
	// status can be reported.
	select {
	case <-p.exited:
	case <-time.After(500 * time.Millisecond):
	}
	if st := p.cmd.ProcessState; st != nil {
		return fmt.Errorf("%w: the agent exited (%v)", player.ErrCrashed, st)
	}
	return fmt.Errorf("%w: the agent closed its output", player.ErrCrashed)
}

// parseReply reads "MOVE;<n>\n" or "SWAP\n" exactly.
func parseReply(line string) (kalah.Move, error) {
	body, ok := strings.CutSuffix(line, "\n")
	if !ok || strings.ContainsAny(body, "\r\n") {
		return kalah.NoMove, fmt.Errorf("%w: %q: a message ends in a bare LF", player.ErrProtocol, line)
	}
	if body == "SWAP" {
		return kalah.Swap, nil
	}
	n, ok := strings.CutPrefix(body, "MOVE;")
	if !ok || n == "" || len(n) > 4 || strings.Trim(n, "0123456789") != "" {
		return kalah.NoMove, fmt.Errorf("%w: %q is neither MOVE;<n> nor SWAP", player.ErrProtocol, line)
	}
	v, _ := strconv.Atoi(n)
	if v < 1 {
		// No house: the referee rejects it as an illegal move.
		return kalah.NoMove, nil
	}
	return kalah.Move(v), nil
}

// Observe keeps the agent informed: it starts the process early, passes
// each move on as a CHANGE once the agent knows its side, and ends the game
// with END.
func (a *Agent) Observe(ctx context.Context, g *kalah.Game) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return nil
	}
	if !g.Over() {
		// Boot the agent while the opponent thinks, and pass the move on
		// at once as the engine does.
		return a.prepare(g, -1)
	}
	if a.proc == nil || a.ended || !a.seatKnown {
		return nil
	}
	var err error
	if g.Termination() == kalah.Normal {
		err = a.catchUp(g)
	}
	// After a forfeit the engine sends END alone.
	if err == nil {
		err = a.write(a.proc, "END\n")
	}
	a.ended = true
	a.proc.stdin.Close()
	return err
}

// lineLogger logs an agent's standard error a line at a time.
type lineLogger struct {
	mu  sync.Mutex
	log *slog.Logger
	buf []byte
}

// Write logs every complete line and keeps the rest for later.
func (l *lineLogger) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(l.buf, p...)
	for {
		i := strings.IndexByte(string(l.buf), '\n')
		if i < 0 {
			break
		}
		l.log.Debug("agent stderr", "line", string(l.buf[:i]))
		l.buf = l.buf[i+1:]
	}
	if len(l.buf) > 4096 {
		l.log.Debug("agent stderr", "line", string(l.buf))
		l.buf = l.buf[:0]
	}
	return len(p), nil
}

func (l *lineLogger) flush() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.buf) > 0 {
		l.log.Debug("agent stderr", "line", string(l.buf))
		l.buf = nil
	}
}
