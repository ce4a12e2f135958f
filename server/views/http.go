package views

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"kalah/internal/httpapi"
	"kalah/internal/identity"
	"kalah/internal/netx"
	"kalah/internal/store"
	"kalah/server/core"
	"kalah/server/limits"
	"kalah/server/round"
)

// The views' routes: the games' lists and views, their records and the
// event streams that follow them. The game's commands (moves, draws,
// takebacks, ...) are the server's own routes.

// Routes registers the views' routes on mux; streamed serves a handler as
// a long-lived request under the server's limits (limits.Streamer).
func (vs *Views) Routes(mux *http.ServeMux, streamed func(kind string, h http.HandlerFunc) http.HandlerFunc) {
	mux.HandleFunc("GET /api/games", vs.apiGames)
	mux.HandleFunc("GET /api/games/{id}", vs.apiGame)
	mux.HandleFunc("GET /api/games/{id}/events", streamed(limits.StreamEvents, vs.apiEvents))
	mux.HandleFunc("GET /api/games/{id}/board", vs.apiBoard)
	mux.HandleFunc("GET /api/games/{id}/record", vs.apiRecord)
	mux.HandleFunc("GET /api/games/{id}/board/events", streamed(limits.StreamBoard, vs.apiBoardEvents))
}

// Subscribe returns the events of live game id as they happen, and a
// function to stop. The channel is closed when the game ends (after its
// "end" event), when the server stops, or when the subscriber falls more
// than 64 events behind. who, if it plays a seat of the game, is there
// while it follows (a person with the game open is not "gone").
func (vs *Views) Subscribe(id int64, who core.Actor) (<-chan round.Event, func(), error) {
	rd := vs.h.Round(id)
	if rd == nil {
		return nil, nil, fmt.Errorf("live game %d: %w", id, core.ErrNotFound)
	}
	ch := make(chan round.Event, 64)
	ctx, cancel := context.WithTimeout(vs.h.Context(), 10*time.Second)
	defer cancel()
	if err := rd.Subscribe(ctx, ch, who); err != nil {
		return nil, nil, fmt.Errorf("live game %d: %w", id, core.ErrNotFound)
	}
	stop := func() {
		if !rd.Unsubscribe(ch) {
			// The loop ended and closed every channel.
		}
	}
	return ch, stop, nil
}

// GameID resolves a game's id as a page may give it: the server's number,
// or the id a game imported from an older release's page had there.
func (vs *Views) GameID(ctx context.Context, id string) (int64, error) {
	if n, err := strconv.ParseInt(id, 10, 64); err == nil {
		return n, nil
	}
	if n, err := strconv.ParseInt(strings.TrimPrefix(id, "s"), 10, 64); err == nil && strings.HasPrefix(id, "s") {
		return n, nil // the page's links of the release before
	}
	if id != "" && len(id) <= 40 {
		if n, err := vs.h.ImportedGame(ctx, id); err == nil {
			return n, nil
		}
	}
	return 0, fmt.Errorf("game %q: %w", id, core.ErrNotFound)
}

// PathID reads a route's {id}: a game's number, or an id GameID knows.
func (vs *Views) PathID(r *http.Request) (int64, error) {
	return vs.GameID(r.Context(), r.PathValue("id"))
}

