package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/coder/websocket"

	"kalah"
	"kalah/internal/netx"
	"kalah/internal/store"
	"kalah/player"
	"kalah/protocol/line"
)

// GameInfo sums up a game for lists.
type GameInfo struct {
	ID          int64             `json:"id"`
	Status      store.Status      `json:"status"`
	Rules       kalah.Rules       `json:"rules"`
	South       string            `json:"south"` // the player who started as South
	North       string            `json:"north"`
	Plies       int               `json:"plies"`
	Position    string            `json:"position"` // kalah notation; live games only
	Result      kalah.Result      `json:"result"`
	Termination kalah.Termination `json:"termination"`
	Score       kalah.Score       `json:"score"`
	Created     time.Time         `json:"created,omitzero"`
	Finished    time.Time         `json:"finished,omitzero"`
}

// GameView is one game in full: its record and, while it is played, its
// live state.
type GameView struct {
	GameInfo
	Record kalah.Record `json:"record"`
	// Live state, for games being played:
	ToMove    kalah.Side `json:"to_move"`
	Swapped   bool       `json:"swapped"`
	Legal     []int      `json:"legal"` // houses the side to move may sow; -1 for swap
	Away      [2]bool    `json:"away"`  // by seat: a bot whose connection dropped
	Human     [2]bool    `json:"human"` // by seat: moves through Move
	PerMoveMS int64      `json:"per_move_ms"`
	// RemainingMS is each seat's budget left when the game has one, as of
	// TurnStarted for the seat to move.
	RemainingMS [2]int64  `json:"remaining_ms"`
	TurnStarted time.Time `json:"turn_started,omitzero"`
}

// LiveGames returns the games being played, oldest first.
func (s *Server) LiveGames() []GameInfo {
	s.mu.Lock()
	games := make([]*liveGame, 0, len(s.live))
	for _, lg := range s.live {
		games = append(games, lg)
	}
	s.mu.Unlock()
	out := make([]GameInfo, 0, len(games))
	for _, lg := range games {
		out = append(out, lg.info())
	}
	slices.SortFunc(out, func(a, b GameInfo) int { return int(a.ID - b.ID) })
	return out
}

func (lg *liveGame) info() GameInfo {
	lg.mu.Lock()
	defer lg.mu.Unlock()
	g := lg.snap
	s, n := g.Score()
	st := store.Live
	if lg.over {
		st = store.Finished
	}
	return GameInfo{ID: lg.id, Status: st, Rules: lg.rules, South: lg.seats[0].Name, North: lg.seats[1].Name,
		Plies: g.Len(), Position: g.Position().String(), Result: g.Result(), Termination: g.Termination(),
		Score: kalah.Score{South: s, North: n}}
}

func infoOf(sg store.Game) GameInfo {
	return GameInfo{ID: sg.ID, Status: sg.Status, Rules: sg.Record.Rules, South: sg.Seats[0].Name, North: sg.Seats[1].Name,
		Plies: sg.Plies, Result: sg.Record.Result, Termination: sg.Record.Termination,
		Score: sg.Record.Final, Created: sg.Created, Finished: sg.Finished}
}

// FinishedGames returns up to limit finished games from the store, newest
// first, with ids below before (0: from the newest); player, if set, keeps
// only that player's games.
func (s *Server) FinishedGames(ctx context.Context, limit int, before int64, playerName string) ([]GameInfo, error) {
	games, err := s.st.Games(ctx, store.Filter{Status: store.Finished, Limit: limit, Before: before, Player: playerName})
	if err != nil {
		return nil, err
	}
	out := make([]GameInfo, len(games))
	for i, g := range games {
		out[i] = infoOf(g)
	}
	return out, nil
}

