package server

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"kalah"
	"kalah/internal/store"
	"kalah/rating"
	"kalah/referee"
)

// tagRated marks a game that counts on the rating ladders.
const tagRated = "Rated"

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

// rate rates a finished rated game between two accounts.
func (s *Server) rate(ctx context.Context, lg *liveGame, g *kalah.Game, ref referee.Referee) {
	lg.mu.Lock()
	seats := lg.seats
	rated := lg.tags[tagRated] == "yes"
	lg.mu.Unlock()
	if !rated || seats[0].Account == "" || seats[1].Account == "" || seats[0].Account == seats[1].Account || g.Termination() == kalah.Adjudicated {
		return // an aborted or adjudicated game counts for no one
	}
	// Scores by seat: the seat that started South is names[0].
	south := 0.5
	switch g.Result() {
	case kalah.SouthWins:
		south = 1
	case kalah.NorthWins:
		south = 0
	}
	if g.Swapped() {
		south = 1 - south
	}
	if _, err := s.st.RateGame(ctx, lg.id, poolOf(g.Rules(), ref), [2]string{seats[0].Account, seats[1].Account}, south); err != nil {
		s.log.Error("cannot rate game", "game", lg.id, "err", err)
	}
}

// SeatRating is a seat's rating as a board shows it: now, or for a
// finished rated game after it with the change it made.
type SeatRating struct {
	Rating      int  `json:"rating"`
	Provisional bool `json:"provisional"`
	Change      *int `json:"change,omitempty"`
}

// seatRatings returns the ratings of a game's seats (nil for seats with
// no account, or a game that is not rated).
func (s *Server) seatRatings(ctx context.Context, v GameView, seats [2]store.Seat) [2]*SeatRating {
	var out [2]*SeatRating
	if v.Record.Tags[tagRated] != "yes" {
		return out
	}
	if v.Status == store.Finished {
		changes, err := s.st.GameRatings(ctx, v.ID)
		if err != nil {
			return out
		}
		for i, seat := range seats {
			for _, c := range changes {
				if seat.Account != "" && c.Name == seat.Account {
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
		if seat.Account == "" {
			continue
		}
		r := rating.New()
		if rs, err := s.st.PlayerRatings(ctx, seat.Account); err == nil {
			for _, x := range rs {
				if x.Pool == pool {
					r = x.Rating
				}
			}
		}
		out[i] = &SeatRating{Rating: int(r.Rating + 0.5), Provisional: r.Provisional()}
	}
	return out
}

// apiRatings answers the leaderboard of a pool (?pool=kalah/blitz; none:
// every pool).
func (s *Server) apiRatings(w http.ResponseWriter, r *http.Request) {
	limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
	list, err := s.st.Leaderboard(r.Context(), r.URL.Query().Get("pool"), limit)
	if err != nil {
		writeErr(w, err)
		return
	}
	if list == nil {
		list = []store.Rated{}
	}
	writeJSON(w, http.StatusOK, list)
}

// Profile is a player's page: ratings on each ladder, the history, the
// latest games.
type Profile struct {
	Name    string               `json:"name"`
	Ratings []store.Rated        `json:"ratings"`
	History []store.HistoryPoint `json:"history"`
	Games   []GameInfo           `json:"games"`
}

func (s *Server) apiPlayer(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
	defer cancel()
	p := Profile{Name: name, Ratings: []store.Rated{}, History: []store.HistoryPoint{}, Games: []GameInfo{}}
	var err error
	if rs, e := s.st.PlayerRatings(ctx, name); e == nil && rs != nil {
		p.Ratings = rs
	} else {
		err = e
	}
	if h, e := s.st.RatingHistory(ctx, name); e == nil && h != nil {
		p.History = h
	} else if e != nil {
		err = e
	}
	limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
	before, _ := strconv.ParseInt(r.URL.Query().Get("before"), 10, 64)
	if gs, e := s.FinishedGames(ctx, min(max(limit, 20), 100), before, name); e == nil && gs != nil {
		p.Games = gs
	} else if e != nil {
		err = e
	}
	if err != nil {
		writeErr(w, err)
		return
	}
	writeJSON(w, http.StatusOK, p)
}

// apiPlayerRecords answers a player's finished games as one text file of
// records, newest first (at most 500), to download.
func (s *Server) apiPlayerRecords(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	ctx, cancel := context.WithTimeout(r.Context(), 20*time.Second)
	defer cancel()
	games, err := s.st.Games(ctx, store.Filter{Status: store.Finished, Player: name, Limit: 500})
	if err != nil {
		writeErr(w, err)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", "kalah-"+name+".txt"))
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
