package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"kalah"
	"kalah/internal/netx"
	"kalah/internal/store"
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
	// Tags are the game's stored tags: its settings, its tournament, why
	// it was forfeited (Reason), its takebacks.
	Tags map[string]string `json:"tags,omitempty"`
	// Watchers counts who follows a live game: its event streams and the
	// spectators on our protocol (players' pages included).
	Watchers int `json:"watchers,omitempty"`
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
	Open      [2]bool    `json:"open"`  // by seat: a person's seat nobody has taken yet (Join)
	Casual    bool       `json:"casual"`
	DelayMS   int64      `json:"delay_ms"`
	PerMoveMS int64      `json:"per_move_ms"`
	// RemainingMS is each seat's budget left when the game has one, as of
	// TurnStarted for the seat to move.
	RemainingMS [2]int64  `json:"remaining_ms"`
	TurnStarted time.Time `json:"turn_started,omitzero"`
	// Reason says in words why the game was forfeited, if it was.
	Reason string `json:"reason,omitempty"`
	// Specs are the computer players' specs, by seat ("" for others).
	Specs [2]string `json:"specs"`
	// Accounts are who plays each seat on the rating ladders ("" for
	// guests and programs).
	Accounts [2]string `json:"accounts"`
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
		Score: kalah.Score{South: s, North: n}, Tags: lg.tags, Created: lg.created, Watchers: len(lg.subs) + len(lg.watchers)}
}

func infoOf(sg store.Game) GameInfo {
	return GameInfo{ID: sg.ID, Status: sg.Status, Rules: sg.Record.Rules, South: sg.Seats[0].Name, North: sg.Seats[1].Name,
		Plies: sg.Plies, Result: sg.Record.Result, Termination: sg.Record.Termination,
		Score: sg.Record.Final, Created: sg.Created, Finished: sg.Finished, Tags: sg.Record.Tags}
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
	v := GameView{GameInfo: infoOf(sg), Record: sg.Record, Reason: sg.Record.Tags[ReasonTag]}
	for i, seat := range sg.Seats {
		if seat.Kind == "spec" {
			v.Specs[i] = seat.Spec
		}
		v.Accounts[i] = seat.Account
	}
	if lg == nil {
		return v, nil
	}
	lg.mu.Lock()
	defer lg.mu.Unlock()
	g := lg.snap
	rec := g.Record()
	// The stored tags (settings, takebacks) with the live game's own.
	for k, v := range sg.Record.Tags {
		if _, ok := rec.Tags[k]; !ok {
			if rec.Tags == nil {
				rec.Tags = map[string]string{}
			}
			rec.Tags[k] = v
		}
	}
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
		if h := lg.humans[i]; h != nil {
			v.Human[i] = true
			h.mu.Lock()
			v.Open[i] = h.open
			h.mu.Unlock()
		}
	}
	v.Casual = lg.casual
	clock := s.clockOf(lg)
	v.PerMoveMS = clock.PerMove.Milliseconds()
	v.DelayMS = clock.Delay.Milliseconds()
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