// Game returns game id: its stored record and, if it is being played, its
// live state.
func (s *Server) Game(ctx context.Context, id int64) (GameView, error) {
	s.mu.Lock()
	lg := s.live[id]
	s.mu.Unlock()
	sg, err := s.st.Game(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return GameView{}, fmt.Errorf("game %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return GameView{}, err
	}
	v := GameView{GameInfo: infoOf(sg), Record: sg.Record}
	if lg == nil {
		return v, nil
	}
	lg.mu.Lock()
	defer lg.mu.Unlock()
	g := lg.snap
	rec := g.Record()
	for i := range rec.Moves {
		if i < len(lg.millis) {
			rec.Moves[i].Millis = lg.millis[i]
		}
	}
	v.Record = rec
	v.Plies = g.Len()
	v.Position = g.Position().String()
	v.Score = rec.Final
	v.ToMove = g.ToMove()
	v.Swapped = g.Swapped()
	for _, m := range g.Legal() {
		v.Legal = append(v.Legal, int(m))
	}
	for i := range 2 {
		if b := lg.bots[i]; b != nil {
			b.mu.Lock()
			v.Away[i] = b.conn == nil
			b.mu.Unlock()
		}
		v.Human[i] = lg.humans[i] != nil
	}
	clock := s.clockOf(lg)
	v.PerMoveMS = clock.PerMove.Milliseconds()
	if clock.Budget > 0 {
		for i := range 2 {
			v.RemainingMS[i] = clock.Budget.Milliseconds()
		}
		for i, m := range rec.Moves {
			seat := seatOf(g, i, m.Side)
			v.RemainingMS[seat] += clock.Increment.Milliseconds() - m.Millis
		}
	}
	v.TurnStarted = lg.turnAt
	return v, nil
}

// seatOf returns which seat made move i: the swap exchanges seats after it.
func seatOf(g *kalah.Game, i int, side kalah.Side) int {
	swapped := false
	for _, p := range g.Moves()[:i] {
		if p.Move == kalah.Swap {
			swapped = !swapped
		}
	}
	if swapped {
		return int(side.Other())
	}
	return int(side)
}

// Subscribe returns the events of live game id as they happen, and a
// function to stop. The channel is closed when the game ends (after its
// "end" event), when the server stops, or when the subscriber falls more
// than 64 events behind.
func (s *Server) Subscribe(id int64) (<-chan Event, func(), error) {
	s.mu.Lock()
	lg := s.live[id]
	s.mu.Unlock()
	if lg == nil {
		return nil, nil, fmt.Errorf("live game %d: %w", id, ErrNotFound)
	}
	ch := make(chan Event, 64)
	lg.mu.Lock()
	if lg.over || lg.subs == nil {
		lg.mu.Unlock()
		return nil, nil, fmt.Errorf("live game %d: %w", id, ErrNotFound)
	}
	lg.subs[ch] = struct{}{}
	lg.mu.Unlock()
	cancel := func() {
		lg.mu.Lock()
		if _, ok := lg.subs[ch]; ok {
			delete(lg.subs, ch)
			close(ch)
		}
		lg.mu.Unlock()
	}
	return ch, cancel, nil
}

// GameRequest asks StartGame for a game.
type GameRequest struct {
	Rules kalah.Rules `json:"rules"`
	// South and North are player specs (see kalah players) or "human" for
	// a person who moves through Move.
	South string `json:"south"`
	North string `json:"north"`
}

// Started is a game StartGame began.
type Started struct {
	ID int64 `json:"id"`
	// Tokens holds, for each human seat (0: South), the secret that Move
	// requires; empty for computer seats.
	Tokens [2]string `json:"tokens"`
}

// StartGame starts a game between two server-side players or people.
func (s *Server) StartGame(ctx context.Context, req GameRequest) (Started, error) {
	r := req.Rules
	if r.Houses == 0 {
		r = s.cfg.Rules
	}
	if err := r.Validate(); err != nil {
		return Started{}, err
	}
	var es [2]*entrant
	var out Started
	for i, spec := range []string{req.South, req.North} {
		spec = strings.TrimSpace(spec)
		e := &entrant{result: make(chan error, 1)}
		if strings.EqualFold(spec, "human") {
			tok := make([]byte, 16)
			rand.Read(tok)
			h := &humanSeat{token: hex.EncodeToString(tok)}
			out.Tokens[i] = h.token
			e.p, e.seat = h, store.Seat{Name: "human", Kind: "human"}
		} else {
			info, _, err := player.Lookup(spec)
			if err != nil {
				return Started{}, err
			}
			if info.Raw && !s.cfg.AllowExec {
				return Started{}, fmt.Errorf("%w: %s players run programs on the server; start the server with exec allowed", ErrForbidden, info.Name)
			}
			if err := player.CheckLimits(spec, s.limits()); err != nil {
				return Started{}, fmt.Errorf("%w: %w", ErrForbidden, err)
			}
			p, err := player.New(spec, player.Options{Rules: r, Seed: uint64(time.Now().UnixNano())})
			if err != nil {
				return Started{}, err
			}
			e.p, e.seat = p, store.Seat{Name: spec, Kind: "spec", Spec: spec}
		}
		es[i] = e
	}
	id, err := s.start(r, es)
	if err != nil {
		return Started{}, err
	}
	out.ID = id
	return out, nil
}

// Move plays a human seat's move in game id; token says which seat. A
// NoMove resigns.
func (s *Server) Move(id int64, token string, m kalah.Move) error {
	s.mu.Lock()
	lg := s.live[id]
	s.mu.Unlock()
	if lg == nil {
		return fmt.Errorf("live game %d: %w", id, ErrNotFound)
	}
	lg.mu.Lock()
	var h *humanSeat
	for _, x := range lg.humans {
		if x != nil && token != "" && x.token == token {
			h = x
		}
	}
	lg.mu.Unlock()
	if h == nil {
		return fmt.Errorf("%w: no seat with that token in game %d", ErrForbidden, id)
	}
	return h.give(m)
}

// Handler returns the server's HTTP routes: the bot protocol over
// WebSocket at /ws/bot, and JSON under /api/:
//
//	GET  /api/games?status=live|finished&player=NAME&before=ID&limit=N
//	GET  /api/games/{id}
//	GET  /api/games/{id}/events   (Server-Sent Events: one Event a message)
//	POST /api/games               {"rules":..., "south":"greedy", "north":"human"}
//	POST /api/games/{id}/move     {"token":"...", "move":"3"}
//	POST /api/arranged            {"south":"bot:alice", "north":"greedy", ...} (ArrangedRequest; answers when the game is over)
//	GET  /api/bots                names of the bots that take arranged games
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /ws/bot", s.serveWS)
	mux.HandleFunc("GET /api/games", s.apiGames)
	mux.HandleFunc("GET /api/games/{id}", s.apiGame)
	mux.HandleFunc("GET /api/games/{id}/events", s.apiEvents)
	mux.HandleFunc("POST /api/games", s.apiStart)
	mux.HandleFunc("POST /api/games/{id}/move", s.apiMove)
	mux.HandleFunc("POST /api/arranged", s.apiArranged)
	mux.HandleFunc("GET /api/bots", s.apiBots)
	mux.HandleFunc("POST /api/account/signup", s.apiSignup)
	mux.HandleFunc("POST /api/account/login", s.apiLogin)
	mux.HandleFunc("POST /api/account/logout", s.apiLogout)
	mux.HandleFunc("GET /api/account", s.apiAccount)
	mux.HandleFunc("POST /api/account/bots", s.apiNewBot)
	return writesChecked(mux)
}

