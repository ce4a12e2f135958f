package web

import (
	"context"
	"testing"

	"kalah"
	"kalah/internal/identity"
	"kalah/internal/store"
	"kalah/server"
)

// TestBrowserRatedLimitSaid: ann and bob have played five rated games with
// each other today; ann's rated invitation is then played casual, and the
// game page tells each of them so, by the other's name, before a move.
func TestBrowserRatedLimitSaid(t *testing.T) {
	msrv, st := newMatchServerAt(t, t.TempDir()+"/kalah.db", server.Config{})
	srv, _ := browserServerWith(t, func(ctx context.Context) Options { return Options{Server: msrv} })
	ps := people(t, srv.URL, "ann", "bob")
	ann, bob := ps[0], ps[1]
	ctx := context.Background()
	ids := [2]identity.ID{identity.Of(identity.Person, "ann"), identity.Of(identity.Person, "bob")}
	for range 5 {
		id, err := st.CreateGame(ctx, store.NewGame{Rules: kalah.Standard(), Tags: map[string]string{"Rated": "yes"},
			Seats: [2]store.Seat{{Name: "ann", Kind: "human", ID: ids[0]}, {Name: "bob", Kind: "human", ID: ids[1]}}})
		if err != nil {
			t.Fatal(err)
		}
		if err := st.FinishGame(ctx, id, kalah.Record{Result: kalah.SouthWins, Termination: kalah.Resign}); err != nil {
			t.Fatal(err)
		}
		if _, err := st.RateGame(ctx, id, "kalah/bullet", ids, 1); err != nil {
			t.Fatal(err)
		}
	}
	invite := evalAwait[map[string]any](t, ann, `fetch("/api/games", {method: "POST", headers: {"Content-Type": "application/json"},
		body: JSON.stringify({south: "human", north: "human", invite: true, rated: true, clock_ms: 60000})}).then(r => r.json())`)
	id, secret := invite["id"].(float64), invite["invite"].(string)
	game := srv.URL + "/#/game/" + itoa(int64(id))
	open(t, bob, game+"/join/"+secret)
	waitJS(t, bob, `document.querySelector("#ratednote") && document.querySelector("#ratednote").textContent === "casual: you have played 5 rated games with ann today" && !document.querySelector("#ratednote").hidden`)
	open(t, ann, game)
	waitJS(t, ann, `document.querySelector("#ratednote") && document.querySelector("#ratednote").textContent === "casual: you have played 5 rated games with bob today"`)
	shot(t, bob, "rated-limit")
}
