package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"kalah"
	"kalah/internal/httpapi"
	"kalah/internal/identity"
	"kalah/internal/store"
	"kalah/rating"
	"kalah/referee"
	"kalah/server/core"
)

// tagRated marks a game that counts on the rating ladders.
const tagRated = core.TagRated

// poolOf names the ladder of a game: its rule preset ("custom" for other
// rules) and its time-control class (rating.Class).
func poolOf(r kalah.Rules, ref referee.Referee) string {
	preset := "custom"
	for _, p := range kalah.Presets() {
		if p.Rules.Canonical() == r.Canonical() {
			preset = p.Rules.Name
			break
		}
	}
	return preset + "/" + rating.Class(ref.Budget.Milliseconds(), ref.Increment.Milliseconds(), ref.PerMove.Milliseconds())
}

// ratable reports whether ids may play a rated game against each other:
// both are accounts or bots, and they are not one, nor one person and
// their own bot, nor two bots of one owner (a person cannot feed their
// own rating).
func (s *Server) ratable(ctx context.Context, ids [2]identity.ID) bool {
	if !ids[0].Rated() || !ids[1].Rated() || ids[0].Is(ids[1]) {
		return false
	}
	a, errA := s.ownerOf(ctx, ids[0])
	b, errB := s.ownerOf(ctx, ids[1])
	return errA == nil && errB == nil && a != b
}

// ownerOf returns who answers for an identity: a person for themselves
// and their bots; a bot that registered itself for itself.
func (s *Server) ownerOf(ctx context.Context, id identity.ID) (string, error) {
	if id.Kind != identity.Bot {
		return id.Key(), nil
	}
	owner, err := s.st.BotOwner(ctx, id.Name)
	if err != nil || owner == "" {
		return id.Key(), err
	}
	return identity.Of(identity.Person, owner).Key(), nil
}

// SeatRating is a seat's rating as a board shows it: now, or for a
// finished rated game after it with the change it made.
type SeatRating struct {
	Rating      int  `json:"rating"`
	Provisional bool `json:"provisional"`
	Change      *int `json:"change,omitempty"`
}

// seatRatings returns the ratings of a game's seats (nil for seats that
// hold none, or a game that is not rated).
func (s *Server) seatRatings(ctx context.Context, v GameView, seats [2]store.Seat) [2]*SeatRating {
	var out [2]*SeatRating
	if v.Record.Tags[tagRated] != "yes" || v.Record.Termination == kalah.Aborted {
		return out
	}
	if v.Status == store.Finished {
		changes, err := s.st.GameRatings(ctx, v.ID)
		if err != nil {
			return out
		}
		for i, seat := range seats {
			for _, c := range changes {
				if seat.ID.Is(c.ID) {
					d := int(c.After.Rating+0.5) - int(c.Before+0.5)
					out[i] = &SeatRating{Rating: int(c.After.Rating + 0.5), Provisional: c.After.Provisional(), Change: &d}
				}
			}
		}
		return out
	}
	ref := s.referee()
	if su := s.setupOf(v.Record.Tags); su.ref != nil {
		ref = *su.ref
	}
	pool := poolOf(v.Record.Rules, ref)
	for i, seat := range seats {
		if !seat.ID.Rated() {
			continue
		}
		out[i] = s.ratingIn(ctx, seat.ID, pool)
	}
	return out
}

// ratingIn returns who's rating on a ladder (a new player's if none).
func (s *Server) ratingIn(ctx context.Context, who identity.ID, pool string) *SeatRating {
	r := rating.New()
	if rs, err := s.st.PlayerRatings(ctx, who); err == nil {
		for _, x := range rs {
			if x.Pool == pool {
				r = x.Rating
			}
		}
	}
	return &SeatRating{Rating: int(r.Rating + 0.5), Provisional: r.Provisional()}
}

// apiRatings answers the leaderboard of a pool (?pool=kalah/blitz; none:
// every pool).
func (s *Server) apiRatings(w http.ResponseWriter, r *http.Request) {
	limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
	list, err := s.st.Leaderboard(r.Context(), r.URL.Query().Get("pool"), limit)
	if err != nil {
		httpapi.WriteError(w, err)
		return
	}
	if list == nil {
		list = []store.Rated{}
	}
	httpapi.WriteJSON(w, http.StatusOK, list)
}

// Profile is a player's page: ratings on each ladder, the history, the
// latest games.
type Profile struct {
	Name    string               `json:"name"`
	ID      identity.ID          `json:"id"`
	Ratings []store.Rated        `json:"ratings"`
	History []store.HistoryPoint `json:"history"`
	// Games are the latest finished games, each from the player's side
	// (profile.go).
	Games []ArchiveGame `json:"games"`
	// Followers count who follows the player; Following says whether the
	// reader does.
	Followers int  `json:"followers"`
	Following bool `json:"following"`
}

func (s *Server) apiPlayer(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
	defer cancel()
	who, err := s.st.Identity(ctx, r.PathValue("name"))
	if errors.Is(err, store.ErrNotFound) {
		httpapi.WriteError(w, noPlayer(r.PathValue("name")))
		return
	}
	if err != nil {
		httpapi.WriteError(w, err)
		return
	}
	p := Profile{Name: who.Name, ID: who, Ratings: []store.Rated{}, History: []store.HistoryPoint{}, Games: []ArchiveGame{}}
	if rs, e := s.st.PlayerRatings(ctx, who); e == nil && rs != nil {
		p.Ratings = rs
	} else {
		err = e
	}
	if h, e := s.st.RatingHistory(ctx, who); e == nil && h != nil {
		p.History = h
	} else if e != nil {
		err = e
	}
	limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
	before, _ := strconv.ParseInt(r.URL.Query().Get("before"), 10, 64)
	if gs, e := s.FinishedGames(ctx, min(max(limit, 20), 100), before, who); e == nil && gs != nil {
		p.Games = s.archive(ctx, gs, who)
	} else if e != nil {
		err = e
	}
	if err != nil {
		httpapi.WriteError(w, err)
		return
	}
	s.profileExtras(r, &p)
	httpapi.WriteJSON(w, http.StatusOK, p)
}

// apiPlayerRecords answers a player's finished games as one text file of
// records, newest first (at most 500), to download.
func (s *Server) apiPlayerRecords(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 20*time.Second)
	defer cancel()
	who, err := s.st.Identity(ctx, r.PathValue("name"))
	if errors.Is(err, store.ErrNotFound) {
		httpapi.WriteError(w, noPlayer(r.PathValue("name")))
		return
	}
	if err != nil {
		httpapi.WriteError(w, err)
		return
	}
	games, err := s.st.Games(ctx, store.Filter{Status: store.Finished, Player: who, Limit: 500})
	if err != nil {
		httpapi.WriteError(w, err)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", "kalah-"+who.Name+".txt"))
	for _, sg := range games {
		full, err := s.st.Game(ctx, sg.ID)
		if err != nil {
			continue
		}
		rec := full.Record
		if rec.Tags == nil {
			rec.Tags = map[string]string{}
		}
		rec.Tags["Date"] = full.Created.UTC().Format("2006-01-02")
		rec.Tags["Game"] = strconv.FormatInt(full.ID, 10)
		if g, err := rec.Game(); err == nil {
			fmt.Fprintf(w, "%s\n", g.String())
		}
	}
}
