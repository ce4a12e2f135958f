package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"kalah"
	"kalah/internal/httpapi"
	"kalah/internal/identity"
	"kalah/internal/netx"
	"kalah/internal/store"
	"kalah/server/core"
)

// GameInfo sums up a game for lists.
type GameInfo struct {
	ID     int64        `json:"id"`
	Status store.Status `json:"status"`
	Rules  kalah.Rules  `json:"rules"`
	// South and North name the players (the one who started as South
	// first); SouthID and NorthID are who they are ("user:alice",
	// "guest:guest-...", "program:expert"; empty for a player of an older
	// release known by no identity), for a page to say "you".
	South       string            `json:"south"`
	North       string            `json:"north"`
	SouthID     identity.ID       `json:"south_id"`
	NorthID     identity.ID       `json:"north_id"`
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
	// Spectators counts those of Watchers who play no seat: the people
	// watching, as a page says ("3 watching").
	Spectators int `json:"spectators,omitempty"`
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
	Away      [2]bool    `json:"away"`  // by seat: a bot whose connection dropped, a person gone
	Human     [2]bool    `json:"human"` // by seat: a person's seat
	Open      [2]bool    `json:"open"`  // by seat: a person's seat nobody has taken yet (Join)
	Casual    bool       `json:"casual"`
	DelayMS   int64      `json:"delay_ms"`
	PerMoveMS int64      `json:"per_move_ms"`
	// ClockMS and IncrementMS are each player's time for the game and
	// what a move adds to it, when the game has a clock for the game.
	ClockMS     int64 `json:"clock_ms,omitempty"`
	IncrementMS int64 `json:"increment_ms,omitempty"`
	// RemainingMS is each seat's budget left when the game has one, as of
	// TurnStarted for the seat to move.
	RemainingMS [2]int64  `json:"remaining_ms"`
	TurnStarted time.Time `json:"turn_started,omitzero"`
	// Reason says in words why the game ended, if it was forfeited,
	// aborted or adjudicated.
	Reason string `json:"reason,omitempty"`
	// Trouble says in words why a live game waits (the server cannot
	// store it now and keeps trying).
	Trouble string `json:"trouble,omitempty"`
	// Specs are the computer players' specs, by seat ("" for others).
	Specs [2]string `json:"specs"`
	// IDs are who plays each seat (as SouthID and NorthID).
	IDs [2]identity.ID `json:"ids"`
	// TakebackAsk is the seat asking the other person to take back a move
	// (-1: none); DrawOffer the seat offering a draw (-1: none).
	TakebackAsk int `json:"takeback_ask"`
	DrawOffer   int `json:"draw_offer"`
	// live: the view is a round's, not the store's; game is its game.
	live bool
	game *kalah.Game
	// running is the seat whose clock runs (-1: none).
	running int
	// draws: both seats can answer a draw offer (a live game's).
	draws bool
}

// LiveGames returns the games being played, oldest first.
func (s *Server) LiveGames() []GameInfo {
	s.mu.Lock()
	rounds := make([]*round, 0, len(s.live))
	for _, r := range s.live {
		rounds = append(rounds, r)
	}
	s.mu.Unlock()
	out := make([]GameInfo, 0, len(rounds))
	for _, r := range rounds {
		if v := r.View(); v != nil {
			out = append(out, viewInfo(v, r.ID()))
		}
	}
	slices.SortFunc(out, func(a, b GameInfo) int { return int(a.ID - b.ID) })
	return out
}

func viewInfo(v *view, id int64) GameInfo {
	g := v.G
	s, n := g.Score()
	st := store.Live
	if v.Over {
		st = store.Finished
	}
	return GameInfo{ID: id, Status: st, Rules: g.Rules(), South: v.Seats[0].Name, North: v.Seats[1].Name,
		SouthID: v.Seats[0].ID, NorthID: v.Seats[1].ID,
		Plies: g.Len(), Position: g.Position().String(), Result: g.Result(), Termination: g.Termination(),
		Score: kalah.Score{South: s, North: n}, Tags: v.Tags, Created: v.Created, Watchers: v.Watchers, Spectators: v.Spectators}
}

