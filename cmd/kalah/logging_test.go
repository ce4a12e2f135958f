package main

import (
	"bytes"
	"log"
	"log/slog"
	"regexp"
	"strings"
	"testing"
	"time"
)

// goLogLine is a line in the log package's default form, the one slog's
// default logger writes: "2026/11/28 02:21:22 WARN ...".
var goLogLine = regexp.MustCompile(`(?m)^\d{4}/\d\d/\d\d \d\d:\d\d:\d\d `)

// TestOneLogFormat checks that what packages log through slog's default
// logger, and the log package itself, comes out in the command's one form:
// in words on a terminal, slog's text form elsewhere, with numbers rounded
// for a person; and that lines held while a full screen is up come out
// once, after it.
func TestOneLogFormat(t *testing.T) {
	defer slog.SetDefault(slog.Default())
	defer log.SetOutput(log.Writer())
	defer log.SetFlags(log.Flags())
	for _, tc := range []struct {
		name     string
		terminal bool
		want     []string
	}{
		{"terminal", true, []string{
			"kalah play: warning: no endgame database (seeds: 24, llr: 2.66, took: 1.23s)\n",
		}},
		{"pipe", false, []string{
			`level=WARN msg="no endgame database" seeds=24 llr=2.66 took=1.23s` + "\n",
			`level=INFO msg="from the log package"` + "\n",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			e := &env{stderr: &buf, name: "play", log: loggerFor(&buf, tc.terminal, "kalah play")}
			defaultLogs(e)
			slog.Warn("no endgame database", "seeds", 24, "llr", 2.6616278164550953, "took", 1234567891*time.Nanosecond)
			log.Print("from the log package")
			out := buf.String()
			if goLogLine.MatchString(out) {
				t.Errorf("a line in the log package's form:\n%s", out)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("no %q in:\n%s", w, out)
				}
			}
			if strings.Contains(out, "2.6616") {
				t.Errorf("a raw float:\n%s", out)
			}
		})
	}

	// While a full screen is up: held, then written once each.
	var term bytes.Buffer
	held := &heldLines{w: &term}
	e := &env{stderr: held, name: "play"}
	e.log = heldLogger(e, held)
	defaultLogs(e)
	slog.Warn("no endgame database")
	slog.Warn("no endgame database")
	if term.Len() != 0 {
		t.Fatalf("written while the screen is up: %q", term.String())
	}
	held.release()
	if got, want := term.String(), "kalah play: warning: no endgame database\n"; got != want {
		t.Errorf("after the screen: %q, want %q", got, want)
	}
	slog.Warn("later")
	if !strings.HasSuffix(term.String(), "kalah play: warning: later\n") {
		t.Errorf("after release lines are not written through: %q", term.String())
	}
}
