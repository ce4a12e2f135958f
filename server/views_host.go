package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"kalah/internal/httpapi"
	"kalah/internal/identity"
	"kalah/internal/netx"
	"kalah/internal/store"
	"kalah/referee"
	"kalah/server/views"
)

// The views of games, what the API and the page show of them, are package
// views' (server/views). These are the names the rest of the server, and
// its clients, know them by.
type (
	// GameInfo sums up a game for lists.
	GameInfo = views.GameInfo
	// GameView is one game in full.
	GameView = views.GameView
	// Board is a game as a page draws it.
	Board = views.Board
	// Seat is one seat of a Board.
	Seat = views.Seat
	// BoardMove is one move of a Board.
	BoardMove = views.BoardMove
	// Imported is a game played elsewhere to be kept in the store.
	Imported = views.Imported
)

// viewsHost is what the views ask of the server.
type viewsHost struct{ s *Server }

func (h viewsHost) Rounds() []*round { return h.s.live.All() }

func (h viewsHost) Round(id int64) *round { return h.s.live.Get(id) }

func (h viewsHost) Stored(ctx context.Context, id int64) (store.Game, error) {
	return h.s.st.Game(ctx, id)
}

func (h viewsHost) Games(ctx context.Context, f store.Filter) ([]store.Game, error) {
	return h.s.st.Games(ctx, f)
}

func (h viewsHost) Settings(tags map[string]string) (bool, referee.Referee) {
	su := h.s.setupOf(tags)
	ref := h.s.referee()
	if su.ref != nil {
		ref = *su.ref
	}
	return su.casual, ref
}

func (h viewsHost) SeatRatings(ctx context.Context, v GameView, seats [2]store.Seat) [2]*SeatRating {
	return h.s.seatRatings(ctx, v, seats)
}

func (h viewsHost) ImportedGame(ctx context.Context, webID string) (int64, error) {
	return h.s.ImportedGame(ctx, webID)
}

func (h viewsHost) ImportGame(ctx context.Context, im Imported) (int64, error) {
	return h.s.ImportGame(ctx, im)
}

// LiveGames returns the games being played, oldest first.
func (s *Server) LiveGames() []GameInfo { return s.views.LiveGames() }

// FinishedGames returns up to limit finished games from the store, newest
// first, with ids below before (0: from the newest); who, if set, keeps
// only that identity's games.
func (s *Server) FinishedGames(ctx context.Context, limit int, before int64, who identity.ID) ([]GameInfo, error) {
	return s.views.FinishedGames(ctx, limit, before, who)
}

// Game returns game id: its stored record and, if it is being played, its
// live state.
func (s *Server) Game(ctx context.Context, id int64) (GameView, error) {
	return s.views.Game(ctx, id)
}

// BoardOf returns game id as a page draws it.
func (s *Server) BoardOf(ctx context.Context, id int64) (Board, error) {
	return s.views.BoardOf(ctx, id)
}

// ImportSavedGames moves the games an older release's page kept in dir
// into the server's store (views.ImportSavedGames).
func (s *Server) ImportSavedGames(ctx context.Context, dir string, log *slog.Logger) (int, error) {
	return s.views.ImportSavedGames(ctx, dir, log)
}

// GameID resolves a game's id as a page may give it: the server's number,
// or the id a game imported from an older release's page had there.
func (s *Server) GameID(ctx context.Context, id string) (int64, error) {
	if n, err := strconv.ParseInt(id, 10, 64); err == nil {
		return n, nil
	}
	if n, err := strconv.ParseInt(strings.TrimPrefix(id, "s"), 10, 64); err == nil && strings.HasPrefix(id, "s") {
		return n, nil // the page's links of the release before
	}
	if id != "" && len(id) <= 40 {
		if n, err := s.ImportedGame(ctx, id); err == nil {
			return n, nil
		}
	}
	return 0, fmt.Errorf("game %q: %w", id, ErrNotFound)
}

// boardID reads {id} of a board route.
func (s *Server) boardID(r *http.Request) (int64, error) {
	return s.GameID(r.Context(), r.PathValue("id"))
}

func (s *Server) apiBoard(w http.ResponseWriter, r *http.Request) {
	id, err := s.boardID(r)
	if err != nil {
		httpapi.WriteError(w, err)
		return
	}
	b, err := s.BoardOf(r.Context(), id)
	if err != nil {
		httpapi.WriteError(w, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, b)
}

// apiRecord answers a game's record in the text notation, to download.
func (s *Server) apiRecord(w http.ResponseWriter, r *http.Request) {
	id, err := s.boardID(r)
	if err != nil {
		httpapi.WriteError(w, err)
		return
	}
	v, err := s.Game(r.Context(), id)
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
	b, err := s.BoardOf(r.Context(), id)
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
func (s *Server) apiBoardEvents(w http.ResponseWriter, r *http.Request) {
	id, err := s.boardID(r)
	if err != nil {
		httpapi.WriteError(w, err)
		return
	}
	// Subscribe before reading, so no change falls between the two.
	events, stop, serr := s.Subscribe(id, s.actor(w, r, "", false))
	if serr == nil {
		defer stop()
	}
	b, err := s.BoardOf(r.Context(), id)
	if err != nil {
		httpapi.WriteError(w, err)
		return
	}
	// The game's chat, the lines this reader may read (chat.go).
	chat, stopChat := s.chatFeed(r.Context(), id, s.actor(w, r, "", false))
	defer stopChat()
	netx.LongLived(w)
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	ping := time.NewTicker(15 * time.Second)
	defer ping.Stop()
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
		case <-s.ctx.Done():
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
				serr = ErrNotFound // the game ended: one last look
			}
		}
		if b, err = s.BoardOf(r.Context(), id); err != nil {
			return
		}
	}
}
