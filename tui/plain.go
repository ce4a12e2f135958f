package tui

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"kalah"
)

// Plain runs the game in line mode.
type Plain struct {
	In  io.Reader
	Out io.Writer
	// Echo writes each line read after the prompt, so a transcript of piped
	// input reads as it was typed.
	Echo bool
}

// Run plays until the person quits or the input ends. It returns ctx's
// error if ctx ends first.
func (pl *Plain) Run(ctx context.Context, s *Session) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // lets the reader go once it has a line to hand over
	w := bufio.NewWriter(pl.Out)
	defer w.Flush()
	lines := make(chan string)
	readErr := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(pl.In)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			case <-ctx.Done():
				return
			}
		}
		readErr <- sc.Err()
		close(lines)
	}()

	pl.intro(w, s)
	pl.board(w, s, nil)
	summarized := -1 // the generation whose end was summed up
	// settle lets the computer make its own moves, then sums up a game that
	// has just ended.
	settle := func() error {
		if err := pl.computer(ctx, w, s); err != nil {
			return err
		}
		if s.Game().Over() && summarized != s.Generation() {
			fmt.Fprintln(w, s.Summary())
			fmt.Fprintln(w, "An empty line plays again; u takes back your last move; q quits.")
			summarized = s.Generation()
		}
		return nil
	}
	if err := settle(); err != nil {
		return err
	}
	for {
		fmt.Fprint(w, pl.prompt(s))
		if err := w.Flush(); err != nil {
			return err
		}
		var line string
		var ok bool
		select {
		case line, ok = <-lines:
		case <-ctx.Done():
			return ctx.Err()
		}
		if !ok {
			fmt.Fprintln(w)
			if err := <-readErr; err != nil {
				return fmt.Errorf("reading keys: %w", err)
			}
			if !s.Game().Over() {
				fmt.Fprintln(w, "End of input: the game is left unfinished.")
			}
			return nil
		}
		if pl.Echo {
			fmt.Fprintln(w, line)
		}
		for _, k := range ParseLine(line) {
			quit, err := pl.key(ctx, w, s, k)
			if err != nil {
				return err
			}
			if quit {
				return nil
			}
			if err := settle(); err != nil {
				return err
			}
		}
	}
}

// computer plays the computer's own moves, which it makes unasked.
func (pl *Plain) computer(ctx context.Context, w io.Writer, s *Session) error {
	for s.NeedsComputer() {
		req, _ := s.Ask()
		ev, err := s.Finish(req.Run(ctx))
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			fmt.Fprintf(w, "%v\n", err)
			return nil
		}
		fmt.Fprintln(w, ev.Text)
		pl.board(w, s, &ev)
	}
	return nil
}

// key handles one key; it reports whether to quit.
func (pl *Plain) key(ctx context.Context, w io.Writer, s *Session, k Key) (bool, error) {
	reject := func(err error) {
		fmt.Fprintf(w, "%s rejected: %s\n", CrossOut(k.Text), strings.TrimPrefix(err.Error(), ErrRejected.Error()+": "))
	}
	switch k.Kind {
	case KeyHouse, KeySwap:
		m := k.House
		if k.Kind == KeySwap {
			m = kalah.Swap
		}
		ev, err := s.Play(m)
		if err != nil {
			reject(err)
			return false, nil
		}
		fmt.Fprintln(w, ev.Text)
		pl.board(w, s, &ev)
	case KeyComputer:
		req, err := s.Ask()
		if err != nil {
			reject(err)
			return false, nil
		}
		ev, err := s.Finish(req.Run(ctx))
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		if err != nil {
			reject(err)
			return false, nil
		}
		fmt.Fprintln(w, ev.Text)
		pl.board(w, s, &ev)
	case KeyRestart:
		s.Restart()
		fmt.Fprintln(w, "New game.")
		pl.board(w, s, nil)
	case KeyUndo:
		note, err := s.Undo()
		if err != nil {
			reject(err)
			return false, nil
		}
		fmt.Fprintln(w, note)
		pl.board(w, s, nil)
	case KeyHint, KeyAnalysis:
		ask := s.AskHint
		if k.Kind == KeyAnalysis {
			ask = s.AskAnalysis
		}
		req, err := ask()
		if err != nil {
			reject(err)
			return false, nil
		}
		ev, err := s.Finish(req.Run(ctx))
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		if err != nil && !errors.Is(err, ErrStale) {
			reject(err)
			return false, nil
		}
		fmt.Fprintln(w, ev.Text)
	case KeyQuit:
		if !s.Game().Over() {
			n := s.Game().Len()
			plural := "s"
			if n == 1 {
				plural = ""
			}
			fmt.Fprintf(w, "Quit: the game is left unfinished after %d move%s.\n", n, plural)
		}
		return true, nil
	case KeyHelp:
		fmt.Fprintln(w, KeysHelp)
		fmt.Fprintln(w, LineModeHelp)
	default:
		reject(fmt.Errorf("not a key: type a house 1-%d, m, u, h, q or ? for help", s.Game().Rules().Houses))
	}
	return false, nil
}

func (pl *Plain) intro(w io.Writer, s *Session) {
	r := s.Game().Rules()
	fmt.Fprintf(w, "Kalah, %s rules: %d houses a side, %d seeds each.\n", rulesName(r), r.Houses, r.Seeds)
	if s.TwoHumans() {
		fmt.Fprintln(w, "Two people at one keyboard: South sits at the bottom, North at the top.")
	} else {
		you := s.Bottom()
		fmt.Fprintf(w, "You play %s, at the bottom; %s plays %s.\n", you, s.OpponentTitle(), you.Other())
	}
	if r.Pie {
		fmt.Fprintln(w, "Pie rule: the first move earns no extra turn, and the second player may answer it with s (swap sides).")
	}
	fmt.Fprintf(w, "Keys: a house 1-%d (each side counts its houses from its own left), m: the computer\nmoves for whoever is to move, u: undo, h: hint, a: analysis, empty line: restart,\nq: quit, ?: help.\n\n", r.Houses)
}

func rulesName(r kalah.Rules) string {
	if n := r.Canonical().Name; n != "" {
		return n
	}
	return "custom"
}

func (pl *Plain) board(w io.Writer, s *Session, ev *Event) {
	b := s.BoardView()
	if ev != nil && ev.Played.Move > 0 {
		b.Last, b.LastSide = ev.Played.Move, ev.Played.Side
	}
	fmt.Fprintln(w)
	fmt.Fprint(w, b.String())
	fmt.Fprintln(w)
}

func (pl *Plain) prompt(s *Session) string {
	g := s.Game()
	if g.Over() {
		return "> "
	}
	if p := g.Position(); p.CanSwap() {
		return s.Label(g.ToMove()) + " to move (s swaps)> "
	}
	return s.Label(g.ToMove()) + " to move> "
}

// BoardView returns the board of the game in play, drawn from the
// person's side.
func (s *Session) BoardView() Board {
	g := s.Game()
	return Board{Pos: g.Position(), Bottom: s.Bottom(), Over: g.Over(),
		Names: [2]string{s.Label(kalah.South), s.Label(kalah.North)}}
}