// writesChecked refuses a request that changes something unless its body
// is JSON and it comes from no page of another site (netx.CheckWrite).
func writesChecked(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodPost, http.MethodPut, http.MethodPatch:
			if !netx.CheckWrite(w, r) {
				return
			}
		}
		h.ServeHTTP(w, r)
	})
}

func (s *Server) serveWS(w http.ResponseWriter, r *http.Request) {
	netx.LongLived(w)
	c, err := websocket.Accept(w, r, nil) // a foreign Origin is refused; none is fine
	if err != nil {
		return
	}
	s.startConn(line.NewWebSocket(c, s.cfg.MaxLine, r.RemoteAddr))
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}

func writeErr(w http.ResponseWriter, err error) {
	code := http.StatusBadRequest
	switch {
	case errors.Is(err, ErrNotFound):
		code = http.StatusNotFound
	case errors.Is(err, ErrForbidden):
		code = http.StatusForbidden
	case errors.Is(err, ErrNotYourTurn):
		code = http.StatusConflict
	case errors.Is(err, ErrBusy):
		code = http.StatusServiceUnavailable
	}
	writeJSON(w, code, map[string]string{"error": err.Error()})
}

func (s *Server) apiGames(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if q.Get("status") == "live" {
		writeJSON(w, http.StatusOK, s.LiveGames())
		return
	}
	limit, _ := strconv.Atoi(q.Get("limit"))
	before, _ := strconv.ParseInt(q.Get("before"), 10, 64)
	games, err := s.FinishedGames(r.Context(), min(max(limit, 0), 1000), before, q.Get("player"))
	if err != nil {
		writeErr(w, err)
		return
	}
	if games == nil {
		games = []GameInfo{}
	}
	writeJSON(w, http.StatusOK, games)
}

