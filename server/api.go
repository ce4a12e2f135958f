package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
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
	req.By = s.actor(w, r, "", true).ID
	req.Addrs = [2]string{hostOf(r), hostOf(r)}
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
