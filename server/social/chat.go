package social

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"unicode/utf8"

	"kalah/internal/httpapi"
	"kalah/internal/identity"
	"kalah/internal/store"
	"kalah/server/core"
)

// A game's chat, as on lichess: two rooms, the players' (between the two
// players, private to them, during the game and after) and the
// spectators' (everyone else; the players read it only once the game is
// over, so nobody is helped from the gallery). Lines are kept with the
// game in the store and pushed live on the game's board stream as "chat"
// events. Who may write: a player in the players' room, anyone else with
// an identity (an account, a bot, a guest) in the spectators' room; in a
// rated game guests read but do not write. Every line is cleaned of
// control characters (identity.CleanText), at most MaxChatText
// characters, written at most chatRate a second a writer (and an
// address), and a room holds at most MaxChatLines.

// The chat rooms of a game.
const (
	RoomPlayers    = "players"
	RoomSpectators = "spectators"
)

// Bounds of a game's chat.
const (
	MaxChatText  = 140 // characters a line
	MaxChatLines = 500 // lines a room keeps
	chatRate     = 1.0 // lines a second a writer, in bursts of chatBurst
	chatBurst    = 5
	// An address may write for a few identities at once (a family, a
	// class), not for any number of new guests.
	chatAddrRate  = 3.0
	chatAddrBurst = 15
)

// chatHub hands each new line to the board streams of its game that may
// read it. Its lock guards its readers and nothing else.
type chatHub struct {
	mu   sync.Mutex
	subs map[int64]map[chan store.ChatLine]bool // by game: the stream, and whether a player holds it
}

// chatRole is who someone is in a game, for its chat.
type chatRole struct {
	who    identity.ID
	player bool
	over   bool // the game is over: the players read the spectators too
	rated  bool
}

// rooms returns the rooms the role reads.
func (c chatRole) rooms() []string {
	switch {
	case !c.player:
		return []string{RoomSpectators}
	case c.over:
		return []string{RoomPlayers, RoomSpectators}
	}
	return []string{RoomPlayers}
}

// room returns the room the role writes in.
func (c chatRole) room() string {
	if c.player {
		return RoomPlayers
	}
	return RoomSpectators
}

// writable says why the role may not write (nil: it may).
func (c chatRole) writable() error {
	switch {
	case c.player:
		return nil
	case c.rated && (c.who.IsZero() || c.who.Kind == identity.Guest):
		return fmt.Errorf("%w: in a rated game guests read the chat but do not write: sign in to chat", core.ErrSignIn)
	case c.who.IsZero():
		return fmt.Errorf("%w: who are you? open the game's page first", core.ErrSignIn)
	case c.who.Kind == identity.Program:
		return fmt.Errorf("%w: programs do not chat", core.ErrForbidden)
	}
	return nil
}

// chatRole returns a's role in game id: a player (by a seat's token or
// identity) or a spectator.
func (m *Social[G]) chatRole(ctx context.Context, id int64, a core.Actor) (chatRole, error) {
	role := chatRole{who: a.ID}
	seats, tags, over, live := m.host.LiveSeats(id)
	role.over = over
	if !live {
		sg, err := m.st.Game(ctx, id)
		if errors.Is(err, store.ErrNotFound) {
			return role, fmt.Errorf("game %d: %w", id, core.ErrNotFound)
		}
		if err != nil {
			return role, err
		}
		seats, tags, role.over = sg.Seats, sg.Record.Tags, sg.Status == store.Finished
	}
	for _, st := range seats {
		if st.Open || st.Kind == "spec" {
			continue
		}
		if m.host.TokenIs(st.TokenHash, a.Token) || a.ID.Is(st.ID) {
			role.player = true
			if role.who.IsZero() {
				role.who = st.ID
			}
		}
	}
	role.rated = tags[core.TagRated] == "yes" || tags[core.TagRatedAsked] == "yes"
	return role, nil
}

// ChatView is a game's chat as one reader sees it.
type ChatView struct {
	// Room is where the reader writes; CanWrite whether they may, and
	// Why not if they may not.
	Room     string           `json:"room"`
	CanWrite bool             `json:"can_write"`
	Why      string           `json:"why,omitempty"`
	Lines    []store.ChatLine `json:"lines"`
}

