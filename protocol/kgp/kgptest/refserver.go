// Package kgptest provides a KGP server for tests of clients that behaves
// as the reference server (KWARC's go-kgp) does where clients trip over it:
// it registers each state a while after it has written it, and answers a
// move or yield for a state it has not registered with
// error "No state associated with id", referencing the client's command,
// then plays as if the client had not sent it.
package kgptest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"

	"kalah"
	"kalah/protocol/kgp"
)

// RefServer sends one client States states, one after another, and notes
// which of them the client answered with a move the server took.
type RefServer struct {
	// Register is how long after writing a state the server registers it
	// (go-kgp takes microseconds on a quiet machine, more on a busy one).
	Register time.Duration
	// States is how many states to send (default 200).
	States int
	// Timeout is how long the server waits for a yield before it stops a
	// state (default 2s).
	Timeout time.Duration
	// Seed draws the positions: random games under the kgp preset's rules
	// with 6 houses of 4 seeds.
	Seed uint64
	// Late, if positive, is a registration lag beyond which a state is
	// listed in Result.Late: on a loaded machine the server's own sleep
	// can overshoot Register by far, past a client's hold, and a move
	// lost then is the server's delay, not the client's fault.
	Late time.Duration
}

// Result is what one client did.
type Result struct {
	States   int      // states sent
	Answered int      // states with a move the server took before yield or stop
	Lost     []uint64 // states the client sent a move for, none of which the server took
	Silent   []uint64 // states the client sent no move for at all
	Illegal  []uint64 // states whose move taken was not legal
	Errors   []string // every error the server sent, as its line
	Yielded  int      // states ended by a yield the server took
	Late     []uint64 // states registered Late or more after they were written
}

// Start serves one client at a time on a TCP listener and a WebSocket
// endpoint (ws://.../kgp) until ctx ends; each finished client's Result
// comes on the channel. It returns "host:port" for TCP and the ws:// URL.
func (s *RefServer) Start(ctx context.Context) (tcpAddr, wsURL string, results <-chan Result, stop func()) {
	out := make(chan Result, 16)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				out <- s.Serve(ctx, c)
			}()
		}
	}()
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		out <- s.Serve(ctx, websocket.NetConn(context.Background(), ws, websocket.MessageText))
	}))
	return l.Addr().String(), "ws" + strings.TrimPrefix(hs.URL, "http") + "/kgp", out, func() {
		l.Close()
		hs.CloseClientConnections()
		hs.Close()
		wg.Wait()
	}
}

// serverState is one state sent and what came for it.
type serverState struct {
	id         uint64
	pos        kalah.Position
	registered bool
	moved      bool // a move arrived for it, taken or not
	taken      bool // a move was taken
	move       int
	yielded    chan struct{}
	done       bool
}

