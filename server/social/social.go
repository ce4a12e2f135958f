// Package social is what players say and keep of one another around the
// games: each game's chat (two rooms, stored, pushed live on the game's
// board streams, bounded and rate-limited), who follows whom, and what a
// player's profile says of them (each finished game from their side, their
// followers, the rating ladders). It is lila's chat and relation modules in
// small.
//
// A Social owns its state, the chat's live readers, under a lock that
// guards nothing else; its rate limits keep their own. Chat lines, follows
// and ratings are kept in the store. What it needs of the server (who asks,
// a live game's seats, the live games) it asks through Host, and never while
// it holds its lock, so the server may call it holding its own.
package social

import (
	"net/http"

	"kalah/internal/identity"
	"kalah/internal/netx"
	"kalah/internal/store"
	"kalah/referee"
	"kalah/server/core"
)

// Host is what the module asks of the server. G is the server's summary
// of a live game, answered as it is to those who follow its players.
type Host[G any] interface {
	// Actor returns who asks r: a signed-in person, a bot, a guest, or
	// the holder of a seat's token; if guest, a stranger is made a guest
	// (the cookie set on w).
	Actor(w http.ResponseWriter, r *http.Request, token string, guest bool) core.Actor
	// SessionUser returns the signed-in person of r, or "".
	SessionUser(r *http.Request) string
	// GameID reads a route's {id}: the game it names.
	GameID(r *http.Request) (int64, error)
	// LiveSeats returns live game id's seats and tags and whether it is
	// over; ok is false for a game whose round has ended or that is not
	// live, which the store tells.
	LiveSeats(id int64) (seats [2]store.Seat, tags map[string]string, over, ok bool)
	// TokenIs reports whether token is the secret whose hash a seat
	// keeps.
	TokenIs(hash, token string) bool
	// Setup returns the clock and casualness a stored game's tags say.
	Setup(tags map[string]string) (ref referee.Referee, casual bool)
	// Refused counts a refusal by reason in the server's metrics.
	Refused(reason string)
	// PlayedBy returns the live games one of players plays, oldest first.
	PlayedBy(players []identity.ID) []G
}

// Social is the games' chats, the follows and the profiles of one server.
type Social[G any] struct {
	st   *store.Store
	host Host[G]
	chat chatHub
	// byWho and byAddr limit how fast a writer and an address chat; each
	// keeps its own lock.
	byWho, byAddr *netx.Limiter
}

// New returns the module of a server keeping its games in st.
func New[G any](st *store.Store, host Host[G]) *Social[G] {
	return &Social[G]{
		st:     st,
		host:   host,
		chat:   chatHub{subs: map[int64]map[chan store.ChatLine]bool{}},
		byWho:  netx.NewLimiter(chatRate, chatBurst),
		byAddr: netx.NewLimiter(chatAddrRate, chatAddrBurst),
	}
}

// Routes registers social's routes on mux: a game's chat, follows, the
// rating ladders.
func (m *Social[G]) Routes(mux *http.ServeMux) {
	mux.HandleFunc("GET /api/games/{id}/chat", m.Chat)
	mux.HandleFunc("POST /api/games/{id}/chat", m.Say)
	mux.HandleFunc("POST /api/players/{name}/follow", m.Follow(true))
	mux.HandleFunc("POST /api/players/{name}/unfollow", m.Follow(false))
	mux.HandleFunc("GET /api/account/following", m.Following)
	mux.HandleFunc("GET /api/ratings/pools", m.Pools)
}