func infoOf(sg store.Game) GameInfo {
	return GameInfo{ID: sg.ID, Status: sg.Status, Rules: sg.Record.Rules, South: sg.Seats[0].Name, North: sg.Seats[1].Name,
		SouthID: sg.Seats[0].ID, NorthID: sg.Seats[1].ID, Plies: sg.Plies, Result: sg.Record.Result, Termination: sg.Record.Termination,
		Score: sg.Record.Final, Created: sg.Created, Finished: sg.Finished, Tags: sg.Record.Tags}
}

// FinishedGames returns up to limit finished games from the store, newest
// first, with ids below before (0: from the newest); who, if set, keeps
// only that identity's games.
func (s *Server) FinishedGames(ctx context.Context, limit int, before int64, who identity.ID) ([]GameInfo, error) {
	games, err := s.st.Games(ctx, store.Filter{Status: store.Finished, Limit: limit, Before: before, Player: who})
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
	rd := s.live[id]
	s.mu.Unlock()
	var lv *view
	if rd != nil {
		lv = rd.View()
	}
	if lv != nil && !lv.Ended {
		return s.liveView(id, lv), nil
	}
	sg, err := s.st.Game(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return GameView{}, fmt.Errorf("game %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return GameView{}, err
	}
	v := GameView{GameInfo: infoOf(sg), Record: sg.Record, Reason: sg.Record.Tags[ReasonTag], TakebackAsk: -1, DrawOffer: -1, running: -1}
	for i, seat := range sg.Seats {
		if seat.Kind == "spec" {
			v.Specs[i] = seat.Spec
		}
		v.IDs[i] = seat.ID
		v.Human[i] = seat.Kind == "human"
		v.Open[i] = seat.Open
	}
	su := s.setupOf(sg.Record.Tags)
	v.Casual = su.casual
	ref := s.referee()
	if su.ref != nil {
		ref = *su.ref
	}
	v.PerMoveMS, v.DelayMS = ref.PerMove.Milliseconds(), ref.Delay.Milliseconds()
	v.ClockMS, v.IncrementMS = ref.Budget.Milliseconds(), ref.Increment.Milliseconds()
	return v, nil
}

// liveView returns a live game as GameView shows it, from its round's view.
func (s *Server) liveView(id int64, lv *view) GameView {
	g := lv.G
	rec := g.Record()
	rec.Tags = maps.Clone(lv.Tags)
	for i := range rec.Moves {
		if i < len(lv.Millis) {
			rec.Moves[i].Millis = lv.Millis[i]
		}
	}
	v := GameView{GameInfo: viewInfo(lv, id), Record: rec, Reason: lv.Reason, Trouble: lv.Trouble, TakebackAsk: lv.TakebackAsk,
		DrawOffer: lv.DrawOffer, live: true, draws: lv.Draws, running: lv.Running, game: g}
	v.Score = rec.Final
	v.ToMove = g.ToMove()
	v.Swapped = g.Swapped()
	for _, m := range g.Legal() {
		v.Legal = append(v.Legal, int(m))
	}
	for i, st := range lv.Seats {
		if st.Kind == "spec" {
			v.Specs[i] = st.Spec
		}
		v.IDs[i] = st.ID
		v.Human[i] = st.Kind == "human"
		v.Open[i] = st.Open
		v.Away[i] = lv.Away[i]
		if lv.Ref.Budget > 0 {
			v.RemainingMS[i] = lv.Left[i].Milliseconds()
		}
	}
	v.Casual = lv.Casual
	v.ClockMS, v.IncrementMS = lv.Ref.Budget.Milliseconds(), lv.Ref.Increment.Milliseconds()
	v.PerMoveMS = lv.Ref.PerMove.Milliseconds()
	v.DelayMS = lv.Ref.Delay.Milliseconds()
	v.TurnStarted = lv.TurnAt
	return v
}

// Subscribe returns the events of live game id as they happen, and a
// function to stop. The channel is closed when the game ends (after its
// "end" event), when the server stops, or when the subscriber falls more
// than 64 events behind. who, if it plays a seat of the game, is there
// while it follows (a person with the game open is not "gone").
func (s *Server) Subscribe(id int64, who Actor) (<-chan Event, func(), error) {
	rd, err := s.round(id)
	if err != nil {
		return nil, nil, fmt.Errorf("live game %d: %w", id, ErrNotFound)
	}
	ch := make(chan Event, 64)
	ctx, cancel := context.WithTimeout(s.ctx, 10*time.Second)
	defer cancel()
	if err := rd.Subscribe(ctx, ch, who); err != nil {
		return nil, nil, fmt.Errorf("live game %d: %w", id, ErrNotFound)
	}
	stop := func() {
		if !rd.Unsubscribe(ch) {
			// The loop ended and closed every channel.
		}
	}
	return ch, stop, nil
}

// Handler returns the server's HTTP routes: the bot protocol over
// WebSocket at /ws/bot, and JSON under /api/ (docs/API.md).
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		httpapi.WriteError(w, fmt.Errorf("%w: no route %s %s", ErrNotFound, r.Method, r.URL.Path))
	})
	mux.HandleFunc("GET /ws/bot", s.serveWSLimited)
	mux.HandleFunc("GET /api/games", s.apiGames)
	mux.HandleFunc("GET /api/games/{id}", s.apiGame)
	mux.HandleFunc("GET /api/games/{id}/events", s.streamed(StreamEvents, s.apiEvents))
	mux.HandleFunc("POST /api/games", s.apiStart)
	mux.HandleFunc("POST /api/games/{id}/move", s.apiMove)
	mux.HandleFunc("POST /api/games/{id}/join", s.apiJoin)
	mux.HandleFunc("POST /api/games/{id}/takeback", s.seatAction(s.TakeBack))
	mux.HandleFunc("POST /api/games/{id}/takeback/decline", s.seatAction(s.DeclineTakeBack))
	mux.HandleFunc("POST /api/games/{id}/draw", s.apiDraw)
	mux.HandleFunc("POST /api/games/{id}/resign", s.seatAction(s.Resign))
	mux.HandleFunc("POST /api/games/{id}/abort", s.seatAction(s.Abort))
	mux.HandleFunc("POST /api/games/{id}/claim", s.seatAction(s.Claim))
	mux.HandleFunc("POST /api/games/{id}/moretime", s.seatAction(s.GiveTime))
	mux.HandleFunc("POST /api/games/{id}/hint", s.apiHint)
	mux.HandleFunc("POST /api/games/{id}/rematch", s.apiRematch)
	mux.HandleFunc("GET /api/games/{id}/board", s.apiBoard)
	mux.HandleFunc("GET /api/games/{id}/record", s.apiRecord)
	mux.HandleFunc("GET /api/games/{id}/board/events", s.streamed(StreamBoard, s.apiBoardEvents))
	mux.HandleFunc("GET /api/games/{id}/chat", s.apiChat)
	mux.HandleFunc("POST /api/games/{id}/chat", s.apiChatSay)
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
	mux.HandleFunc("GET /api/seeks/{id}/events", s.streamed(StreamSeek, s.apiSeekEvents))
	mux.HandleFunc("GET /api/players/{name}", s.apiPlayer)
	mux.HandleFunc("GET /api/players/{name}/records", s.apiPlayerRecords)
	mux.HandleFunc("POST /api/players/{name}/follow", s.apiFollow(true))
	mux.HandleFunc("POST /api/players/{name}/unfollow", s.apiFollow(false))
	mux.HandleFunc("GET /api/account/following", s.apiFollowing)
	mux.HandleFunc("GET /api/ratings/pools", s.apiPools)
	mux.HandleFunc("GET /api/admin/pairs", s.apiAdminPairs)
	mux.HandleFunc("POST /api/account/signup", s.apiSignup)
	mux.HandleFunc("POST /api/account/login", s.apiLogin)
	mux.HandleFunc("POST /api/account/logout", s.apiLogout)
	mux.HandleFunc("GET /api/account", s.apiAccount)
	mux.HandleFunc("POST /api/account/bots", s.apiNewBot)
	mux.HandleFunc("POST /api/account/bots/{name}/token", s.apiRotateBotToken)
	mux.HandleFunc("POST /api/account/password", s.apiPassword)
	mux.HandleFunc("POST /api/account/logout/everywhere", s.apiLogoutEverywhere)
	mux.HandleFunc("DELETE /api/account", s.apiDeleteAccount)
	// Limits keyed by address count the real client behind a trusted
	// proxy; every answer carries the security headers.
	return s.cfg.TrustedProxies.RealClients(netx.Secured(httpapi.Requests(writesChecked(mux), s.log, s.errs)))
}

