package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/charmbracelet/x/term"

	"kalah"
	"kalah/internal/datadir"
	"kalah/player"
	"kalah/tui"
)

func init() {
	register(&command{name: "play", summary: "play Kalah in the terminal against the computer or a friend", run: runPlay})
}

func runPlay(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "play", "[--opponent LEVEL|SPEC|human] [--you S|N] [--first S|N] [--time D] [--plain|--tui] [--resume] [--data DIR]",
		"Plays Kalah in the terminal, as the 1961 DEC program did and better. Full-screen\n"+
			"when input and output are a terminal (a menu chooses the opponent, who starts\n"+
			"and your side; flags preselect them); line mode otherwise, for scripts.\n"+
			"Quitting a game in progress saves it in the data directory ("+tui.UnfinishedFile+");\n"+
			"--resume continues it. The w key saves a game under "+tui.GamesDir+"/.\n\n"+
			tui.KeysHelp+"\n\n"+tui.LineModeHelp+"\n\n"+tui.BoardHelp+"\n\n"+kalah.HowToPlay(kalah.Standard())+"(Other rule sets: kalah rules --explain --rules NAME.)\n\n"+opponentsHelp())
	rf := addRulesFlags(fs)
	opponent := fs.String("opponent", tui.DefaultOpponent(), "the computer you play: a level or player spec (see above), or human for two people")
	you := fs.String("you", "S", "the side you play: S (South) or N (North); yours is drawn at the bottom")
	perMove := fs.Duration("time", time.Second, "the computer's time a move (0: none); hints get the same")
	delay := fs.Duration("delay", 400*time.Millisecond, "full-screen mode: pause before each computer move, so you can follow")
	seed := fs.Uint64("seed", 1, "seed for players that draw at random")
	helper := fs.String("hint-player", "", "player that gives hints and moves for a person on space in a two-person game (default: the strongest level)")
	record := fs.String("record", "", "append every game that ends to this file, one JSON line a game (as kalah match --record)")
	plain := fs.Bool("plain", false, "line mode even at a terminal")
	full := fs.Bool("tui", false, "full-screen mode even when input or output is not a terminal (it then uses /dev/tty)")
	resume := fs.Bool("resume", false, "continue the game left unfinished when you last quit (its opponent, side and time come with it)")
	buildDB := addBuildDBFlag(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	// Unfinished and saved games live under play/ in the data directory.
	data := datadir.Dir()
	if *plain && *full {
		return usagef("--plain and --tui exclude each other")
	}
	r, err := rf.rules()
	if err != nil {
		return err
	}
	side, err := kalah.ParseSide(*you)
	if err != nil {
		return usagef("--you: %w", err)
	}
	if !tui.IsHuman(*opponent) {
		if _, _, err := player.Lookup(*opponent); err != nil {
			return usagef("--opponent: %w", err)
		}
	}
	if *perMove < 0 || *delay < 0 {
		return usagef("--time and --delay cannot be negative")
	}
	cfg := tui.Config{Rules: r, Opponent: *opponent, You: side, Time: *perMove, Seed: *seed, Helper: *helper, DataDir: data}
	var resumed *kalah.Game
	if *resume {
		fs.Visit(func(f *flag.Flag) {
			switch f.Name {
			case "opponent", "you", "time", "hint-player", "seed",
				"rules", "houses", "seeds", "first", "end", "empty-capture", "early-end", "pie", "sow-opponent-store":
				if err == nil {
					err = usagef("--resume continues the saved game with its own settings: --%s cannot change them", f.Name)
				}
			}
		})
		if err != nil {
			return err
		}
		cfg, resumed, err = tui.LoadUnfinished(data, cfg)
		if err != nil {
			return err
		}
	}
	if *record != "" {
		f, err := os.OpenFile(*record, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			return err
		}
		defer f.Close()
		cfg.Record = f
	}

	in, inFile := e.stdin.(*os.File)
	out, outFile := e.stdout.(*os.File)
	terminal := inFile && outFile && term.IsTerminal(in.Fd()) && term.IsTerminal(out.Fd())
	if *full || (terminal && !*plain) {
		// Show the menu unless the game was chosen on the command line.
		chosen := false
		fs.Visit(func(f *flag.Flag) {
			switch f.Name {
			case "opponent", "you", "first":
				chosen = true
			}
		})
		t := &tui.TUI{Config: cfg, Menu: !chosen, Delay: *delay, Resume: resumed}
		// While the screen is up, whatever is written to standard error
		// (logs, the database's notes) would scribble over it: it is held,
		// in the logs' one form, and written once the screen is gone.
		held := &heldLines{w: e.stderr}
		if terminal && stderrIsTerminal(e.stderr) {
			e.log, e.stderr = heldLogger(e, held), held
		}
		defer held.release()
		var notes *dbNotes
		if *buildDB {
			// The perfect player (the strongest level, and the hints')
			// builds its endgame database the first time, as the screen
			// says under the board; line mode, for scripts, does not.
			notes = buildDBOnFirstUse(e, true)
			t.Config.Background = notes.C
		}
		if terminal {
			t.In, t.Out = in, out
		}
		err := t.Run(ctx)
		held.release()
		if t.Saved != "" {
			fmt.Fprintf(e.stdout, "The unfinished game is saved in %s; kalah play --resume continues it.\n", t.Saved)
		}
		if notes != nil {
			// Never a wait: the build keeps its progress for the next run.
			stopDBBuilds(e, notes)
		}
		if err == nil && t.SaveErr != nil {
			return t.SaveErr // the screen that said so is gone: say it again
		}
		return err
	}
	s, err := tui.NewSession(cfg)
	if err != nil {
		return err
	}
	defer s.Close()
	if resumed != nil {
		if err := s.Resume(resumed); err != nil {
			return err
		}
	}
	pl := &tui.Plain{In: e.stdin, Out: e.stdout, Echo: !(inFile && term.IsTerminal(in.Fd())), Resumed: resumed != nil}
	if err := pl.Run(ctx, s); err != nil {
		return err
	}
	if pl.SaveErr != nil {
		return silentError{pl.SaveErr} // the game's output said so
	}
	return nil
}

// opponentsHelp lists the opponents on offer, levels first.
func opponentsHelp() string {
	var b strings.Builder
	b.WriteString("Opponents (--opponent):\n")
	for _, c := range tui.Opponents() {
		fmt.Fprintf(&b, "  %-12s %s\n", c.Spec, c.Description)
	}
	b.WriteString("Any player spec with arguments works too, such as pekar-tree:4 (see kalah players).")
	return b.String()
}