// Chat answers the lines of a game's chat its reader may read (GET
// /api/games/{id}/chat).
func (m *Social[G]) Chat(w http.ResponseWriter, r *http.Request) {
	id, err := m.host.GameID(r)
	if err != nil {
		httpapi.WriteError(w, err)
		return
	}
	role, err := m.chatRole(r.Context(), id, m.host.Actor(w, r, r.URL.Query().Get("token"), false))
	if err != nil {
		httpapi.WriteError(w, err)
		return
	}
	lines, err := m.st.Chat(r.Context(), id, role.rooms()...)
	if err != nil {
		httpapi.WriteError(w, err)
		return
	}
	out := ChatView{Room: role.room(), Lines: lines}
	if out.Lines == nil {
		out.Lines = []store.ChatLine{}
	}
	if why := role.writable(); why != nil && !(role.who.IsZero() && !role.rated) {
		out.Why = why.Error()
	} else {
		out.CanWrite = true // a stranger becomes a guest by writing, where guests may
	}
	httpapi.WriteJSON(w, http.StatusOK, out)
}

// Say writes a line in the reader's room of a game's chat (POST
// /api/games/{id}/chat).
func (m *Social[G]) Say(w http.ResponseWriter, r *http.Request) {
	id, err := m.host.GameID(r)
	if err != nil {
		httpapi.WriteError(w, err)
		return
	}
	var req struct {
		Token string `json:"token,omitempty"`
		Text  string `json:"text"`
	}
	if err := httpapi.ReadJSON(w, r, &req); err != nil {
		httpapi.WriteError(w, err)
		return
	}
	a := m.host.Actor(w, r, req.Token, false)
	role, err := m.chatRole(r.Context(), id, a)
	if err != nil {
		httpapi.WriteError(w, err)
		return
	}
	if role.who.IsZero() && !role.rated {
		// A stranger in a casual game's gallery: a guest from now.
		role.who = m.host.Actor(w, r, "", true).ID
	}
	if err := role.writable(); err != nil {
		httpapi.WriteError(w, err)
		return
	}
	text := identity.CleanText(req.Text, 0)
	switch n := utf8.RuneCountInString(text); {
	case n == 0:
		httpapi.WriteError(w, fmt.Errorf("%w: say something", core.ErrBadRequest))
		return
	case n > MaxChatText:
		httpapi.WriteError(w, fmt.Errorf("%w: %d characters: a line has at most %d", core.ErrBadRequest, n, MaxChatText))
		return
	}
	if !m.byWho.Allow(role.who.Key()) || !m.byAddr.Allow(core.HostOf(r)) {
		m.host.Refused("chat-rate")
		w.Header().Set("Retry-After", "2")
		httpapi.WriteError(w, fmt.Errorf("%w: you are writing too fast; wait a little", core.ErrTooMany))
		return
	}
	line, err := m.st.AddChat(r.Context(), store.ChatLine{Game: id, Room: role.room(), By: role.who, Text: text}, MaxChatLines)
	if errors.Is(err, store.ErrFull) {
		httpapi.WriteError(w, fmt.Errorf("%w: this chat holds %d lines, its most", core.ErrNoSeat, MaxChatLines))
		return
	}
	if err != nil {
		httpapi.WriteError(w, err)
		return
	}
	m.chat.publish(line, role.over)
	httpapi.WriteJSON(w, http.StatusCreated, line)
}

// publish hands a line to the streams of its game that may read it: the
// players' room to the players, the spectators' to the spectators and,
// once the game is over, to the players too.
func (h *chatHub) publish(c store.ChatLine, over bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for ch, player := range h.subs[c.Game] {
		if (c.Room == RoomPlayers) != player && !(over && player) {
			continue
		}
		select {
		case ch <- c:
		default: // a reader that does not keep up misses a line; GET has them all
		}
	}
}

// Feed returns the chat lines of game id that a may read, as they are
// written, and a function to stop: what a board stream pushes as "chat"
// events.
func (m *Social[G]) Feed(ctx context.Context, id int64, a core.Actor) (<-chan store.ChatLine, func()) {
	role, err := m.chatRole(ctx, id, a)
	if err != nil {
		return nil, func() {}
	}
	return m.chat.subscribe(id, role.player)
}

// subscribe adds a reader of game id's chat, a player's or a spectator's,
// and returns its lines and a function to stop.
func (h *chatHub) subscribe(id int64, player bool) (<-chan store.ChatLine, func()) {
	ch := make(chan store.ChatLine, 32)
	h.mu.Lock()
	if h.subs[id] == nil {
		h.subs[id] = map[chan store.ChatLine]bool{}
	}
	h.subs[id][ch] = player
	h.mu.Unlock()
	return ch, func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		delete(h.subs[id], ch)
		if len(h.subs[id]) == 0 {
			delete(h.subs, id)
		}
	}
}
