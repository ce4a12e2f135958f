package tui

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"kalah"
)

// Plain runs the game in line mode.
type Plain struct {
	In  io.Reader
	Out io.Writer
	// Echo writes each line read after the prompt, so a transcript of piped
	// input reads as it was typed.
	Echo bool
	// Resumed says the session continues a game from the unfinished-game
	// file, which is removed once that game has ended.
	Resumed bool
	// SaveErr is set by Run if a save failed (w, or quitting a game in
	// progress); the failure was told in the game's output.
	SaveErr error

	details bool // print the search's details after each computer move
	// restartAsked: an empty line came during a game in progress; a second
	// one in a row drops the game.
	restartAsked bool
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
	if pl.Resumed {
		n := s.Game().Len()
		fmt.Fprintf(w, "Resumed the unfinished game after %d %s.\n", n, plural(n, "move", "moves"))
	}
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
			// As quitting does: a game in progress is kept for
			// kalah play --resume.
			pl.leave(w, s, "End of input")
			return nil
		}
		if pl.Echo {
			fmt.Fprintln(w, line)
		}
		keys := ParseLine(line)
		if line == "" {
			if g := s.Game(); g.Len() > 0 && !g.Over() && !pl.restartAsked {
				// An empty line is easily typed by mistake: a game in
				// progress is dropped only on a second one.
				pl.restartAsked = true
				fmt.Fprintf(w, "An empty line starts a new game: another one drops this game after %d %s; anything else plays on.\n", g.Len(), plural(g.Len(), "move", "moves"))
				continue
			}
		}
		pl.restartAsked = false
		for _, k := range keys {
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
		pl.event(w, ev)
		pl.board(w, s, &ev)
	}
	return nil
}

// event prints what a move or a hint did, and the search's details if
// they were asked for.
func (pl *Plain) event(w io.Writer, ev Event) {
	fmt.Fprintln(w, ev.Text)
	if pl.details && ev.Details != "" {
		fmt.Fprintln(w, "  "+ev.Details)
	}
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
		pl.event(w, ev)
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
		pl.event(w, ev)
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
		pl.event(w, ev)
	case KeyQuit:
		pl.leave(w, s, "Quit")
		return true, nil
	case KeyDetails:
		pl.details = !pl.details
		if pl.details {
			fmt.Fprintln(w, "Search details shown after each computer move and hint (d hides them).")
		} else {
			fmt.Fprintln(w, "Search details hidden.")
		}
	case KeyList:
		for _, l := range s.MoveList() {
			fmt.Fprintln(w, l)
		}
	case KeySave:
		dir := s.Config().DataDir
		if dir == "" {
			reject(errors.New("no data directory to save in (kalah play --data DIR)"))
			return false, nil
		}
		path, err := s.SaveGame(dir, time.Now())
		if err != nil {
			pl.SaveErr = err
			fmt.Fprintf(w, "The game could not be saved: %s\n", SaveCause(err))
			return false, nil
		}
		fmt.Fprintln(w, "Saved the game to "+path)
	case KeyHelp:
		fmt.Fprintln(w, KeysHelp)
		fmt.Fprintln(w, LineModeHelp)
		fmt.Fprintln(w)
		fmt.Fprintln(w, BoardHelp)
		fmt.Fprintln(w)
		fmt.Fprint(w, kalah.HowToPlay(s.Game().Rules()))
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
	fmt.Fprintf(w, "Keys: a house 1-%d (each side counts its houses from its own left), m: the computer\nmoves for whoever is to move, u: undo, h: hint, a: analysis, d: search details,\nl: move list, w: save, empty line: restart (twice in a game), q: quit, ?: help\nand how to play. The + beside a store marks its owner's turn.\n\n", r.Houses)
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

// leave ends the session for a reason ("Quit", "End of input"): a game in
// progress is saved for kalah play --resume where there is a data
// directory, and a resumed game that has ended takes its saved file away.
func (pl *Plain) leave(w io.Writer, s *Session, reason string) {
	g := s.Game()
	dir := s.Config().DataDir
	switch {
	case g.Over() || g.Len() == 0:
		if pl.Resumed && g.Over() && dir != "" {
			if err := RemoveUnfinished(dir); err != nil {
				slog.Warn("the finished game's unfinished file stays", "err", err)
			}
		}
	case dir != "":
		path, err := s.SaveUnfinished(dir)
		if err != nil {
			pl.SaveErr = err
			fmt.Fprintf(w, "%s: the game could not be saved (%s); it is left unfinished after %d %s.\n", reason, SaveCause(err), g.Len(), plural(g.Len(), "move", "moves"))
			return
		}
		fmt.Fprintf(w, "%s after %d %s: the game is saved in %s; kalah play --resume continues it.\n", reason, g.Len(), plural(g.Len(), "move", "moves"), path)
	default:
		fmt.Fprintf(w, "%s: the game is left unfinished after %d %s.\n", reason, g.Len(), plural(g.Len(), "move", "moves"))
	}
}
