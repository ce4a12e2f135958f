// Command kalah is the Kalah platform: play in the terminal, run matches,
// tournaments and experiments, solve positions, and serve games to bots and
// browsers. Run "kalah help" for the subcommands.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"kalah"
	"kalah/egdb"
	"kalah/internal/datadir"
)

// command is one subcommand; each lives in its own file and registers
// itself from init.
type command struct {
	name    string
	summary string // one line for "kalah help"
	run     func(ctx context.Context, e *env, args []string) error
}

var commands = map[string]*command{}

func register(c *command) {
	if _, dup := commands[c.name]; dup {
		panic("duplicate command " + c.name)
	}
	commands[c.name] = c
}

// env is what a command may touch of the outside world, so tests can run
// commands in-process.
type env struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	log    *slog.Logger
	// logSet: --log-level chose the logs' level (logging.go).
	logSet bool
	// name is the command's, for the lines it says to a person.
	name string
	// restoreData undoes this command's --data when it ends, so commands
	// run in one process (tests) do not see each other's.
	restoreData func()
	// bg is the work a command left to finish beside it (background).
	bg sync.WaitGroup
}

// background runs f beside the command, which does not end before f does.
func (e *env) background(f func()) { e.bg.Go(f) }

// note tells the person something on standard error, in words, whether
// or not it is a terminal: "kalah tournament: tournament 3 ...".
func (e *env) note(format string, a ...any) {
	fmt.Fprintf(e.stderr, "kalah %s: %s\n", e.name, fmt.Sprintf(format, a...))
}

// usageError marks an error in the command line itself (exit status 2).
type usageError struct{ error }

func (u usageError) Unwrap() error { return u.error }

// silentError fails a command (exit status 1) whose output already said
// why.
type silentError struct{ error }

func (s silentError) Unwrap() error { return s.error }

// usagef returns a usage error.
func usagef(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr, log: newLogger(stderr, "kalah")}
	prevData := datadir.Get()
	e.restoreData = func() { datadir.Set(prevData) }
	if len(args) == 0 {
		// A bare "kalah" is a command line missing its command.
		usage(stderr)
		return 2
	}
	if args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		if len(args) > 1 {
			if c, ok := commands[args[1]]; ok {
				return finish(e, c.name, c.run(ctx, e, []string{"-h"}))
			}
		}
		usage(stdout)
		return 0
	}
	if args[0] == "--version" || args[0] == "-version" || args[0] == "-v" {
		args[0] = "version"
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "kalah: unknown command %q\n\n", args[0])
		usage(stderr)
		return 2
	}
	e.log, e.name = newLogger(stderr, "kalah "+c.name), c.name
	defaultLogs(e)
	return finish(e, c.name, c.run(ctx, e, args[1:]))
}

func finish(e *env, name string, err error) int {
	e.bg.Wait()
	if e.restoreData != nil {
		e.restoreData()
	}
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, new(usageError)):
		fmt.Fprintf(e.stderr, "kalah %s: %v\n", name, err)
		return 2
	case errors.Is(err, context.Canceled):
		fmt.Fprintf(e.stderr, "kalah %s: interrupted\n", name)
		return 130
	case errors.As(err, new(silentError)):
		return 1
	}
	fmt.Fprintf(e.stderr, "kalah %s: %v\n", name, err)
	return 1
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "kalah: the Kalah (mancala) platform\n\nUsage: kalah <command> [flags]\n\nCommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-12s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nRun \"kalah <command> -h\" for a command's flags. Every command takes the rules flags (kalah rules -h).")
}

// newFlags returns a flag set for a subcommand that reports errors instead
// of exiting.
func newFlags(e *env, name, args, about string) *flag.FlagSet {
	fs := flag.NewFlagSet("kalah "+name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.String("data", "", "data directory for everything kalah keeps (default $"+datadir.Env+", else ./kalah-data if it exists, else ~/.local/share/kalah)")
	fs.Func("log-level", "log at this level on standard error: debug, info, warn or error (default: on a terminal only warnings, in words; elsewhere info; or $KALAH_LOG)", func(v string) error {
		l, err := parseLevel(v)
		if err != nil {
			return err
		}
		e.log, e.logSet = textLogger(e.stderr, l), true
		return nil
	})
	fs.Usage = func() {
		fmt.Fprintf(e.stderr, "Usage: kalah %s %s\n\n%s\n\nFlags:\n", name, args, about)
		fs.PrintDefaults()
		fmt.Fprintf(e.stderr, "\nData: %s\n  games and tournaments  %s\n  endgame databases      %s\n  terminal games         %s\n  program players' logs  %s\n",
			datadir.Dir(), datadir.Path("kalah.db"), egdbDir(), datadir.Path("play"), datadir.Path("logs"))
	}
	return fs
}

// egdbDir is where endgame databases are kept, for help texts.
func egdbDir() string {
	d, err := egdb.DefaultDir()
	if err != nil {
		return "(" + err.Error() + ")"
	}
	return d
}

// parseFlags parses args, turning flag errors into usage errors.
func parseFlags(fs *flag.FlagSet, args []string) error {
	err := fs.Parse(args)
	if f := fs.Lookup("data"); f != nil && f.Value.String() != "" {
		datadir.Set(f.Value.String())
	}
	if err == nil && fs.NArg() > 0 && !takesArgs[fs.Name()] {
		return usageError{strayArgs(fs)}
	}
	if err == nil {
		// No command takes a negative duration, nor one beyond a year.
		fs.Visit(func(f *flag.Flag) {
			g, ok := f.Value.(flag.Getter)
			if !ok {
				return
			}
			d, ok := g.Get().(time.Duration)
			switch {
			case !ok || err != nil:
			case d < 0:
				err = fmt.Errorf("--%s %v: a duration must not be negative", f.Name, d)
			case d > 366*24*time.Hour:
				err = fmt.Errorf("--%s %v: too long (at most a year)", f.Name, d)
			}
		})
		if err != nil {
			return usageError{err}
		}
	}
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err}
	}
	return nil
}

// takesArgs names the commands that take words besides their flags (an
// address, files). Every other command refuses a stray word: the flag
// parser stops at it, so the flags after it would silently be dropped
// ("kalah match --a x foo --games 4" playing 2 games).
var takesArgs = map[string]bool{
	"kalah join":        true,
	"kalah convert":     true,
	"kalah book info":   true,
	"kalah egdb info":   true,
	"kalah egdb verify": true,
}

// atLeast refuses a count below min: the flags' names and values in
// pairs, as atLeast(1, "games", *games, "parallel", *parallel).
func atLeast(min int, pairs ...any) error {
	for i := 0; i+1 < len(pairs); i += 2 {
		if n := pairs[i+1].(int); n < min {
			return usagef("--%s %d: want at least %d", pairs[i], n, min)
		}
	}
	return nil
}

// strayArgs says what is wrong with the words left after a command's
// flags, and what was not read because of them.
func strayArgs(fs *flag.FlagSet) error {
	word := fs.Arg(0)
	msg := fmt.Sprintf("unexpected argument %q", word)
	if fs.Lookup("position") != nil {
		if _, err := kalah.ParsePosition(word); err == nil {
			msg += fmt.Sprintf(": a position goes with --position '%s'", word)
		}
	}
	if rest := fs.Args()[1:]; len(rest) > 0 {
		msg += fmt.Sprintf(" (so %q after it was not read: put flags before any other word)", strings.Join(rest, " "))
	}
	return errors.New(msg)
}
