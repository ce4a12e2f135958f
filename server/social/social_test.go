package social

import (
	"context"
	"errors"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"kalah/internal/identity"
	"kalah/internal/store"
	"kalah/referee"
	"kalah/server/core"
)

// TestTimeControlWords: a clock as lichess writes it.
func TestTimeControlWords(t *testing.T) {
	for _, c := range []struct {
		ref  referee.Referee
		want string
	}{
		{referee.Referee{Budget: 3 * time.Minute, Increment: 2 * time.Second}, "3+2"},
		{referee.Referee{Budget: 30 * time.Second}, "½+0"},
		{referee.Referee{Budget: 90 * time.Second, Increment: 500 * time.Millisecond}, "1.5+0.5"},
		{referee.Referee{PerMove: 10 * time.Second}, "10s a move"},
		{referee.Referee{}, "no clock"},
	} {
		if got := timeControl(c.ref); got != c.want {
			t.Errorf("%+v: %q, want %q", c.ref, got, c.want)
		}
	}
}

// TestChatRoleRooms: a player reads the players' room, and the
// spectators' too once the game is over; a spectator reads and writes the
// spectators'; a guest does not write in a rated game, a stranger nowhere,
// a program never.
func TestChatRoleRooms(t *testing.T) {
	ann, guest, prog := identity.Of(identity.Person, "ann"), identity.Of(identity.Guest, "guest-1"), identity.Of(identity.Program, "expert")
	for _, c := range []struct {
		name  string
		role  chatRole
		reads []string
		room  string
		why   error // nil: may write
	}{
		{"a player", chatRole{who: ann, player: true, rated: true}, []string{RoomPlayers}, RoomPlayers, nil},
		{"a player, after the game", chatRole{who: ann, player: true, over: true}, []string{RoomPlayers, RoomSpectators}, RoomPlayers, nil},
		{"a spectator", chatRole{who: ann, rated: true}, []string{RoomSpectators}, RoomSpectators, nil},
		{"a guest, casual", chatRole{who: guest}, []string{RoomSpectators}, RoomSpectators, nil},
		{"a guest, rated", chatRole{who: guest, rated: true}, []string{RoomSpectators}, RoomSpectators, core.ErrSignIn},
		{"a stranger", chatRole{}, []string{RoomSpectators}, RoomSpectators, core.ErrSignIn},
		{"a program", chatRole{who: prog}, []string{RoomSpectators}, RoomSpectators, core.ErrForbidden},
	} {
		if got := c.role.rooms(); !equal(got, c.reads) {
			t.Errorf("%s reads %v, want %v", c.name, got, c.reads)
		}
		if got := c.role.room(); got != c.room {
			t.Errorf("%s writes in %q, want %q", c.name, got, c.room)
		}
		if err := c.role.writable(); (c.why == nil) != (err == nil) || c.why != nil && !errors.Is(err, c.why) {
			t.Errorf("%s may write: %v, want %v", c.name, err, c.why)
		}
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// liveHost is a server with one live game, 7, between ann and bob.
type liveHost struct {
	over bool
}

func (liveHost) Actor(http.ResponseWriter, *http.Request, string, bool) core.Actor {
	return core.Actor{}
}
func (liveHost) SessionUser(*http.Request) string    { return "" }
func (liveHost) GameID(*http.Request) (int64, error) { return 7, nil }
func (h liveHost) LiveSeats(id int64) ([2]store.Seat, map[string]string, bool, bool) {
	if id != 7 {
		return [2]store.Seat{}, nil, false, false
	}
	return [2]store.Seat{{Name: "ann", ID: identity.Of(identity.Person, "ann")}, {Name: "bob", ID: identity.Of(identity.Person, "bob"), TokenHash: "bob's"}},
		map[string]string{core.TagRated: "yes"}, h.over, true
}
func (liveHost) TokenIs(hash, token string) bool { return hash != "" && hash == token+"'s" }
func (liveHost) Setup(map[string]string) (referee.Referee, bool) {
	return referee.Referee{}, false
}
func (liveHost) Refused(string)                 {}
func (liveHost) PlayedBy([]identity.ID) []int64 { return nil }

// TestChatFeed: each board stream of a game hears the lines of the rooms
// its reader may read, a player known by identity or by a seat's token,
// the players the spectators' room too once the game is over; a stream
// stopped hears nothing and leaves no trace in the hub.
func TestChatFeed(t *testing.T) {
	st, err := store.Open(filepath.Join(t.TempDir(), "kalah.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	m := New[int64](st, liveHost{})
	ctx := context.Background()
	ann, stopAnn := m.Feed(ctx, 7, core.Actor{ID: identity.Of(identity.Person, "ann")})
	bob, stopBob := m.Feed(ctx, 7, core.Actor{Token: "bob"}) // by the seat's token
	gus, stopGus := m.Feed(ctx, 7, core.Actor{ID: identity.Of(identity.Person, "gus")})
	other, stopOther := m.Feed(ctx, 8, core.Actor{ID: identity.Of(identity.Person, "gus")}) // no such game: no stream
	defer stopOther()
	if other != nil {
		t.Errorf("a stream of a game that is not there hears its chat")
	}
	heard := func(ch <-chan store.ChatLine) []string {
		var out []string
		for {
			select {
			case l := <-ch:
				out = append(out, l.Room+":"+l.Text)
			default:
				return out
			}
		}
	}
	m.chat.publish(store.ChatLine{Game: 7, Room: RoomPlayers, Text: "gl"}, false)
	m.chat.publish(store.ChatLine{Game: 7, Room: RoomSpectators, Text: "nice"}, false)
	m.chat.publish(store.ChatLine{Game: 8, Room: RoomSpectators, Text: "elsewhere"}, false)
	for _, c := range []struct {
		name string
		ch   <-chan store.ChatLine
		want []string
	}{
		{"ann", ann, []string{"players:gl"}},
		{"bob", bob, []string{"players:gl"}},
		{"gus", gus, []string{"spectators:nice"}},
	} {
		if got := heard(c.ch); !equal(got, c.want) {
			t.Errorf("during the game %s hears %v, want %v", c.name, got, c.want)
		}
	}
	m.chat.publish(store.ChatLine{Game: 7, Room: RoomSpectators, Text: "gg"}, true)
	if got := heard(ann); !equal(got, []string{"spectators:gg"}) {
		t.Errorf("after the game ann hears %v", got)
	}
	stopAnn()
	m.chat.publish(store.ChatLine{Game: 7, Room: RoomPlayers, Text: "bye"}, true)
	if got := heard(ann); got != nil {
		t.Errorf("a stopped stream hears %v", got)
	}
	stopBob()
	stopGus()
	m.chat.mu.Lock()
	n := len(m.chat.subs)
	m.chat.mu.Unlock()
	if n != 0 {
		t.Errorf("the hub keeps %d games after their streams stopped", n)
	}
}
