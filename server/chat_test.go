package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"kalah/internal/store"
)

// chatLines returns the texts of a chat as c reads it.
func chatLines(t *testing.T, c *webClient, id int64) (ChatView, []string) {
	t.Helper()
	var v ChatView
	if code := c.do("GET", fmt.Sprintf("/api/games/%d/chat", id), "", &v); code != 200 {
		t.Fatalf("GET chat: %d", code)
	}
	var out []string
	for _, l := range v.Lines {
		out = append(out, l.Room+": "+l.Name+": "+l.Text)
	}
	return v, out
}

// chatEvents returns the texts of the chat events that come on ch within d.
func chatEvents(ch <-chan sseEvent, d time.Duration) []string {
	var out []string
	timeout := time.After(d)
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				return out
			}
			if ev.kind == "chat" {
				var l store.ChatLine
				json.Unmarshal([]byte(ev.data), &l)
				out = append(out, l.Room+": "+l.Name+": "+l.Text)
			}
		case <-timeout:
			return out
		}
	}
}

// pairedGame makes a game between two new accounts by quick pairing.
func pairedGame(t *testing.T, ts *testServer, a, b string, rated bool) (*webClient, *webClient, int64) {
	t.Helper()
	ca, cb := newWebClient(t, ts), newWebClient(t, ts)
	ca.signUp(a)
	cb.signUp(b)
	offer := fmt.Sprintf(`{"clock_ms":600000,"rated":%v}`, rated)
	var sa, sb Seek
	ca.do("POST", "/api/seeks", offer, &sa)
	cb.do("POST", "/api/seeks", offer, &sb)
	if sb.Game <= 0 {
		t.Fatalf("no game: %+v", sb)
	}
	return ca, cb, sb.Game
}

// TestChatRooms: the players talk in their room, which only they read,
// live on their board streams and after the game; the spectators talk in
// theirs, which the players read only once the game is over; a guest
// reads a rated game's chat but does not write in it; every line is
// cleaned and bounded, and written at a bounded rate.
func TestChatRooms(t *testing.T) {
	ts := newTestServer(t, "", Config{})
	ann, bob, id := pairedGame(t, ts, "ann", "bob", true)
	sue := newWebClient(t, ts)
	sue.signUp("sue")
	gus := newWebClient(t, ts) // a guest, by the cookie the page's first game request gives
	gus.do("POST", "/api/games", `{"south":"human","north":"random"}`, nil)
	stream := func(c *webClient) <-chan sseEvent {
		ch, code, _ := openSSE(t, c.c, fmt.Sprintf("%s/api/games/%d/board/events", ts.http.URL, id))
		if code != 200 {
			t.Fatalf("board stream: %d", code)
		}
		nextEvent(t, ch, "state")
		return ch
	}
	annS, bobS, sueS, gusS := stream(ann), stream(bob), stream(sue), stream(gus)

	say := func(c *webClient, text string) int {
		t.Helper()
		b, _ := json.Marshal(map[string]string{"text": text})
		return c.do("POST", fmt.Sprintf("/api/games/%d/chat", id), string(b), nil)
	}
	if code := say(ann, "good luck"); code != 201 {
		t.Fatalf("ann says: %d", code)
	}
	if code := say(sue, "go ann"); code != 201 {
		t.Fatalf("sue says: %d", code)
	}
	if code := say(gus, "hello"); code != http.StatusUnauthorized {
		t.Fatalf("a guest writes in a rated game: %d", code)
	}
	want := map[string][]string{"ann": {"players: ann: good luck"}, "bob": {"players: ann: good luck"},
		"sue": {"spectators: sue: go ann"}, "gus": {"spectators: sue: go ann"}}
	for name, ch := range map[string]<-chan sseEvent{"ann": annS, "bob": bobS, "sue": sueS, "gus": gusS} {
		if got := chatEvents(ch, 500*time.Millisecond); strings.Join(got, "|") != strings.Join(want[name], "|") {
			t.Errorf("%s's stream: %q, want %q", name, got, want[name])
		}
	}
	for name, c := range map[string]*webClient{"ann": ann, "bob": bob, "sue": sue, "gus": gus} {
		v, got := chatLines(t, c, id)
		if strings.Join(got, "|") != strings.Join(want[name], "|") {
			t.Errorf("%s reads %q, want %q", name, got, want[name])
		}
		if wantRoom := map[bool]string{true: RoomPlayers, false: RoomSpectators}[name == "ann" || name == "bob"]; v.Room != wantRoom || v.CanWrite != (name != "gus") {
			t.Errorf("%s: room %q can write %v (%s)", name, v.Room, v.CanWrite, v.Why)
		}
	}

	// Bounds: a line is text, at most MaxChatText characters, and not
	// nothing; control and format characters are dropped.
	for text, code := range map[string]int{strings.Repeat("é", MaxChatText+1): 400, " \u200b\x07 ": 400, "": 400} {
		if got := say(bob, text); got != code {
			t.Errorf("bob says %q: %d, want %d", text, got, code)
		}
	}
	if code := say(bob, "thanks\x1b[2J \u202eyou too\n"); code != 201 {
		t.Fatalf("bob says: %d", code)
	}
	if _, got := chatLines(t, ann, id); got[len(got)-1] != "players: bob: thanks[2J you too" {
		t.Errorf("bob's line reads %q", got[len(got)-1])
	}
	// A flood is cut.
	refused := 0
	for range 10 {
		if say(bob, "spam") == http.StatusTooManyRequests {
			refused++
		}
	}
	if refused < 5 {
		t.Errorf("%d of 10 lines in a burst refused", refused)
	}

	// The game ends: the players read the spectators too, on the page
	// and on a stream; the spectators still do not read the players.
	var b Board
	ann.do("POST", fmt.Sprintf("/api/games/%d/resign", id), "{}", &b)
	if !b.Over {
		t.Fatalf("the game goes on: %+v", b.Reason)
	}
	annAfter := stream(ann)
	if code := say(sue, "gg"); code != 201 {
		t.Fatalf("sue after the game: %d", code)
	}
	if got := chatEvents(annAfter, 500*time.Millisecond); len(got) != 1 || got[0] != "spectators: sue: gg" {
		t.Errorf("ann's stream after the game: %q", got)
	}
	if _, got := chatLines(t, ann, id); len(got) < 4 || got[1] != "spectators: sue: go ann" {
		t.Errorf("ann reads after the game: %q", got)
	}
	if _, got := chatLines(t, sue, id); strings.Contains(strings.Join(got, "|"), "players:") {
		t.Errorf("sue reads the players' room after the game: %q", got)
	}
	if code := sue.do("GET", "/api/games/99999/chat", "", nil); code != 404 {
		t.Errorf("the chat of no game: %d", code)
	}
}

