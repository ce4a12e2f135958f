package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Logs: with --log-level (or $KALAH_LOG) a command logs records at that
// level, slog's text form, for whoever reads its standard error later. Off
// a terminal (a file, a pipe, CI) it logs at info level in the same form.
// On a terminal, where a person reads, it logs nothing but warnings and
// errors, and those in words ("kalah match: warning: ..."): progress goes
// on a line rewritten in place, and results are the command's own output.

// newLogger returns the logger a command starts with: prefix is "kalah
// CMD", for the words on a terminal.
func newLogger(w io.Writer, prefix string) *slog.Logger {
	return loggerFor(w, stderrIsTerminal(w), prefix)
}

// loggerFor is newLogger for a writer that stands for a terminal or not
// (a terminal's lines held back while a full screen is up).
func loggerFor(w io.Writer, terminal bool, prefix string) *slog.Logger {
	if os.Getenv("KALAH_LOG") != "" {
		return textLogger(w, logLevel())
	}
	if terminal {
		return slog.New(&wordsHandler{w: w, prefix: prefix, level: slog.LevelWarn, mu: new(sync.Mutex)})
	}
	return textLogger(w, slog.LevelInfo)
}

func textLogger(w io.Writer, l slog.Level) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: l, ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		a.Value = readable(a.Value)
		return a
	}}))
}

// readable rounds a number for a person to read: a float to two decimals
// (four significant digits when it is smaller), a duration of a second or
// more to the hundredth of a second ("llr=2.66", not 2.6616278164550953).
func readable(v slog.Value) slog.Value {
	switch v.Kind() {
	case slog.KindFloat64:
		f := v.Float64()
		if math.IsInf(f, 0) || math.IsNaN(f) || f == math.Trunc(f) {
			return v
		}
		if math.Abs(f) >= 0.01 {
			return slog.StringValue(strconv.FormatFloat(f, 'f', 2, 64))
		}
		return slog.StringValue(strconv.FormatFloat(f, 'g', 4, 64))
	case slog.KindDuration:
		if d := v.Duration(); d >= time.Second {
			return slog.DurationValue(d.Round(10 * time.Millisecond))
		}
	}
	return v
}

// defaultLogs makes slog's default logger, which packages with no logger
// of their own use (the engine's notes, the play screen's), write through
// the command's logger, whatever it is by then: one format on standard
// error, in words on a terminal, and none of the log package's
// "2026/11/28 02:21:22 WARN ..." lines. The log package's output goes the
// same way.
func defaultLogs(e *env) { slog.SetDefault(slog.New(envHandler{e: e})) }

// envHandler hands each record to the command's logger of the moment.
type envHandler struct {
	e   *env
	ops []func(slog.Handler) slog.Handler // WithAttrs and WithGroup, in order
}

func (h envHandler) handler() slog.Handler {
	hh := h.e.log.Handler()
	for _, op := range h.ops {
		hh = op(hh)
	}
	return hh
}

func (h envHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.e.log.Handler().Enabled(ctx, l)
}

func (h envHandler) Handle(ctx context.Context, r slog.Record) error {
	return h.handler().Handle(ctx, r)
}

func (h envHandler) WithAttrs(as []slog.Attr) slog.Handler {
	h.ops = append(h.ops[:len(h.ops):len(h.ops)], func(x slog.Handler) slog.Handler { return x.WithAttrs(as) })
	return h
}

func (h envHandler) WithGroup(name string) slog.Handler {
	h.ops = append(h.ops[:len(h.ops):len(h.ops)], func(x slog.Handler) slog.Handler { return x.WithGroup(name) })
	return h
}

// heldLogger is the command's logger writing to held instead: at the
// level asked for, in words unless a level was asked for.
func heldLogger(e *env, held *heldLines) *slog.Logger {
	if !explicitLogs(e) {
		return loggerFor(held, true, "kalah "+e.name)
	}
	l := slog.LevelError
	for _, x := range []slog.Level{slog.LevelDebug, slog.LevelInfo, slog.LevelWarn} {
		if e.log.Enabled(context.Background(), x) {
			l = x
			break
		}
	}
	return textLogger(held, l)
}

