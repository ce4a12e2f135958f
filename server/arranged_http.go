package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"kalah"
	"kalah/internal/httpapi"
	"kalah/internal/netx"
	"kalah/player"
)

// ArrangedRequest is the JSON body of POST /api/arranged: an Arranged
// game, with durations in milliseconds.
type ArrangedRequest struct {
	// Rules of the game; omitted or zero: the server's.
	Rules kalah.Rules `json:"rules,omitzero"`
	// South and North are "bot:NAME" or a player spec the server plays.
	South string `json:"south"`
	North string `json:"north"`
	// Opening moves played before anyone is asked: house numbers from 1,
	// -1 for the swap.
	Opening     []kalah.Move      `json:"opening,omitempty"`
	PerMoveMS   int64             `json:"per_move_ms,omitempty"`
	BudgetMS    int64             `json:"budget_ms,omitempty"`
	IncrementMS int64             `json:"increment_ms,omitempty"`
	GraceMS     int64             `json:"grace_ms,omitempty"`
	DelayMS     int64             `json:"delay_ms,omitempty"`
	Seeds       [2]uint64         `json:"seeds,omitzero"`
	Tags        map[string]string `json:"tags,omitempty"`
	// WaitMS bounds the wait for a bot that is not free; 0: the server's.
	WaitMS int64 `json:"wait_ms,omitempty"`
}

// ArrangedReply is the JSON answer of POST /api/arranged once the game is
// over: its id in the server's store, its record and, for a forfeit or
// adjudication, why. Error is set instead when the game started but
// could not be followed to its end (the server is stopping).
type ArrangedReply struct {
	ID     int64        `json:"id"`
	Record kalah.Record `json:"record,omitzero"`
	Reason string       `json:"reason,omitempty"`
	Error  string       `json:"error,omitempty"`
}

// GameHeader names the response header of POST /api/arranged that carries
// the game's id as soon as it has started.
const GameHeader = "Kalah-Game"

// arrangedKeepAlive is how often POST /api/arranged sends a newline while
// its game is played, so proxies and NATs do not drop a quiet connection
// (a variable for tests).
var arrangedKeepAlive = 20 * time.Second

// maxArrangedMS bounds the durations of an ArrangedRequest (a week).
const maxArrangedMS = 7 * 24 * 3600 * 1000

// arranged converts the request to an Arranged, checking that each seat
// is a bot:NAME or a player the server knows. A player the server will not
// start (a program where programs are not allowed, one over its limits)
// is not refused here: PlayArranged forfeits its seat with the reason, and
// the game is stored, so a tournament counts it lost rather than playing
// it anywhere else.
func (s *Server) arranged(req ArrangedRequest) (Arranged, error) {
	a := Arranged{Rules: req.Rules, South: strings.TrimSpace(req.South), North: strings.TrimSpace(req.North),
		Opening: req.Opening, Seeds: req.Seeds, Tags: req.Tags}
	for _, d := range []struct {
		name string
		ms   int64
		to   *time.Duration
	}{{"per_move_ms", req.PerMoveMS, &a.PerMove}, {"budget_ms", req.BudgetMS, &a.Budget},
		{"increment_ms", req.IncrementMS, &a.Increment}, {"grace_ms", req.GraceMS, &a.Grace},
		{"delay_ms", req.DelayMS, &a.Delay}, {"wait_ms", req.WaitMS, &a.Wait}} {
		if d.ms < 0 || d.ms > maxArrangedMS {
			return a, fmt.Errorf("%w: %s %d: want 0 to %d", ErrBadRequest, d.name, d.ms, maxArrangedMS)
		}
		*d.to = time.Duration(d.ms) * time.Millisecond
	}
	for _, spec := range []string{a.South, a.North} {
		if spec == "" {
			return a, fmt.Errorf("%w: south and north are required: bot:NAME or a player spec", ErrBadRequest)
		}
		if _, ok, err := BotName(spec); ok || err != nil {
			if err != nil {
				return a, fmt.Errorf("%w: %w", ErrBadRequest, err)
			}
			continue
		}
		if _, _, err := player.Lookup(spec); err != nil {
			return a, err
		}
	}
	if n, ok, _ := BotName(a.South); ok {
		if m, _, _ := BotName(a.North); m == n {
			return a, fmt.Errorf("%w: bot %s cannot play itself", ErrForbidden, n)
		}
	}
	return a, nil
}

// apiArranged plays one game with the server's bots and answers once it
// is over. The status line and the GameHeader go out as soon as the game
// starts, then a newline now and then while it is played, then the
// ArrangedReply; errors found before the start have their own status
// (400, 403, 503 with Retry-After when the server is full). A client that
// goes away leaves the game playing on.
func (s *Server) apiArranged(w http.ResponseWriter, r *http.Request) {
	if !s.admitted(w, r, "POST /api/arranged") {
		return
	}
	var req ArrangedRequest
	if err := httpapi.ReadJSON(w, r, &req); err != nil {
		httpapi.WriteError(w, err)
		return
	}
	a, err := s.arranged(req)
	if err != nil {
		httpapi.WriteError(w, err)
		return
	}
	if s.cfg.AdminToken == "" {
		// No admin token: whoever asks may arrange games, but a bot is
		// entered only by its owner or its own acceptance.
		org := Organizer{Account: s.sessionUser(r)}
		for _, spec := range []string{a.South, a.North} {
			if name, ok, _ := BotName(spec); ok {
				if err := s.mayEnter(r.Context(), org, name); err != nil {
					httpapi.WriteError(w, err)
					return
				}
			}
		}
	}
	netx.LongLived(w) // the response follows the whole game
	fl, _ := w.(http.Flusher)
	var mu sync.Mutex // guards w and started between this and the keep-alive
	started := false
	a.OnStart = func(id int64) {
		mu.Lock()
		defer mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set(GameHeader, strconv.FormatInt(id, 10))
		w.WriteHeader(http.StatusOK)
		if fl != nil {
			fl.Flush()
		}
		started = true
	}
	stop := make(chan struct{})
	alive := make(chan struct{})
	go func() {
		defer close(alive)
		t := time.NewTicker(arrangedKeepAlive)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				mu.Lock()
				if started {
					io.WriteString(w, "\n")
					if fl != nil {
						fl.Flush()
					}
				}
				mu.Unlock()
			}
		}
	}()
	res, err := s.PlayArranged(r.Context(), a)
	close(stop)
	<-alive
	if !started {
		switch {
		case errors.Is(err, ErrBusy):
			w.Header().Set("Retry-After", "1")
			httpapi.WriteError(w, err)
		case err != nil:
			httpapi.WriteError(w, err)
		default:
			httpapi.WriteJSON(w, http.StatusOK, ArrangedReply{ID: res.ID, Record: res.Record, Reason: res.Reason})
		}
		return
	}
	reply := ArrangedReply{ID: res.ID, Record: res.Record, Reason: res.Reason}
	switch {
	case r.Context().Err() != nil:
		// The client left (no one reads this) or the server is stopping.
		reply = ArrangedReply{ID: res.ID, Error: "the server stops following the game: " + ErrClosed.Error()}
	case err != nil:
		reply = ArrangedReply{ID: res.ID, Error: err.Error()}
	}
	json.NewEncoder(w).Encode(reply)
}

// apiBots lists the bots that take arranged games: a JSON array of names.
func (s *Server) apiBots(w http.ResponseWriter, r *http.Request) {
	bots := s.WaitingBots()
	if bots == nil {
		bots = []string{}
	}
	httpapi.WriteJSON(w, http.StatusOK, bots)
}