// Move plays a human seat's move in game id; token says which seat. A
// NoMove resigns.
func (s *Server) Move(id int64, token string, m kalah.Move) error {
	lg, err := s.liveGame(id)
	if err != nil {
		return err
	}
	h, _, err := lg.humanOf(token)
	if err != nil {
		return err
	}
	ack, err := h.give(m)
	if err != nil {
		return err
	}
	return played(s.ctx, ack)
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
	mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		writeErr(w, fmt.Errorf("%w: no route %s %s", ErrNotFound, r.Method, r.URL.Path))
	})
	mux.HandleFunc("GET /ws/bot", s.serveWSLimited)
	mux.HandleFunc("GET /api/games", s.apiGames)
	mux.HandleFunc("GET /api/games/{id}", s.apiGame)
	mux.HandleFunc("GET /api/games/{id}/events", s.streamed(StreamEvents, s.apiEvents))
	mux.HandleFunc("POST /api/games", s.apiStart)
	mux.HandleFunc("POST /api/games/{id}/move", s.apiMove)
	mux.HandleFunc("POST /api/games/{id}/join", s.apiJoin)
	mux.HandleFunc("POST /api/games/{id}/takeback", s.apiTakeBack)
	mux.HandleFunc("POST /api/games/{id}/hint", s.apiHint)
	mux.HandleFunc("POST /api/games/{id}/rematch", s.apiRematch)
	mux.HandleFunc("POST /api/games/{id}/resign", s.apiResign)
	mux.HandleFunc("POST /api/games/{id}/claim", s.apiClaim)
	mux.HandleFunc("POST /api/games/{id}/takeback/decline", s.apiDeclineTakeBack)
	mux.HandleFunc("GET /api/games/{id}/board", s.apiBoard)
	mux.HandleFunc("GET /api/games/{id}/record", s.apiRecord)
	mux.HandleFunc("GET /api/games/{id}/board/events", s.streamed(StreamBoard, s.apiBoardEvents))
	mux.HandleFunc("POST /api/arranged", s.apiArranged)
	mux.HandleFunc("GET /api/bots", s.apiBots)
	mux.HandleFunc("GET /api/bots/online", s.apiOnlineBots)
	mux.HandleFunc("POST /api/bots/{name}/challenge", s.apiChallengeBot)
	mux.HandleFunc("GET /api/ratings", s.apiRatings)
	mux.HandleFunc("GET /api/seeks", s.apiSeeks)
	mux.HandleFunc("POST /api/seeks", s.apiSeek)
	mux.HandleFunc("GET /api/seeks/{id}", s.apiSeekState)
	mux.HandleFunc("POST /api/seeks/{id}/accept", s.apiSeekAccept)
	mux.HandleFunc("POST /api/seeks/{id}/cancel", s.apiSeekCancel)
	mux.HandleFunc("GET /api/players/{name}", s.apiPlayer)
	mux.HandleFunc("GET /api/players/{name}/records", s.apiPlayerRecords)
	mux.HandleFunc("POST /api/account/signup", s.apiSignup)
	mux.HandleFunc("POST /api/account/login", s.apiLogin)
	mux.HandleFunc("POST /api/account/logout", s.apiLogout)
	mux.HandleFunc("GET /api/account", s.apiAccount)
	mux.HandleFunc("POST /api/account/bots", s.apiNewBot)
	// Limits keyed by address count the real client behind a trusted
	// proxy; every answer carries the security headers.
	return s.cfg.TrustedProxies.RealClients(netx.Secured(writesChecked(mux)))
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
	case errors.Is(err, ErrTooMany):
		code = http.StatusTooManyRequests
	case errors.Is(err, ErrSignIn):
		code = http.StatusUnauthorized
	case errors.Is(err, ErrNotCasual), errors.Is(err, ErrNoSeat), errors.Is(err, kalah.ErrGameOver), errors.Is(err, kalah.ErrNoUndo):
		code = http.StatusConflict
	}
	writeJSON(w, code, map[string]string{"error": err.Error()})
}

func (s *Server) apiGames(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	status := q.Get("status")
	if status != "" && status != "live" && status != "finished" {
		writeErr(w, fmt.Errorf("%w: status %q: want live or finished (or none: both)", ErrBadRequest, status))
		return
	}
	// Every game, the people's on the page, the bots' and the KGP
	// clients', in one list: the live ones first, then the finished ones,
	// newest first (paged with limit and before).
	games := []GameInfo{}
	if status != "finished" {
		player := q.Get("player")
		for _, g := range s.LiveGames() {
			if player == "" || g.South == player || g.North == player {
				games = append(games, g)
			}
		}
		if status == "live" {
			writeJSON(w, http.StatusOK, games)
			return
		}
	}
	limit, _ := strconv.Atoi(q.Get("limit"))
	before, _ := strconv.ParseInt(q.Get("before"), 10, 64)
	done, err := s.FinishedGames(r.Context(), min(max(limit, 0), 1000), before, q.Get("player"))
	if err != nil {
		writeErr(w, err)
		return
	}
	writeJSON(w, http.StatusOK, append(games, done...))
}

// pathID reads a route's {id}: a game's number, or an id GameID knows.
func (s *Server) pathID(r *http.Request) (int64, error) {
	return s.GameID(r.Context(), r.PathValue("id"))
}

func (s *Server) apiGame(w http.ResponseWriter, r *http.Request) {
	id, err := s.pathID(r)
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
	id, err := s.pathID(r)
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
	if err := decodeJSON(w, r, &req); err != nil {
		writeErr(w, err)
		return
	}
	// A guest may play the computer; any other game (two computers, the
	// server's work; two people) needs an account or the admin token.
	isHuman := func(spec string) bool {
		spec = strings.TrimSpace(spec)
		return spec == "" || strings.EqualFold(spec, "human")
	}
	if isHuman(req.South) != isHuman(req.North) {
		// a guest against the computer
	} else if s.sessionUser(r) == "" && !s.admitted(w, r, "a game between two computers or two people (or an account: sign in)") {
		return
	}
	// A signed-in person plays the first person's seat as their account.
	if u := s.sessionUser(r); u != "" {
		for i, spec := range []string{req.South, req.North} {
			if isHuman(spec) {
				req.accounts[i] = u
				break
			}
		}
	}
	st, err := s.StartGameFor(r.Context(), s.Requester(r), req)
	if err != nil {
		writeErr(w, err)
		return
	}
	writeJSON(w, http.StatusCreated, st)
}