// writesChecked refuses a request that changes something unless its body
// is JSON and it comes from no page of another site (netx.CheckWrite).
func writesChecked(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
			if err := netx.CheckWrite(r); err != nil {
				httpapi.WriteError(w, err)
				return
			}
		}
		h.ServeHTTP(w, r)
	})
}

func (s *Server) apiGames(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	status := q.Get("status")
	if status != "" && status != "live" && status != "finished" {
		httpapi.WriteError(w, fmt.Errorf("%w: status %q: want live or finished (or none: both)", ErrBadRequest, status))
		return
	}
	var who identity.ID
	if name := q.Get("player"); name != "" {
		var err error
		if who, err = s.st.Identity(r.Context(), name); errors.Is(err, store.ErrNotFound) {
			httpapi.WriteJSON(w, http.StatusOK, []GameInfo{}) // nobody of that name: no games
			return
		} else if err != nil {
			httpapi.WriteError(w, err)
			return
		}
	}
	// Every game, the people's on the page, the bots' and the KGP
	// clients', in one list: the live ones first, then the finished ones,
	// newest first (paged with limit and before).
	games := []GameInfo{}
	if status != "finished" {
		for _, g := range s.LiveGames() {
			if who.IsZero() || who.Is(g.SouthID) || who.Is(g.NorthID) {
				games = append(games, g)
			}
		}
		if status == "live" {
			httpapi.WriteJSON(w, http.StatusOK, games)
			return
		}
	}
	limit, _ := strconv.Atoi(q.Get("limit"))
	before, _ := strconv.ParseInt(q.Get("before"), 10, 64)
	done, err := s.FinishedGames(r.Context(), min(max(limit, 0), 1000), before, who)
	if err != nil {
		httpapi.WriteError(w, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, append(games, done...))
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
			httpapi.WriteJSON(w, http.StatusOK, v)
			return
		}
	}
	httpapi.WriteError(w, err)
}

