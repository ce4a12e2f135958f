package views

import (
	"context"
	"net/http"
	"strconv"

	"kalah/internal/identity"
	"kalah/internal/store"
	"kalah/server/ratings"
	"kalah/server/social"
)

// ArchiveGame is a finished game in a player's archive, seen from their
// side: the game, and what it was for the player (social.ArchiveRow).
type ArchiveGame struct {
	GameInfo
	social.ArchiveRow
}

// Profile is a player's page: ratings on each ladder, the history, the
// latest games.
type Profile struct {
	Name    string               `json:"name"`
	ID      identity.ID          `json:"id"`
	Ratings []store.Rated        `json:"ratings"`
	History []store.HistoryPoint `json:"history"`
	// Games are the latest finished games, each from the player's side
	// (package social's archive).
	Games []ArchiveGame `json:"games"`
	// Followers count who follows the player; Following says whether the
	// reader does.
	Followers int  `json:"followers"`
	Following bool `json:"following"`
}

// Profile returns p's page as r asks for it: p's ratings, their latest
// finished games (?limit, ?before), each from their side, and their
// followers.
func (vs *Views) Profile(ctx context.Context, r *http.Request, p ratings.Player) (Profile, error) {
	out := Profile{Name: p.Name, ID: p.ID, Ratings: p.Ratings, History: p.History, Games: []ArchiveGame{}}
	limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
	before, _ := strconv.ParseInt(r.URL.Query().Get("before"), 10, 64)
	gs, err := vs.FinishedGames(ctx, min(max(limit, 20), 100), before, p.ID)
	if err != nil {
		return Profile{}, err
	}
	if gs != nil {
		out.Games = vs.Archive(ctx, gs, p.ID)
	}
	out.Followers, out.Following = vs.h.Relation(r, p.ID)
	return out, nil
}

// Archive returns games as who's archive.
func (vs *Views) Archive(ctx context.Context, games []GameInfo, who identity.ID) []ArchiveGame {
	in := make([]social.Game, len(games))
	for i, g := range games {
		in[i] = social.Game{ID: g.ID, South: g.South, North: g.North, SouthID: g.SouthID, NorthID: g.NorthID,
			Rules: g.Rules, Result: g.Result, Termination: g.Termination, Tags: g.Tags}
	}
	out := make([]ArchiveGame, len(games))
	for i, row := range vs.h.Archive(ctx, in, who) {
		out[i] = ArchiveGame{GameInfo: games[i], ArchiveRow: row}
	}
	return out
}
