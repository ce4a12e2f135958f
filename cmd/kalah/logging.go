package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
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
	if os.Getenv("KALAH_LOG") != "" {
		return textLogger(w, logLevel())
	}
	if stderrIsTerminal(w) {
		return slog.New(&wordsHandler{w: w, prefix: prefix, level: slog.LevelWarn, mu: new(sync.Mutex)})
	}
	return textLogger(w, slog.LevelInfo)
}

func textLogger(w io.Writer, l slog.Level) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: l}))
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
		kv = append(kv, k+": "+a.Value.Resolve().String())
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
