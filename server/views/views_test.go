package views

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"kalah/internal/identity"
	"kalah/internal/store"
	"kalah/referee"
	"kalah/server/core"
	"kalah/server/ratings"
	"kalah/server/round"
	"kalah/server/social"
)

// stored is a Host with no live games and the stored games it holds.
type stored map[int64]store.Game

func (h stored) Rounds() []*round.Round      { return nil }
func (h stored) Round(id int64) *round.Round { return nil }
func (h stored) Stored(ctx context.Context, id int64) (store.Game, error) {
	if g, ok := h[id]; ok {
		return g, nil
	}
	return store.Game{}, store.ErrNotFound
}
func (h stored) Games(ctx context.Context, f store.Filter) ([]store.Game, error) {
	var out []store.Game
	for _, g := range h {
		if g.Status == f.Status {
			out = append(out, g)
		}
	}
	return out, nil
}
func (h stored) Settings(tags map[string]string) (bool, referee.Referee) {
	return tags[core.TagCasual] == "yes", referee.Referee{PerMove: 2 * time.Second, Budget: time.Minute, Increment: time.Second}
}
func (h stored) SeatRatings(ctx context.Context, v GameView, seats [2]store.Seat) [2]*ratings.SeatRating {
	return [2]*ratings.SeatRating{}
}
func (h stored) ImportedGame(ctx context.Context, webID string) (int64, error) {
	return 0, store.ErrNotFound
}
func (h stored) ImportGame(ctx context.Context, im Imported) (int64, error) {
	return 0, errors.New("no imports here")
}

func (h stored) Context() context.Context { return context.Background() }
func (h stored) Identity(ctx context.Context, name string) (identity.ID, error) {
	return identity.ID{}, store.ErrNotFound
}
func (h stored) Actor(w http.ResponseWriter, r *http.Request) core.Actor { return core.Actor{} }
func (h stored) ActorErr(w http.ResponseWriter, r *http.Request, token string) (core.Actor, error) {
	return core.Actor{}, nil
}
func (h stored) ChatFeed(ctx context.Context, id int64, a core.Actor) (<-chan store.ChatLine, func()) {
	return nil, func() {}
}

func (h stored) Archive(ctx context.Context, games []social.Game, who identity.ID) []social.ArchiveRow {
	return make([]social.ArchiveRow, len(games))
}
func (h stored) Relation(r *http.Request, player identity.ID) (int, bool) { return 0, false }

func TestViewOfAStoredGame(t *testing.T) {
	alice := identity.Of(identity.Person, "alice")
	vs := New(stored{7: {ID: 7, Status: store.Finished, Plies: 3,
		Seats: [2]store.Seat{{Name: "alice", Kind: "human", ID: alice}, {Name: "expert", Kind: "spec", Spec: "expert"}},
	}})
	ctx := context.Background()
	if _, err := vs.Game(ctx, 8); !errors.Is(err, core.ErrNotFound) {
		t.Fatalf("a game not stored: %v, want ErrNotFound", err)
	}
	v, err := vs.Game(ctx, 7)
	if err != nil {
		t.Fatal(err)
	}
	if v.LiveGame() != nil || v.South != "alice" || v.SouthID != alice || !v.Human[0] || v.Human[1] || v.Specs[1] != "expert" {
		t.Errorf("view %+v: want alice, a person, against the program expert, from the store", v)
	}
	if v.TakebackAsk != -1 || v.DrawOffer != -1 || v.PerMoveMS != 2000 || v.ClockMS != 60_000 || v.IncrementMS != 1000 {
		t.Errorf("view %+v: want no takeback asked, no draw offered, the host's clock", v)
	}
	if live := vs.LiveGames(); live == nil || len(live) != 0 {
		t.Errorf("live games %v: want an empty list", live)
	}
	done, err := vs.FinishedGames(ctx, 10, 0, identity.ID{})
	if err != nil || len(done) != 1 || done[0].ID != 7 || done[0].Plies != 3 {
		t.Errorf("finished games %+v, %v: want game 7", done, err)
	}
}