func (s *Server) apiEvents(w http.ResponseWriter, r *http.Request) {
	id, err := s.pathID(r)
	if err != nil {
		httpapi.WriteError(w, err)
		return
	}
	ch, cancel, err := s.Subscribe(id, s.actor(w, r, "", false))
	if err != nil {
		httpapi.WriteError(w, err)
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
	if err := httpapi.ReadJSON(w, r, &req); err != nil {
		httpapi.WriteError(w, err)
		return
	}
	// A guest may play the computer or invite a friend; a game with no
	// person in it (the server's work), or one person on both sides, needs
	// an account or the admin token.
	isHuman := func(spec string) bool {
		spec = strings.TrimSpace(spec)
		return spec == "" || strings.EqualFold(spec, "human")
	}
	people := 0
	for _, spec := range []string{req.South, req.North} {
		if isHuman(spec) {
			people++
		}
	}
	if (people == 0 || people == 2 && !req.Invite) && s.sessionUser(r) == "" && !s.admitted(w, r, "a game between two computers, or for one person on both sides (or an account: sign in)") {
		return
	}
	req.by = s.actor(w, r, "", true).ID
	req.addrs = [2]string{hostOf(r), hostOf(r)}
	st, err := s.StartGame(r.Context(), req)
	if err != nil {
		httpapi.WriteError(w, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusCreated, st)
}

func (s *Server) apiMove(w http.ResponseWriter, r *http.Request) {
	id, a, req, ok := s.seatRequest(w, r)
	if !ok {
		return
	}
	if req.Move == "resign" {
		s.answerBoard(w, r, id, s.Resign(r.Context(), id, a))
		return
	}
	m, err := kalah.ParseMove(req.Move)
	if err != nil {
		httpapi.WriteError(w, fmt.Errorf("%w: %w", ErrBadRequest, err))
		return
	}
	s.answerBoard(w, r, id, s.Move(r.Context(), id, a, m))
}

// answerBoard answers a seat's request with the game's Board, or err.
func (s *Server) answerBoard(w http.ResponseWriter, r *http.Request, id int64, err error) {
	if err != nil {
		httpapi.WriteError(w, err)
		return
	}
	b, err := s.BoardOf(r.Context(), id)
	if err != nil {
		httpapi.WriteError(w, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, b)
}

// hostOf is the address a request's client is counted under by the
// limits: the real client behind a trusted proxy, an IPv6 one by its /64
// (netx.Key).
func hostOf(r *http.Request) string { return core.HostOf(r) }

// seatBody is the body of a seat's request: the seat's token, for API
// clients without a session (a page's session is enough), and a move.
type seatBody struct {
	Token  string `json:"token,omitempty"`
	Move   string `json:"move,omitempty"`
	Invite string `json:"invite,omitempty"`
	// Action is a draw offer's (POST /api/games/{id}/draw).
	Action string `json:"action,omitempty"`
}

// seatRequest reads the route's game, who asks, and the body of a seat's
// request (which may be empty).
func (s *Server) seatRequest(w http.ResponseWriter, r *http.Request) (int64, Actor, seatBody, bool) {
	var req seatBody
	id, err := s.pathID(r)
	if err == nil && r.ContentLength != 0 {
		err = httpapi.ReadJSON(w, r, &req)
	}
	var a Actor
	if err == nil {
		a, err = s.actorErr(w, r, req.Token, false)
	}
	if err != nil {
		httpapi.WriteError(w, err)
		return 0, Actor{}, req, false
	}
	return id, a, req, true
}

// seatAction serves a request a player makes on their game (resign,
// abort, takeback, ...), answered with the game's Board.
func (s *Server) seatAction(do func(ctx context.Context, id int64, a Actor) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, a, _, ok := s.seatRequest(w, r)
		if !ok {
			return
		}
		s.answerBoard(w, r, id, do(r.Context(), id, a))
	}
}

func (s *Server) apiJoin(w http.ResponseWriter, r *http.Request) {
	id, _, req, ok := s.seatRequest(w, r)
	if !ok {
		return
	}
	a := s.actor(w, r, "", true)
	seat, token, err := s.Join(r.Context(), id, a, req.Invite)
	if err != nil {
		httpapi.WriteError(w, err)
		return
	}
	out := map[string]any{"seat": seat, "token": token}
	// A rated invitation between players who have played their rated
	// games with each other today is played unrated: they hear it now.
	if v, err := s.Game(r.Context(), id); err == nil {
		if note := casualNote(v.Record.Tags, a.ID, v.IDs, [2]string{v.South, v.North}); note != "" {
			out["note"] = note
		}
	}
	httpapi.WriteJSON(w, http.StatusOK, out)
}

func (s *Server) apiHint(w http.ResponseWriter, r *http.Request) {
	id, a, _, ok := s.seatRequest(w, r)
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
	defer cancel()
	m, err := s.Hint(ctx, id, a)
	if err != nil {
		httpapi.WriteError(w, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, map[string]string{"move": m.String()})
}

// Requester names who makes r, for the limits on unfinished games:
// "user:NAME" for a signed-in person, else "addr:HOST" for a guest.
func (s *Server) Requester(r *http.Request) string {
	if u := s.sessionUser(r); u != "" {
		return "user:" + strings.ToLower(u)
	}
	return "addr:" + hostOf(r)
}

func (s *Server) apiRematch(w http.ResponseWriter, r *http.Request) {
	id, a, _, ok := s.seatRequest(w, r)
	if !ok {
		return
	}
	st, err := s.Rematch(r.Context(), id, a)
	if err != nil {
		httpapi.WriteError(w, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusCreated, st)
}
