// Package ratings is the ratings between identities (lila's rating module
// in small): one ladder a rule preset and time-control class, Glicko-2 by
// package kalah/rating, a game rated at its end if both sides played it
// and its players may be rated against each other, the ratings a board
// shows, the leaderboards, a player's ratings and history, and their
// games as records to download. It makes rating farming slow and visible
// (farming.go): a game forfeited before both sides made MinMoves moves is
// not rated, a pair plays at most MaxPerDay rated games in a day, and the
// admin lists the lopsided pairs.
//
// Ratings owns the rated games being created, by pair, under locks (one a
// stripe of pairs) that guard nothing else and are never held while it
// calls its Host. It knows
// the games it rates only as plain values (Game): the round that plays one
// tells it what it needs.
package ratings

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"log/slog"
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

// Host is what the ratings need of the server. Its methods are never
// called with the ratings' lock held.
type Host interface {
	// Admitted reports whether r carries the server's admin token, for
	// what (in words); if not, it has answered r.
	Admitted(w http.ResponseWriter, r *http.Request, what string) bool
	// Profile returns a player's page as the API answers it: p, their
	// latest games (?limit, ?before of r) and what else the server shows
	// of them. An error is answered instead, once p's own are.
	Profile(ctx context.Context, r *http.Request, p Player) (any, error)
}

// Config is what New needs.
type Config struct {
	Store *store.Store
	Log   *slog.Logger
}

// Ratings rates the games between identities and answers their ratings.
type Ratings struct {
	host Host
	st   *store.Store
	log  *slog.Logger

	// stripes hold the rated games being created now, by pair, each
	// stripe under a lock of its own (Reserve); seed spreads the pairs.
	stripes [pairStripes]pairStripe
	seed    maphash.Seed
}

// New returns the ratings on cfg.Store.
func New(host Host, cfg Config) *Ratings {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	return &Ratings{host: host, st: cfg.Store, log: cfg.Log, seed: maphash.MakeSeed()}
}

// Pool names the ladder of a game: its rule preset ("custom" for other
// rules) and its time-control class (rating.Class).
func Pool(r kalah.Rules, ref referee.Referee) string {
	preset := "custom"
	for _, p := range kalah.Presets() {
		if p.Rules.Canonical() == r.Canonical() {
			preset = p.Rules.Name
			break
		}
	}
	return preset + "/" + rating.Class(ref.Budget.Milliseconds(), ref.Increment.Milliseconds(), ref.PerMove.Milliseconds())
}

// Ratable reports whether ids may play a rated game against each other:
// both are accounts or bots, and they are not one, nor one person and
// their own bot, nor two bots of one owner (a person cannot feed their
// own rating).
func (m *Ratings) Ratable(ctx context.Context, ids [2]identity.ID) bool {
	if !ids[0].Rated() || !ids[1].Rated() || ids[0].Is(ids[1]) {
		return false
	}
	a, errA := m.ownerOf(ctx, ids[0])
	b, errB := m.ownerOf(ctx, ids[1])
	return errA == nil && errB == nil && a != b
}

// ownerOf returns who answers for an identity: a person for themselves
// and their bots; a bot that registered itself for itself.
func (m *Ratings) ownerOf(ctx context.Context, id identity.ID) (string, error) {
	if id.Kind != identity.Bot {
		return id.Key(), nil
	}
	owner, err := m.st.BotOwner(ctx, id.Name)
	if err != nil || owner == "" {
		return id.Key(), err
	}
	return identity.Of(identity.Person, owner).Key(), nil
}

// Game is what the ratings need of a game: to rate it at its end, or to
// show its seats' ratings.
type Game struct {
	ID    int64
	Tags  map[string]string
	Seats [2]identity.ID // the seat that started South first
	Rules kalah.Rules
	// Referee holds the game's clocks, which name its ladder.
	Referee     referee.Referee
	Finished    bool // stored as finished
	Termination kalah.Termination
	Result      kalah.Result
	// Swapped says whether the pie rule exchanged the seats' sides.
	Swapped bool
	// BothMoved says whether each side has made a move of its own.
	BothMoved bool
}

// Rating says how a finished game is rated, and whether it is: it is if
// it was rated when it began and both sides played it (not aborted,
// adjudicated or forfeited before both moved). The store writes it with
// the game's end (store.FinishRated).
func Rating(g Game) (store.Rate, bool) {
	switch t := g.Termination; {
	case g.Tags[core.TagRated] != "yes", t == kalah.Aborted, t == kalah.Adjudicated, !g.BothMoved:
		return store.Rate{}, false
	}
	// Scores by seat: the seat that started South is Seats[0].
	south := 0.5
	switch g.Result {
	case kalah.SouthWins:
		south = 1
	case kalah.NorthWins:
		south = 0
	}
	if g.Swapped {
		south = 1 - south
	}
	return store.Rate{Pool: Pool(g.Rules, g.Referee), IDs: g.Seats, Score: south}, true
}