// heldLines keeps what is written to it while a full screen owns the
// terminal, and writes it (each line once) when released; from then on it
// writes through.
type heldLines struct {
	mu       sync.Mutex
	w        io.Writer
	held     []string
	released bool
}

func (h *heldLines) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.released {
		return h.w.Write(p)
	}
	h.held = append(h.held, string(p))
	return len(p), nil
}

// release writes the lines held so far, each distinct one once.
func (h *heldLines) release() {
	h.mu.Lock()
	defer h.mu.Unlock()
	seen := map[string]bool{}
	for _, s := range h.held {
		if !seen[s] {
			seen[s] = true
			io.WriteString(h.w, s)
		}
	}
	h.held, h.released = nil, true
}

// parseLevel reads a level's name.
func parseLevel(s string) (slog.Level, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "debug":
		return slog.LevelDebug, nil
	case "info":
		return slog.LevelInfo, nil
	case "warn", "warning":
		return slog.LevelWarn, nil
	case "error":
		return slog.LevelError, nil
	}
	return 0, fmt.Errorf("log level %q: want debug, info, warn or error", s)
}

// logLevel is $KALAH_LOG's level, info if it is unset or unknown.
func logLevel() slog.Level {
	if l, err := parseLevel(os.Getenv("KALAH_LOG")); err == nil {
		return l
	}
	return slog.LevelInfo
}

// explicitLogs reports whether the person asked for logs at some level
// (--log-level or $KALAH_LOG), which the commands then leave alone.
func explicitLogs(e *env) bool { return e.logSet || os.Getenv("KALAH_LOG") != "" }

// verboseLogs gives a command's -v: its info logs even on a terminal,
// unless a level was asked for.
func verboseLogs(e *env, verbose bool) {
	if verbose && !explicitLogs(e) {
		e.log = textLogger(e.stderr, slog.LevelInfo)
	}
}

// wordsHandler writes a record as a line for a person: "kalah serve:
// warning: cannot write --ready-file (err: permission denied)".
type wordsHandler struct {
	w      io.Writer
	prefix string
	level  slog.Level
	attrs  []slog.Attr
	group  string
	mu     *sync.Mutex
}

func (h *wordsHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= h.level }

func (h *wordsHandler) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	if h.prefix != "" {
		b.WriteString(h.prefix + ": ")
	}
	switch {
	case r.Level >= slog.LevelError:
		b.WriteString("error: ")
	case r.Level >= slog.LevelWarn:
		b.WriteString("warning: ")
	}
	b.WriteString(r.Message)
	var kv []string
	add := func(a slog.Attr) {
		if a.Equal(slog.Attr{}) {
			return
		}
		k := a.Key
		if h.group != "" {
			k = h.group + "." + k
		}
		kv = append(kv, k+": "+readable(a.Value.Resolve()).String())
	}
	for _, a := range h.attrs {
		add(a)
	}
	r.Attrs(func(a slog.Attr) bool { add(a); return true })
	if len(kv) > 0 {
		b.WriteString(" (" + strings.Join(kv, ", ") + ")")
	}
	b.WriteString("\n")
	h.mu.Lock()
	defer h.mu.Unlock()
	_, err := io.WriteString(h.w, b.String())
	return err
}

func (h *wordsHandler) WithAttrs(as []slog.Attr) slog.Handler {
	c := *h
	c.attrs = append(append([]slog.Attr(nil), h.attrs...), as...)
	return &c
}

func (h *wordsHandler) WithGroup(name string) slog.Handler {
	c := *h
	if c.group != "" {
		name = c.group + "." + name
	}
	c.group = name
	return &c
}