func pathID(r *http.Request) (int64, error) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("game %q: %w", r.PathValue("id"), ErrNotFound)
	}
	return id, nil
}

func (s *Server) apiGame(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r)
	if err == nil {
		var v GameView
		if v, err = s.Game(r.Context(), id); err == nil {
			writeJSON(w, http.StatusOK, v)
			return
		}
	}
	writeErr(w, err)
}

func (s *Server) apiEvents(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r)
	if err != nil {
		writeErr(w, err)
		return
	}
	ch, cancel, err := s.Subscribe(id)
	if err != nil {
		writeErr(w, err)
		return
	}
	defer cancel()
	netx.LongLived(w)
	fl, _ := w.(http.Flusher)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	if fl != nil {
		fl.Flush()
	}
	for {
		select {
		case e, ok := <-ch:
			if !ok {
				return
			}
			b, _ := json.Marshal(e)
			fmt.Fprintf(w, "event: %s\ndata: %s\n\n", e.Kind, b)
			if fl != nil {
				fl.Flush()
			}
		case <-r.Context().Done():
			return
		case <-s.ctx.Done():
			return
		}
	}
}

func (s *Server) apiStart(w http.ResponseWriter, r *http.Request) {
	var req GameRequest
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10)).Decode(&req); err != nil {
		writeErr(w, err)
		return
	}
	// A guest may play the computer; a game with no person in it (two
	// computers) is the server's work and needs its admin token.
	if !strings.EqualFold(strings.TrimSpace(req.South), "human") && !strings.EqualFold(strings.TrimSpace(req.North), "human") &&
		s.sessionUser(r) == "" && !s.admitted(w, r, "a game between two computers (or an account: sign in)") {
		return
	}
	// Unfinished games a person (or, for guests, an address) may have at
	// once over this API.
	who := "addr:" + hostOf(r)
	if u := s.sessionUser(r); u != "" {
		who = "user:" + u
	}
	if !s.reserveOpen(who) {
		writeJSON(w, http.StatusTooManyRequests, map[string]string{"error": fmt.Sprintf("%d unfinished games already, the most this server allows at once; finish one first", s.cfg.MaxOpenGames)})
		return
	}
	st, err := s.StartGame(r.Context(), req)
	if err != nil {
		s.releaseOpen(who)
		writeErr(w, err)
		return
	}
	s.mu.Lock()
	lg := s.live[st.ID]
	s.mu.Unlock()
	if lg == nil {
		s.releaseOpen(who) // over already
	} else {
		go func() {
			<-lg.finished
			s.releaseOpen(who)
		}()
	}
	writeJSON(w, http.StatusCreated, st)
}

func (s *Server) apiMove(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r)
	if err != nil {
		writeErr(w, err)
		return
	}
	var req struct {
		Token string `json:"token"`
		Move  string `json:"move"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4<<10)).Decode(&req); err != nil {
		writeErr(w, err)
		return
	}
	var m kalah.Move
	if req.Move != "resign" {
		if m, err = kalah.ParseMove(req.Move); err != nil {
			writeErr(w, err)
			return
		}
	}
	if err := s.Move(id, req.Token, m); err != nil {
		writeErr(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"ok": "move"})
}

// hostOf is a request's client address without the port.
func hostOf(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// reserveOpen counts one more unfinished API game for who, unless it has
// MaxOpenGames already.
func (s *Server) reserveOpen(who string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.openBy[who] >= s.cfg.MaxOpenGames {
		return false
	}
	s.openBy[who]++
	return true
}

func (s *Server) releaseOpen(who string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.openBy[who]--; s.openBy[who] <= 0 {
		delete(s.openBy, who)
	}
}
