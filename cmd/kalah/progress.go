package main

import (
	"fmt"
	"sync"
	"time"

	"kalah/engine"
)

// status shows how a long job goes: on a terminal one line on standard
// error, rewritten at most ten times a second; otherwise a plain log line
// every ten seconds.
type status struct {
	e    *env
	what string
	tty  bool
	// bounds: show the value's bounds (they are the root's in a solve, a
	// move's in an analysis, where they would mislead).
	bounds bool
	mu     sync.Mutex
	last   time.Time
	shown  bool
}

func newStatus(e *env, what string) *status {
	// Off a terminal the first line comes after ten seconds: short jobs log
	// nothing.
	return &status{e: e, what: what, tty: stderrIsTerminal(e.stderr), last: time.Now()}
}

// show reports text, unless the last report was too recent.
func (p *status) show(text string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	every := 10 * time.Second
	if p.tty {
		every = 100 * time.Millisecond
	}
	if (p.shown || !p.tty) && now.Sub(p.last) < every {
		return
	}
	p.last, p.shown = now, true
	if p.tty {
		fmt.Fprintf(p.e.stderr, "\r\x1b[K%s: %s", p.what, text)
		return
	}
	p.e.log.Info(p.what, "progress", text)
}

// done clears the terminal line.
func (p *status) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tty && p.shown {
		fmt.Fprint(p.e.stderr, "\r\x1b[K")
	}
}

// searchProgress returns an engine.Options.Progress that shows the search.
func searchProgress(p *status) func(engine.Progress) {
	return func(s engine.Progress) {
		iter := "exact search"
		if s.Depth > 0 {
			iter = fmt.Sprintf("depth %d", s.Depth)
		}
		bound := ""
		if p.bounds {
			bound = fmt.Sprintf(", value in [%+d, %+d]", s.Lo, s.Hi)
			if s.Lo == s.Hi {
				bound = fmt.Sprintf(", value %+d", s.Lo)
			} else if s.Running {
				bound += fmt.Sprintf(", testing %+d", s.Testing)
			}
		}
		nps := 0.0
		if s.Elapsed > 0 {
			nps = float64(s.Nodes) / s.Elapsed.Seconds()
		}
		p.show(fmt.Sprintf("%s%s, %s nodes, %s nodes/s, %v", iter, bound, si(float64(s.Nodes)), si(nps), s.Elapsed.Round(100*time.Millisecond)))
	}
}

// si writes n with a k, M or G suffix.
func si(n float64) string {
	switch {
	case n >= 1e9:
		return fmt.Sprintf("%.2f G", n/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.1f M", n/1e6)
	case n >= 1e3:
		return fmt.Sprintf("%.1f k", n/1e3)
	}
	return fmt.Sprintf("%.0f", n)
}