func (s *Server) apiMove(w http.ResponseWriter, r *http.Request) {
	id, req, ok := s.seatRequest(w, r)
	if !ok {
		return
	}
	if req.Move == "resign" {
		s.answerBoard(w, r, id, s.Resign(r.Context(), id, req.Token))
		return
	}
	m, err := kalah.ParseMove(req.Move)
	if err != nil {
		writeErr(w, fmt.Errorf("%w: %w", ErrBadRequest, err))
		return
	}
	// The server asks a person for a move only after the game's pause
	// between moves, so a move sent as soon as the page shows the turn
	// may come early: it waits for its turn a little.
	deadline := time.Now().Add(3 * time.Second)
	for {
		err = s.Move(id, req.Token, m)
		if !errors.Is(err, ErrNotYourTurn) || errors.Is(err, errInterrupted) || time.Now().After(deadline) {
			break
		}
		select {
		case <-r.Context().Done():
			return
		case <-time.After(25 * time.Millisecond):
		}
	}
	s.answerBoard(w, r, id, err)
}

// answerBoard answers a seat's request with the game's Board, or err.
func (s *Server) answerBoard(w http.ResponseWriter, r *http.Request, id int64, err error) {
	if err != nil {
		writeErr(w, err)
		return
	}
	b, err := s.BoardOf(r.Context(), id)
	if err != nil {
		writeErr(w, err)
		return
	}
	writeJSON(w, http.StatusOK, b)
}

// hostOf is the address a request's client is counted under by the
// limits: the real client behind a trusted proxy, an IPv6 one by its /64
// (netx.Key).
func hostOf(r *http.Request) string { return netx.Key(r) }

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

// seatBody is the body of a seat's request.
type seatBody struct {
	Token string `json:"token"`
	Move  string `json:"move,omitempty"`
}

// seatRequest reads the route's game and the {"token", "move"} body of a
// seat's request; a request without a token is refused.
func (s *Server) seatRequest(w http.ResponseWriter, r *http.Request) (int64, seatBody, bool) {
	var req seatBody
	id, err := s.pathID(r)
	if err == nil {
		err = decodeJSON(w, r, &req)
	}
	if err == nil && req.Token == "" {
		err = fmt.Errorf("%w: no token", ErrForbidden)
	}
	if err != nil {
		writeErr(w, err)
		return 0, req, false
	}
	return id, req, true
}

func (s *Server) apiJoin(w http.ResponseWriter, r *http.Request) {
	id, err := s.pathID(r)
	if err != nil {
		writeErr(w, err)
		return
	}
	seat, token, err := s.Join(r.Context(), id)
	if err != nil {
		writeErr(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"seat": seat, "token": token})
}

func (s *Server) apiTakeBack(w http.ResponseWriter, r *http.Request) {
	id, req, ok := s.seatRequest(w, r)
	if !ok {
		return
	}
	s.answerBoard(w, r, id, s.TakeBack(r.Context(), id, req.Token))
}

func (s *Server) apiDeclineTakeBack(w http.ResponseWriter, r *http.Request) {
	id, req, ok := s.seatRequest(w, r)
	if !ok {
		return
	}
	s.answerBoard(w, r, id, s.DeclineTakeBack(r.Context(), id, req.Token))
}

func (s *Server) apiClaim(w http.ResponseWriter, r *http.Request) {
	id, req, ok := s.seatRequest(w, r)
	if !ok {
		return
	}
	s.answerBoard(w, r, id, s.Claim(r.Context(), id, req.Token))
}

func (s *Server) apiResign(w http.ResponseWriter, r *http.Request) {
	id, req, ok := s.seatRequest(w, r)
	if !ok {
		return
	}
	s.answerBoard(w, r, id, s.Resign(r.Context(), id, req.Token))
}

func (s *Server) apiHint(w http.ResponseWriter, r *http.Request) {
	id, req, ok := s.seatRequest(w, r)
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
	defer cancel()
	m, err := s.Hint(ctx, id, req.Token)
	if err != nil {
		writeErr(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"move": m.String()})
}

// Requester names who makes r, for the limits on unfinished games:
// "user:NAME" for a signed-in person, else "addr:HOST" for a guest.
func (s *Server) Requester(r *http.Request) string {
	if u := s.sessionUser(r); u != "" {
		return "user:" + u
	}
	return "addr:" + hostOf(r)
}

// StartGameFor starts a game as StartGame does, counted among the
// unfinished games of who (Requester), of which each may have at most
// Config.MaxOpenGames at once (ErrTooMany beyond).
func (s *Server) StartGameFor(ctx context.Context, who string, req GameRequest) (Started, error) {
	if !s.reserveOpen(who) {
		s.refused("open-games")
		return Started{}, fmt.Errorf("%w: %d unfinished games already, the most this server allows at once; finish one first", ErrTooMany, s.cfg.MaxOpenGames)
	}
	st, err := s.StartGame(ctx, req)
	if err != nil {
		s.releaseOpen(who)
		return Started{}, err
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
	return st, nil
}

func (s *Server) apiRematch(w http.ResponseWriter, r *http.Request) {
	id, req, ok := s.seatRequest(w, r)
	if !ok {
		return
	}
	st, err := s.Rematch(r.Context(), id, req.Token)
	if err != nil {
		writeErr(w, err)
		return
	}
	writeJSON(w, http.StatusCreated, st)
}
