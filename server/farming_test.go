package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"kalah/internal/identity"
	"kalah/internal/store"
)

// playEach plays the first legal move for whoever is to move in game id
// until each seat has made n moves; by[i] is the client of seat i.
func playEach(t *testing.T, id int64, by [2]*webClient, n int) {
	t.Helper()
	var made [2]int
	for made[0] < n || made[1] < n {
		var b Board
		if code := by[0].do("GET", fmt.Sprintf("/api/games/%d/board", id), "", &b); code != http.StatusOK || b.Over || len(b.Legal) == 0 {
			t.Fatalf("game %d: %d, over %v", id, code, b.Over)
		}
		seat := b.ToMoveSeat
		if code := by[seat].do("POST", fmt.Sprintf("/api/games/%d/move", id), fmt.Sprintf(`{"move":%q}`, b.Legal[0]), nil); code != http.StatusOK {
			t.Fatalf("game %d: seat %d's move %s: %d", id, seat, b.Legal[0], code)
		}
		made[seat]++
	}
}

// ratedChanges counts who's rating changes.
func ratedChanges(t *testing.T, ts *testServer, who identity.ID) int {
	t.Helper()
	h, err := ts.st.RatingHistory(context.Background(), who)
	if err != nil {
		t.Fatal(err)
	}
	return len(h)
}

