package server

import (
	"context"
	"net/http"
	"slices"

	"kalah/internal/identity"
	"kalah/internal/store"
	"kalah/referee"
	"kalah/server/core"
	"kalah/server/social"
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
// side: the game, and what it was for the player.
type ArchiveGame struct {
	GameInfo
	social.ArchiveRow
}

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

func (h socialHost) PlayedBy(players []identity.ID) []GameInfo {
	var out []GameInfo
	for _, g := range h.s.LiveGames() {
		if slices.ContainsFunc(players, func(id identity.ID) bool { return id.Is(g.SouthID) || id.Is(g.NorthID) }) {
			out = append(out, g)
		}
	}
	return out
}

// archive returns games as who's archive.
func (s *Server) archive(ctx context.Context, games []GameInfo, who identity.ID) []ArchiveGame {
	in := make([]social.Game, len(games))
	for i, g := range games {
		in[i] = social.Game{ID: g.ID, South: g.South, North: g.North, SouthID: g.SouthID, NorthID: g.NorthID,
			Rules: g.Rules, Result: g.Result, Termination: g.Termination, Tags: g.Tags}
	}
	out := make([]ArchiveGame, len(games))
	for i, row := range s.social.Archive(ctx, in, who) {
		out[i] = ArchiveGame{GameInfo: games[i], ArchiveRow: row}
	}
	return out
}

// profileExtras fills what a profile says of its reader's relation to the
// player: whether they follow them, and how many do.
func (s *Server) profileExtras(r *http.Request, p *Profile) {
	p.Followers, p.Following = s.social.Relation(r, p.ID)
}
