package arranged

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"

	"kalah/internal/httpapi"
	"kalah/internal/netx"
	"kalah/server/client"
	"kalah/server/core"
)

// KeepAlive is how often POST /api/arranged sends a newline while its
// game is played, so proxies and NATs do not drop a quiet connection (a
// variable for tests).
var KeepAlive = 20 * time.Second

// Routes registers the arranged games' routes on mux.
func (s *Service) Routes(mux *http.ServeMux) {
	mux.HandleFunc("POST /api/arranged", s.apiArranged)
	mux.HandleFunc("GET /api/bots", s.apiBots)
}

// apiArranged plays one game with the server's bots and answers once it
// is over. The status line and the GameHeader go out as soon as the game
// starts, then a newline now and then while it is played, then the
// ArrangedReply; errors found before the start have their own status
// (400, 403, 503 with Retry-After when the server is full). A client that
// goes away leaves the game playing on.
func (s *Service) apiArranged(w http.ResponseWriter, r *http.Request) {
	if !s.h.Admitted(w, r, "POST /api/arranged") {
		return
	}
	var req client.ArrangedRequest
	if err := httpapi.ReadJSON(w, r, &req); err != nil {
		httpapi.WriteError(w, err)
		return
	}
	a, err := req.Arranged()
	if err != nil {
		httpapi.WriteError(w, err)
		return
	}
	if s.h.Open() {
		// No admin token: whoever asks may arrange games, but a bot is
		// entered only by its owner or its own acceptance.
		for _, spec := range []string{a.South, a.North} {
			if name, ok, _ := client.BotName(spec); ok {
				if err := s.h.MayEnter(r, name); err != nil {
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
		w.Header().Set(client.GameHeader, strconv.FormatInt(id, 10))
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
		t := time.NewTicker(KeepAlive)
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
	res, err := s.Play(r.Context(), a)
	close(stop)
	<-alive
	if !started {
		switch {
		case errors.Is(err, core.ErrBusy):
			w.Header().Set("Retry-After", "1")
			httpapi.WriteError(w, err)
		case err != nil:
			httpapi.WriteError(w, err)
		default:
			httpapi.WriteJSON(w, http.StatusOK, client.ArrangedReply{ID: res.ID, Record: res.Record, Reason: res.Reason})
		}
		return
	}
	reply := client.ArrangedReply{ID: res.ID, Record: res.Record, Reason: res.Reason}
	switch {
	case r.Context().Err() != nil:
		// The client left (no one reads this) or the server is stopping.
		reply = client.ArrangedReply{ID: res.ID, Error: "the server stops following the game: " + core.ErrClosed.Error()}
	case err != nil:
		reply = client.ArrangedReply{ID: res.ID, Error: err.Error()}
	}
	json.NewEncoder(w).Encode(reply)
}

// apiBots lists the bots that take arranged games: a JSON array of names.
func (s *Service) apiBots(w http.ResponseWriter, r *http.Request) {
	bots := s.h.WaitingBots()
	if bots == nil {
		bots = []string{}
	}
	httpapi.WriteJSON(w, http.StatusOK, bots)
}