// TestChatCasualGuests: in a casual game the gallery's guests write, a
// stranger with no cookie becoming a guest by writing; the players' seats'
// tokens write in the players' room, for API clients without a session.
func TestChatCasualGuests(t *testing.T) {
	ts := newTestServer(t, "", Config{})
	ann := newWebClient(t, ts)
	var st Started
	if code := ann.do("POST", "/api/games", `{"south":"human","north":"random","casual":true}`, &st); code != 201 {
		t.Fatalf("ann's game: %d", code)
	}
	stranger := newWebClient(t, ts)
	if v, _ := chatLines(t, stranger, st.ID); !v.CanWrite || v.Room != RoomSpectators {
		t.Fatalf("a stranger in a casual game's gallery: %+v", v)
	}
	if code := stranger.do("POST", fmt.Sprintf("/api/games/%d/chat", st.ID), `{"text":"hi"}`, nil); code != 201 {
		t.Fatalf("a stranger writes: %d", code)
	}
	api := &webClient{t: t, base: ts.http.URL, c: &http.Client{}} // no cookies: a token only
	if code := api.do("POST", fmt.Sprintf("/api/games/%d/chat", st.ID), fmt.Sprintf(`{"token":%q,"text":"from my program"}`, st.Tokens[0]), nil); code != 201 {
		t.Fatalf("a seat's token writes: %d", code)
	}
	if _, got := chatLines(t, ann, st.ID); len(got) != 1 || !strings.HasPrefix(got[0], "players: guest-") || !strings.HasSuffix(got[0], "from my program") {
		t.Fatalf("ann reads %q", got)
	}
	if _, got := chatLines(t, stranger, st.ID); len(got) != 1 || !strings.HasPrefix(got[0], "spectators: guest-") {
		t.Fatalf("the stranger reads %q", got)
	}
}