// SeatRating is a seat's rating as a board shows it: now, or for a
// finished rated game after it with the change it made.
type SeatRating struct {
	Rating      int  `json:"rating"`
	Provisional bool `json:"provisional"`
	Change      *int `json:"change,omitempty"`
}

// SeatRatings returns the ratings of a game's seats (nil for seats that
// hold none, or a game that is not rated).
func (m *Ratings) SeatRatings(ctx context.Context, g Game) [2]*SeatRating {
	var out [2]*SeatRating
	if g.Tags[core.TagRated] != "yes" || g.Termination == kalah.Aborted {
		return out
	}
	if g.Finished {
		changes, err := m.st.GameRatings(ctx, g.ID)
		if err != nil {
			return out
		}
		for i, seat := range g.Seats {
			for _, c := range changes {
				if seat.Is(c.ID) {
					d := int(c.After.Rating+0.5) - int(c.Before+0.5)
					out[i] = &SeatRating{Rating: int(c.After.Rating + 0.5), Provisional: c.After.Provisional(), Change: &d}
				}
			}
		}
		return out
	}
	pool := Pool(g.Rules, g.Referee)
	for i, seat := range g.Seats {
		if !seat.Rated() {
			continue
		}
		out[i] = m.In(ctx, seat, pool)
	}
	return out
}

// In returns who's rating on a ladder (a new player's if none).
func (m *Ratings) In(ctx context.Context, who identity.ID, pool string) *SeatRating {
	r := rating.New()
	if rs, err := m.st.PlayerRatings(ctx, who); err == nil {
		for _, x := range rs {
			if x.Pool == pool {
				r = x.Rating
			}
		}
	}
	return &SeatRating{Rating: int(r.Rating + 0.5), Provisional: r.Provisional()}
}

// Leaderboard answers the leaderboard of a pool (?pool=kalah/blitz; none:
// every pool).
func (m *Ratings) Leaderboard(w http.ResponseWriter, r *http.Request) {
	limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
	list, err := m.st.Leaderboard(r.Context(), r.URL.Query().Get("pool"), limit)
	if err != nil {
		httpapi.WriteError(w, err)
		return
	}
	if list == nil {
		list = []store.Rated{}
	}
	httpapi.WriteJSON(w, http.StatusOK, list)
}

// Player is what the ratings know of a player, for their page: their
// ratings on each ladder and the history.
type Player struct {
	Name    string
	ID      identity.ID
	Ratings []store.Rated
	History []store.HistoryPoint
}

// noPlayer is a player nobody is: core.ErrNotFound (404) in words of its
// own.
type noPlayer string

func (e noPlayer) Error() string        { return fmt.Sprintf("no player named %q", string(e)) }
func (e noPlayer) Is(target error) bool { return target == core.ErrNotFound }

// identityOf returns the player r names in its path ({name}).
func (m *Ratings) identityOf(ctx context.Context, r *http.Request) (identity.ID, error) {
	who, err := m.st.Identity(ctx, r.PathValue("name"))
	if errors.Is(err, store.ErrNotFound) {
		return who, noPlayer(r.PathValue("name"))
	}
	return who, err
}

// Profile answers a player's page (GET /api/players/{name}): their
// ratings and history, with what the Host adds (Host.Profile).
func (m *Ratings) Profile(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
	defer cancel()
	who, err := m.identityOf(ctx, r)
	if err != nil {
		httpapi.WriteError(w, err)
		return
	}
	p := Player{Name: who.Name, ID: who, Ratings: []store.Rated{}, History: []store.HistoryPoint{}}
	if rs, e := m.st.PlayerRatings(ctx, who); e == nil && rs != nil {
		p.Ratings = rs
	} else {
		err = e
	}
	if h, e := m.st.RatingHistory(ctx, who); e == nil && h != nil {
		p.History = h
	} else if e != nil {
		err = e
	}
	page, e := m.host.Profile(ctx, r, p)
	if e != nil {
		err = e
	}
	if err != nil {
		httpapi.WriteError(w, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, page)
}

// Records answers a player's finished games as one text file of records,
// newest first (at most 500), to download.
func (m *Ratings) Records(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 20*time.Second)
	defer cancel()
	who, err := m.identityOf(ctx, r)
	if err != nil {
		httpapi.WriteError(w, err)
		return
	}
	games, err := m.st.Games(ctx, store.Filter{Status: store.Finished, Player: who, Limit: 500})
	if err != nil {
		httpapi.WriteError(w, err)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", "kalah-"+who.Name+".txt"))
	for _, sg := range games {
		full, err := m.st.Game(ctx, sg.ID)
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

// Routes registers the ratings' routes on mux: the leaderboards, a
// player's page and records, the admin's lopsided pairs.
func (m *Ratings) Routes(mux *http.ServeMux) {
	mux.HandleFunc("GET /api/ratings", m.Leaderboard)
	mux.HandleFunc("GET /api/players/{name}", m.Profile)
	mux.HandleFunc("GET /api/players/{name}/records", m.Records)
	mux.HandleFunc("GET /api/admin/pairs", m.Pairs)
}
