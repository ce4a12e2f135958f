package server

import (
	"net/http"

	"kalah/internal/identity"
	"kalah/internal/store"
	"kalah/referee"
	"kalah/server/core"
	"kalah/server/social"
	"kalah/server/views"
)

// The games' chats, the follows and the profiles are package
// server/social's; this file is what it asks of the server (socialHost)
// and the names the rest of the server and its clients know them by.

// The chat rooms of a game, and the bounds of its chat and of follows.
const (
	RoomPlayers    = social.RoomPlayers
	RoomSpectators = social.RoomSpectators
	MaxChatText    = social.MaxChatText
	MaxChatLines   = social.MaxChatLines
	MaxFollows     = social.MaxFollows
)

// ChatView is a game's chat as one reader sees it.
type ChatView = social.ChatView

// Following is what GET /api/account/following answers: the players the
// person follows, and the live games they play.
type Following = social.Following[GameInfo]

// ArchiveGame is a finished game in a player's archive, seen from their
// side (views.ArchiveGame).
type ArchiveGame = views.ArchiveGame

// socialHost is what package social asks of the server.
type socialHost struct{ s *Server }

func (h socialHost) Actor(w http.ResponseWriter, r *http.Request, token string, guest bool) core.Actor {
	return h.s.actor(w, r, token, guest)
}

func (h socialHost) SessionUser(r *http.Request) string { return h.s.sessionUser(r) }

func (h socialHost) GameID(r *http.Request) (int64, error) { return h.s.pathID(r) }

func (h socialHost) LiveSeats(id int64) (seats [2]store.Seat, tags map[string]string, over, ok bool) {
	rd := h.s.live.Get(id)
	if rd == nil {
		return seats, nil, false, false
	}
	v := rd.View()
	if v == nil || v.Ended {
		return seats, nil, false, false
	}
	return v.Seats, v.Tags, v.Over, true
}

func (h socialHost) TokenIs(hash, token string) bool { return hashIs(hash, token) }

func (h socialHost) Setup(tags map[string]string) (referee.Referee, bool) {
	casual, ref := h.s.settings(tags)
	return ref, casual
}

func (h socialHost) Refused(reason string) { h.s.refused(reason) }

func (h socialHost) PlayedBy(players []identity.ID) []GameInfo { return h.s.views.PlayedBy(players) }