// Serve speaks to one client over conn until it has sent every state,
// then says goodbye and closes conn.
func (s *RefServer) Serve(ctx context.Context, conn io.ReadWriteCloser) Result {
	defer conn.Close()
	n := s.States
	if n == 0 {
		n = 200
	}
	timeout := s.Timeout
	if timeout == 0 {
		timeout = 2 * time.Second
	}
	var (
		wmu    sync.Mutex
		mu     sync.Mutex
		nextID uint64
		states = map[uint64]*serverState{}
		res    Result
	)
	write := func(ref uint64, name string, args ...string) uint64 {
		wmu.Lock()
		defer wmu.Unlock()
		nextID += 2
		line := fmt.Sprint(nextID)
		if ref != 0 {
			line += fmt.Sprintf("@%d", ref)
		}
		line += " " + name
		for _, a := range args {
			line += " " + a
		}
		if name == "error" {
			mu.Lock()
			res.Errors = append(res.Errors, line)
			mu.Unlock()
		}
		io.WriteString(conn, line+"\r\n")
		return nextID
	}
	moded := make(chan struct{})
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		sc := bufio.NewScanner(conn)
		sc.Buffer(make([]byte, kgp.MaxLine), kgp.MaxLine)
		once := sync.Once{}
		for sc.Scan() {
			cmd, err := kgp.Parse(sc.Text())
			if err != nil {
				continue
			}
			switch cmd.Name {
			case "mode":
				write(cmd.ID, "ok")
				once.Do(func() { close(moded) })
			case "move", "yield":
				mu.Lock()
				st := states[cmd.Ref]
				if st == nil || !st.registered {
					if st != nil && cmd.Name == "move" {
						st.moved = true
					}
					mu.Unlock()
					write(cmd.ID, "error", `"No state associated with id"`)
					continue
				}
				if st.done {
					mu.Unlock()
					continue
				}
				if cmd.Name == "move" {
					st.moved = true
					if len(cmd.Args) == 1 && cmd.Args[0].Kind == kgp.Integer {
						st.taken, st.move = true, int(cmd.Args[0].Int)
					}
				} else {
					st.done = true
					close(st.yielded)
				}
				mu.Unlock()
			case "goodbye":
				return
			}
		}
	}()
	write(0, "kgp", "1", "0", "1")
	select {
	case <-moded:
	case <-readDone:
		return res
	case <-ctx.Done():
		return res
	}
	r, _ := kalah.PresetRules("kgp")
	r.Houses, r.Seeds = 6, 4
	rnd := rand.New(rand.NewPCG(s.Seed, 1))
	g, _ := kalah.NewGame(r)
	for range n {
		for g.Over() {
			g, _ = kalah.NewGame(r)
		}
		pos := g.Position()
		view := pos
		if pos.ToMove() == kalah.North {
			view = pos.Mirror()
		}
		board := kgp.Command{Name: "state", Args: []kgp.Arg{kgp.BoardArg(kgp.BoardOf(view))}}.String()
		wmu.Lock()
		nextID += 2
		id := nextID
		st := &serverState{id: id, pos: view, yielded: make(chan struct{})}
		mu.Lock()
		states[id] = st
		res.States++
		mu.Unlock()
		// The lag is counted from before the write: a client that holds
		// its answer that long after the state arrived answers after it
		// is registered, unless the lag reaches Late.
		written := time.Now()
		io.WriteString(conn, fmt.Sprintf("%d %s\r\n", id, board))
		wmu.Unlock()
		// As go-kgp: the state is registered only after the write, here
		// after a delay that stands for a busy server.
		time.Sleep(s.Register)
		mu.Lock()
		if lag := time.Since(written); s.Late > 0 && lag >= s.Late {
			res.Late = append(res.Late, id)
		}
		st.registered = true
		mu.Unlock()
		t := time.NewTimer(timeout)
		select {
		case <-st.yielded:
		case <-t.C:
		case <-readDone:
		case <-ctx.Done():
		}
		t.Stop()
		mu.Lock()
		if !st.done {
			st.done = true
		} else {
			res.Yielded++
		}
		switch {
		case st.taken:
			res.Answered++
			vg, err := kalah.NewGameFrom(rulesFor(r), view)
			if err != nil || !vg.IsLegal(kalah.Move(st.move)) {
				res.Illegal = append(res.Illegal, id)
			}
		case st.moved:
			res.Lost = append(res.Lost, id)
		default:
			res.Silent = append(res.Silent, id)
		}
		mu.Unlock()
		write(id, "stop")
		select {
		case <-readDone:
			return res
		case <-ctx.Done():
			return res
		default:
		}
		// The game goes on by a random legal move (the server's own view
		// of the board is not the test's business).
		legal := g.Legal()
		if _, err := g.Play(legal[rnd.IntN(len(legal))]); err != nil {
			panic(err)
		}
	}
	write(0, "goodbye")
	conn.Close()
	<-readDone
	return res
}

// rulesFor is r with South to move first, as a KGP client sees every board.
func rulesFor(r kalah.Rules) kalah.Rules {
	r.First = kalah.South
	r.Pie = false
	return r
}

// ErrLost is returned by Check when a client lost moves.
var ErrLost = errors.New("moves lost")

// Check returns an error describing what went wrong for the client, or
// nil if every state was answered with a legal move the server took.
// Excused returns r without what its late states explain: their lost
// moves (counted as answered) and, if there are no more than two a late
// state (the move's and the yield's), the server's errors. A state lost
// though it was registered in time stays lost.
func (r Result) Excused() Result {
	late := map[uint64]bool{}
	for _, id := range r.Late {
		late[id] = true
	}
	var lost []uint64
	for _, id := range r.Lost {
		if !late[id] {
			lost = append(lost, id)
		}
	}
	r.Answered += len(r.Lost) - len(lost)
	r.Lost = lost
	if len(r.Errors) <= 2*len(r.Late) {
		r.Errors = nil
	}
	return r
}

func (r Result) Check() error {
	var errs []error
	if len(r.Lost) > 0 {
		errs = append(errs, fmt.Errorf("%w: %d of %d states' moves (states %v)", ErrLost, len(r.Lost), r.States, r.Lost))
	}
	if len(r.Silent) > 0 {
		errs = append(errs, fmt.Errorf("no move at all for %d of %d states (states %v)", len(r.Silent), r.States, r.Silent))
	}
	if len(r.Illegal) > 0 {
		errs = append(errs, fmt.Errorf("illegal moves for states %v", r.Illegal))
	}
	return errors.Join(errs...)
}
