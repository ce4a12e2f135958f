package server

import (
	"context"
	"log/slog"
	"net/http"

	"kalah/internal/identity"
	"kalah/internal/store"
	"kalah/referee"
	"kalah/server/social"
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
	return h.s.settings(tags)
}

// settings returns a game's casualness and referee, from its tags (the
// server's referee where the tags name none).
func (s *Server) settings(tags map[string]string) (bool, referee.Referee) {
	su := s.setupOf(tags)
	ref := s.referee()
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

func (h viewsHost) Context() context.Context { return h.s.ctx }

func (h viewsHost) Identity(ctx context.Context, name string) (identity.ID, error) {
	return h.s.st.Identity(ctx, name)
}

func (h viewsHost) Actor(w http.ResponseWriter, r *http.Request) Actor {
	return h.s.actor(w, r, "", false)
}

func (h viewsHost) ActorErr(w http.ResponseWriter, r *http.Request, token string) (Actor, error) {
	return h.s.actorErr(w, r, token, false)
}

func (h viewsHost) Archive(ctx context.Context, games []social.Game, who identity.ID) []social.ArchiveRow {
	return h.s.social.Archive(ctx, games, who)
}

func (h viewsHost) Relation(r *http.Request, player identity.ID) (int, bool) {
	return h.s.social.Relation(r, player)
}

func (h viewsHost) ChatFeed(ctx context.Context, id int64, a Actor) (<-chan store.ChatLine, func()) {
	return h.s.social.Feed(ctx, id, a)
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
	return s.views.GameID(ctx, id)
}

// Subscribe returns the events of live game id as they happen, and a
// function to stop (views.Subscribe).
func (s *Server) Subscribe(id int64, who Actor) (<-chan Event, func(), error) {
	return s.views.Subscribe(id, who)
}