// TestFarmingIsSlowAndVisible: two accounts on one address play rated
// invitation games over HTTP. Eleven resigned after one move change no
// rating, and their records say why; eleven resigned after three moves
// each change the ratings five times: from the sixth the invitee is told
// before the game starts that it is casual, and the board says so; a
// rated seek between them pairs casual, saying so; the admin's list of
// lopsided pairs names them, and only the admin may read it.
func TestFarmingIsSlowAndVisible(t *testing.T) {
	ts := newTestServer(t, "", Config{AdminToken: "admin-secret"})
	ann, bob := newWebClient(t, ts), newWebClient(t, ts)
	ann.signUp("ann")
	bob.signUp("bob")
	annID, bobID := identity.Of(identity.Person, "ann"), identity.Of(identity.Person, "bob")
	type joined struct {
		Seat int
		Note string
	}
	invite := func() (int64, joined) {
		t.Helper()
		var st Started
		if code := ann.do("POST", "/api/games", `{"south":"human","north":"human","invite":true,"rated":true,"clock_ms":60000}`, &st); code != http.StatusCreated {
			t.Fatalf("an invitation: %d", code)
		}
		var j joined
		if code := bob.do("POST", fmt.Sprintf("/api/games/%d/join", st.ID), fmt.Sprintf(`{"invite":%q}`, st.Invite), &j); code != http.StatusOK || j.Seat != 1 {
			t.Fatalf("join: %d %+v", code, j)
		}
		return st.ID, j
	}
	resign := func(id int64) Board {
		t.Helper()
		if code := bob.do("POST", fmt.Sprintf("/api/games/%d/resign", id), "{}", nil); code != http.StatusOK {
			t.Fatalf("resign: %d", code)
		}
		waitStored(t, ts.st, id)
		var b Board
		ann.do("GET", fmt.Sprintf("/api/games/%d/board", id), "", &b)
		return b
	}
	for i := range 11 {
		id, j := invite()
		if j.Note != "" {
			t.Errorf("game %d: %q before any rated game", i+1, j.Note)
		}
		playEach(t, id, [2]*webClient{ann, bob}, 1)
		if b := resign(id); b.Rated || !strings.Contains(b.Unrated, "not rated") || b.Ratings[0] != nil {
			t.Errorf("game %d, resigned after one move each: rated %v, %q, %+v", i+1, b.Rated, b.Unrated, b.Ratings)
		}
		rec := waitStored(t, ts.st, id)
		if !strings.Contains(rec.Tags[tagUnrated], "before both sides had made 3 moves") {
			t.Errorf("game %d's record: %v", i+1, rec.Tags)
		}
	}
	if n, m := ratedChanges(t, ts, annID), ratedChanges(t, ts, bobID); n != 0 || m != 0 {
		t.Fatalf("11 games resigned after one move changed the ratings %d and %d times", n, m)
	}
	for i := range 11 {
		id, j := invite()
		var before Board
		bob.do("GET", fmt.Sprintf("/api/games/%d/board", id), "", &before)
		switch {
		case i < 5 && (j.Note != "" || !before.Rated):
			t.Errorf("game %d of the day: note %q, rated %v", i+1, j.Note, before.Rated)
		case i >= 5 && (j.Note != "casual: you have played 5 rated games with ann today" || before.Rated || before.RatedLimit != 5 ||
			before.CasualNote != "casual: ann and bob have played 5 rated games with each other today"):
			t.Errorf("game %d of the day: note %q, board %v %d %q", i+1, j.Note, before.Rated, before.RatedLimit, before.CasualNote)
		}
		playEach(t, id, [2]*webClient{ann, bob}, 3)
		resign(id)
	}
	if n, m := ratedChanges(t, ts, annID), ratedChanges(t, ts, bobID); n != 5 || m != 5 {
		t.Errorf("11 games resigned after three moves each changed the ratings %d and %d times, want 5", n, m)
	}
	// A rated seek between them pairs at once, casual, and says so.
	var sa, sb Seek
	ann.do("POST", "/api/seeks", `{"clock_ms":60000,"rated":true}`, &sa)
	if code := bob.do("POST", "/api/seeks", `{"clock_ms":60000,"rated":true}`, &sb); code != http.StatusCreated || sb.Game <= 0 || sb.Note != "casual: you have played 5 rated games with ann today" {
		t.Errorf("bob's rated seek: %d, game %d, note %q", code, sb.Game, sb.Note)
	}
	// The admin sees the pair: ann took every point of five rated games.
	var pairs []LopsidedPair
	if code := ann.do("GET", "/api/admin/pairs", "", &pairs); code != http.StatusUnauthorized {
		t.Errorf("a player reads the admin's list: %d", code)
	}
	req, _ := http.NewRequest("GET", ts.http.URL+"/api/admin/pairs?games=5", nil)
	req.Header.Set("Authorization", "Bearer admin-secret")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(&pairs); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("the admin's list: %d %v", resp.StatusCode, err)
	}
	if len(pairs) != 1 || !pairs[0].A.Is(annID) || !pairs[0].B.Is(bobID) || pairs[0].Games != 5 || pairs[0].WinsA != 5 || pairs[0].ShareA != 1 || pairs[0].PointsA <= 0 || pairs[0].PointsB >= 0 {
		t.Errorf("the admin's list: %+v", pairs)
	}
	var none []store.RatedPair
	req, _ = http.NewRequest("GET", ts.http.URL+"/api/admin/pairs", nil) // six games or more: none
	req.Header.Set("Authorization", "Bearer admin-secret")
	if resp, err := http.DefaultClient.Do(req); err == nil {
		json.NewDecoder(resp.Body).Decode(&none)
		resp.Body.Close()
		if len(none) != 0 {
			t.Errorf("pairs of six rated games or more: %+v", none)
		}
	}
}

// playTokens plays the first legal move for whichever seat of game id is
// to move, by its token, until each seat has made n moves; with a token
// for one seat only (the other a bot), until the game is over.
func playTokens(t *testing.T, srv *Server, id int64, tokens [2]string, n int) {
	t.Helper()
	var made [2]int
	deadline := time.Now().Add(20 * time.Second)
	for made[0] < n || made[1] < n || tokens[0] == "" || tokens[1] == "" {
		v, err := srv.Game(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if v.Status == store.Finished {
			if tokens[0] != "" && tokens[1] != "" {
				t.Fatalf("game %d ended after %v moves", id, made)
			}
			return
		}
		if v.LiveGame() != nil && !v.LiveGame().Over() {
			seat := v.LiveGame().Seat(v.ToMove)
			if tokens[seat] != "" && srv.Move(context.Background(), id, Actor{Token: tokens[seat]}, v.LiveGame().Legal()[0]) == nil {
				made[seat]++
				continue
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("game %d: stuck after %v moves", id, made)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
