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
	"syscall"
	"time"

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
	// restoreData undoes this command's --data when it ends, so commands
	// run in one process (tests) do not see each other's.
	restoreData func()
}

// usageError marks an error in the command line itself (exit status 2).
type usageError struct{ error }

func (u usageError) Unwrap() error { return u.error }

// usagef returns a usage error.
func usagef(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr,
		log: slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: logLevel()}))}
	prevData := datadir.Get()
	e.restoreData = func() { datadir.Set(prevData) }
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
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
	return finish(e, c.name, c.run(ctx, e, args[1:]))
}

func finish(e *env, name string, err error) int {
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

func logLevel() slog.Level {
	switch strings.ToLower(os.Getenv("KALAH_LOG")) {
	case "debug":
		return slog.LevelDebug
	case "warn":
		return slog.LevelWarn
	case "error":
		return slog.LevelError
	}
	return slog.LevelInfo
}

// newFlags returns a flag set for a subcommand that reports errors instead
// of exiting.
func newFlags(e *env, name, args, about string) *flag.FlagSet {
	fs := flag.NewFlagSet("kalah "+name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.String("data", "", "data directory for everything kalah keeps (default $"+datadir.Env+", else ./kalah-data if it exists, else ~/.local/share/kalah)")
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

// quietOnTerminal keeps a command's informational logs off a terminal,
// where its own progress and tables speak, unless verbose or $KALAH_LOG
// asks for them; off a terminal (a log file, CI) they stay.
func quietOnTerminal(e *env, verbose bool) {
	if verbose || os.Getenv("KALAH_LOG") != "" || !stderrIsTerminal(e.stderr) {
		return
	}
	e.log = slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
}