func (vs *Views) apiGames(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	status := q.Get("status")
	if status != "" && status != "live" && status != "finished" {
		httpapi.WriteError(w, fmt.Errorf("%w: status %q: want live or finished (or none: both)", core.ErrBadRequest, status))
		return
	}
	var who identity.ID
	if name := q.Get("player"); name != "" {
		var err error
		if who, err = vs.h.Identity(r.Context(), name); errors.Is(err, store.ErrNotFound) {
			httpapi.WriteJSON(w, http.StatusOK, []GameInfo{}) // nobody of that name: no games
			return
		} else if err != nil {
			httpapi.WriteError(w, err)
			return
		}
	}
	// Every game, the people's on the page, the bots' and the KGP
	// clients', in one list: the live ones first, then the finished ones,
	// newest first (paged with limit and before).
	games := []GameInfo{}
	if status != "finished" {
		for _, g := range vs.LiveGames() {
			if who.IsZero() || who.Is(g.SouthID) || who.Is(g.NorthID) {
				games = append(games, g)
			}
		}
		if status == "live" {
			httpapi.WriteJSON(w, http.StatusOK, games)
			return
		}
	}
	limit, _ := strconv.Atoi(q.Get("limit"))
	before, _ := strconv.ParseInt(q.Get("before"), 10, 64)
	done, err := vs.FinishedGames(r.Context(), min(max(limit, 0), 1000), before, who)
	if err != nil {
		httpapi.WriteError(w, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, append(games, done...))
}

func (vs *Views) apiGame(w http.ResponseWriter, r *http.Request) {
	id, err := vs.PathID(r)
	if err == nil {
		var v GameView
		if v, err = vs.Game(r.Context(), id); err == nil {
			httpapi.WriteJSON(w, http.StatusOK, v)
			return
		}
	}
	httpapi.WriteError(w, err)
}

func (vs *Views) apiEvents(w http.ResponseWriter, r *http.Request) {
	id, err := vs.PathID(r)
	if err != nil {
		httpapi.WriteError(w, err)
		return
	}
	ch, cancel, err := vs.Subscribe(id, vs.h.Actor(w, r))
	if err != nil {
		httpapi.WriteError(w, err)
		return
	}
	defer cancel()
	netx.LongLived(w)
	fl, _ := w.(http.Flusher)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	if fl != nil {
		fl.Flush()
	}
	done := vs.h.Context().Done()
	for {
		select {
		case e, ok := <-ch:
			if !ok {
				return
			}
			b, _ := json.Marshal(e)
			fmt.Fprintf(w, "event: %s\ndata: %s\n\n", e.Kind, b)
			if fl != nil {
				fl.Flush()
			}
		case <-r.Context().Done():
			return
		case <-done:
			return
		}
	}
}

func (vs *Views) apiBoard(w http.ResponseWriter, r *http.Request) {
	id, err := vs.PathID(r)
	vs.AnswerBoard(w, r, id, err)
}

// apiRecord answers a game's record in the text notation, to download.
func (vs *Views) apiRecord(w http.ResponseWriter, r *http.Request) {
	id, err := vs.PathID(r)
	if err != nil {
		httpapi.WriteError(w, err)
		return
	}
	v, err := vs.Game(r.Context(), id)
	if err != nil {
		httpapi.WriteError(w, err)
		return
	}
	// The record with what a reader wants beside the moves: the date, the
	// players' ratings, the clock and why it ended.
	rec := v.Record
	tags := map[string]string{}
	for k, val := range rec.Tags {
		tags[k] = val
	}
	tags["Date"] = v.Created.UTC().Format("2006-01-02")
	tags["Site"] = "kalah serve"
	b, err := vs.BoardOf(r.Context(), id)
	if err != nil {
		httpapi.WriteError(w, err)
		return
	}
	for i, side := range []string{"South", "North"} {
		if rt := b.Ratings[i]; rt != nil {
			tags[side+"Rating"] = strconv.Itoa(rt.Rating)
		}
	}
	if b.ClockMS > 0 {
		tags["TimeControl"] = fmt.Sprintf("%d+%d", b.ClockMS/1000, b.IncrementMS/1000)
	}
	rec.Tags = tags
	text := b.Record
	if g, err := rec.Game(); err == nil && v.Status == store.Finished {
		text = g.String()
	} else if g, err := store.Replay(rec); err == nil {
		g.Tags = tags
		text = g.String()
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", "kalah-"+b.ID+".txt"))
	io.WriteString(w, text)
}

// apiBoardEvents streams a game's Board as Server-Sent Events, one "state"
// event each time it changes, until the game is over or the client goes.
func (vs *Views) apiBoardEvents(w http.ResponseWriter, r *http.Request) {
	id, err := vs.PathID(r)
	if err != nil {
		httpapi.WriteError(w, err)
		return
	}
	// Subscribe before reading, so no change falls between the two.
	events, stop, serr := vs.Subscribe(id, vs.h.Actor(w, r))
	if serr == nil {
		defer stop()
	}
	b, err := vs.BoardOf(r.Context(), id)
	if err != nil {
		httpapi.WriteError(w, err)
		return
	}
	// The game's chat, the lines this reader may read (package social).
	chat, stopChat := vs.h.ChatFeed(r.Context(), id, vs.h.Actor(w, r))
	defer stopChat()
	netx.LongLived(w)
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	ping := time.NewTicker(15 * time.Second)
	defer ping.Stop()
	done := vs.h.Context().Done()
	last, lastAsk, lastAway, lastTrouble, lastDraw, lastSpect := -1, -2, [2]bool{}, "", -2, -1
	for {
		away := [2]bool{b.Seats[0].Away, b.Seats[1].Away}
		if b.Version != last || b.TakebackAsk != lastAsk || away != lastAway || b.Trouble != lastTrouble || b.DrawOffer != lastDraw || b.Spectators != lastSpect {
			lastAsk, lastAway, lastTrouble, lastDraw, lastSpect = b.TakebackAsk, away, b.Trouble, b.DrawOffer, b.Spectators
			data, _ := json.Marshal(b)
			if _, err := fmt.Fprintf(w, "event: state\ndata: %s\n\n", data); err != nil {
				return
			}
			if err := rc.Flush(); err != nil {
				return
			}
			last = b.Version
		}
		if serr != nil {
			// Over: nothing more will happen. Keep the stream open, quietly,
			// so the page does not reconnect in a loop.
			events = nil
		}
		select {
		case <-r.Context().Done():
			return
		case <-done:
			return
		case <-ping.C:
			if _, err := io.WriteString(w, ": ping\n\n"); err != nil {
				return
			}
			rc.Flush()
			continue
		case c := <-chat:
			data, _ := json.Marshal(c)
			if _, err := fmt.Fprintf(w, "event: chat\ndata: %s\n\n", data); err != nil {
				return
			}
			rc.Flush()
			continue
		case _, ok := <-events:
			if !ok {
				serr = core.ErrNotFound // the game ended: one last look
			}
		}
		if b, err = vs.BoardOf(r.Context(), id); err != nil {
			return
		}
	}
}
