package web

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"mime"
	"net/http"
	"path"
	"strings"
	"time"

	"kalah"
	"kalah/internal/netx"
	"kalah/player"
	"kalah/server"
)

//go:embed static
var staticFS embed.FS

// Prefix is where the page's API lives; the server's own routes are under
// /api/ and /ws/.
const Prefix = "/web/api/"

// Options configure the page.
type Options struct {
	// Games are the games the page plays and shows: the match server's
	// (NewServerGames), the one runtime of every game; required.
	Games Games
	// Analyzer values positions for the analysis board; nil means package
	// engine (Engine).
	Analyzer Analyzer
	// Tournaments runs tournaments; nil means none on this page.
	Tournaments Tournaments
	// Log receives request errors; nil discards them.
	Log *slog.Logger
	// MaxAnalysis bounds the time one analysis request may take; zero means
	// 10 seconds.
	MaxAnalysis time.Duration
	// Requester, if set, names who makes a request ("user:NAME",
	// "addr:HOST"), so the games the page starts count among that one's
	// unfinished games (the server's --max-open-games).
	Requester func(r *http.Request) string
	// Trusted, if set, says whether a request may start a game between two
	// computers (the server's work, not a guest's): a signed-in person or
	// the server's admin. Nil refuses such games.
	Trusted func(r *http.Request) bool
}

// Handler serves the page and its API.
type Handler struct {
	ctx  context.Context // ends the event streams when it ends
	opts Options
	mux  *http.ServeMux
	// files holds each static file, plain and gzipped, by name.
	files map[string]*asset
}

type asset struct {
	plain, gz []byte
	etag      string
	ctype     string
}

// New returns the page's handler. When ctx ends, its event streams close,
// so a server shutting down need not wait for them.
func New(ctx context.Context, o Options) (*Handler, error) {
	if o.Games == nil {
		return nil, errors.New("web: no games to play: give Options.Games (NewServerGames)")
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Analyzer == nil {
		o.Analyzer = &Engine{}
	}
	if o.MaxAnalysis <= 0 {
		o.MaxAnalysis = 10 * time.Second
	}
	if o.Tournaments == nil {
		o.Tournaments = noTournaments{}
	}
	h := &Handler{ctx: ctx, opts: o, mux: http.NewServeMux(), files: map[string]*asset{}}
	if err := h.loadStatic(); err != nil {
		return nil, err
	}
	h.routes()
	return h, nil
}

func (h *Handler) loadStatic() error {
	return fs.WalkDir(staticFS, "static", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := staticFS.ReadFile(p)
		if err != nil {
			return err
		}
		var gz bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
		zw.Write(b)
		zw.Close()
		sum := sha256.Sum256(b)
		ct := mime.TypeByExtension(path.Ext(p))
		if ct == "" {
			ct = "application/octet-stream"
		}
		h.files[strings.TrimPrefix(p, "static/")] = &asset{plain: b, gz: gz.Bytes(), etag: `"` + hex.EncodeToString(sum[:8]) + `"`, ctype: ct}
		return nil
	})
}

// PageWeight returns the bytes of the page's static files, plain and
// gzipped, by file name.
func (h *Handler) PageWeight() map[string][2]int {
	out := map[string][2]int{}
	for n, a := range h.files {
		out[n] = [2]int{len(a.plain), len(a.gz)}
	}
	return out
}

func (h *Handler) routes() {
	m := h.mux
	m.HandleFunc("GET /{$}", h.static("index.html"))
	m.HandleFunc("GET /web/static/{file}", func(w http.ResponseWriter, r *http.Request) {
		h.static(r.PathValue("file"))(w, r)
	})
	m.HandleFunc("GET /favicon.ico", h.static("favicon.svg"))
	m.HandleFunc("GET "+Prefix+"meta", h.meta)
	m.HandleFunc("GET "+Prefix+"games", h.listGames)
	m.HandleFunc("POST "+Prefix+"games", h.createGame)
	m.HandleFunc("GET "+Prefix+"games/{id}", h.gameState)
	m.HandleFunc("GET "+Prefix+"games/{id}/events", h.gameEvents)
	m.HandleFunc("GET "+Prefix+"games/{id}/record", h.gameRecord)
	m.HandleFunc("POST "+Prefix+"games/{id}/join", h.join)
	m.HandleFunc("POST "+Prefix+"games/{id}/move", h.move)
	m.HandleFunc("POST "+Prefix+"games/{id}/undo", h.undo)
	m.HandleFunc("POST "+Prefix+"games/{id}/hint", h.hint)
	m.HandleFunc("POST "+Prefix+"games/{id}/resign", h.resign)
	m.HandleFunc("POST "+Prefix+"games/{id}/rematch", h.rematch)
	m.HandleFunc("POST "+Prefix+"analyze", h.analyze)
	m.HandleFunc("POST "+Prefix+"analyze/game", h.analyzeGame)
	m.HandleFunc("GET "+Prefix+"tournaments", h.listTournaments)
	m.HandleFunc("POST "+Prefix+"tournaments", h.createTournament)
	m.HandleFunc("GET "+Prefix+"tournaments/{id}", h.tournament)
	m.HandleFunc(Prefix, func(w http.ResponseWriter, r *http.Request) {
		h.fail(w, r, fmt.Errorf("%w: no route %s %s", ErrNotFound, r.Method, r.URL.Path))
	})
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	if (r.Method == http.MethodPost || r.Method == http.MethodPut || r.Method == http.MethodPatch) && strings.HasPrefix(r.URL.Path, Prefix) && !netx.CheckWrite(w, r) {
		return // a form, text or a page of another site
	}
	h.mux.ServeHTTP(w, r)
}

func (h *Handler) static(name string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		a, ok := h.files[name]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", a.ctype)
		w.Header().Set("ETag", a.etag)
		w.Header().Set("Cache-Control", "no-cache")
		w.Header().Add("Vary", "Accept-Encoding")
		if r.Header.Get("If-None-Match") == a.etag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		body := a.plain
		if strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			w.Header().Set("Content-Encoding", "gzip")
			body = a.gz
		}
		w.Write(body)
	}
}

// errNotJSON is a request body sent as anything but JSON.
var errNotJSON = errors.New("send the body as application/json")

// errorBody is every error the API returns.
type errorBody struct {
	Error string `json:"error"`
}

func status(err error) int {
	switch {
	case errors.Is(err, errNotJSON):
		return http.StatusUnsupportedMediaType
	case errors.Is(err, ErrNotFound):
		return http.StatusNotFound
	case errors.Is(err, ErrForbidden):
		return http.StatusForbidden
	case errors.Is(err, ErrNotYours), errors.Is(err, ErrNoSeat), errors.Is(err, ErrNotCasual),
		errors.Is(err, kalah.ErrGameOver), errors.Is(err, kalah.ErrNoUndo):
		return http.StatusConflict
	case errors.Is(err, ErrBadInput), errors.Is(err, kalah.ErrIllegalMove), errors.Is(err, kalah.ErrSyntax),
		errors.Is(err, kalah.ErrInvalidRules), errors.Is(err, kalah.ErrBadPosition), errors.Is(err, ErrNoMoves),
		errors.Is(err, player.ErrUnknownPlayer):
		return http.StatusBadRequest
	case errors.Is(err, ErrTooMany):
		return http.StatusTooManyRequests
	case errors.Is(err, ErrBusy), errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}

func (h *Handler) fail(w http.ResponseWriter, r *http.Request, err error) {
	code := status(err)
	if code == http.StatusInternalServerError {
		h.opts.Log.Error("web request failed", "method", r.Method, "path", r.URL.Path, "err", err)
	}
	writeJSON(w, code, errorBody{Error: err.Error()})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}

// decode reads a JSON body of at most 64 KiB into v, refusing unknown
// fields and trailing data.
//
// The body must be sent as application/json, which a form on another site
// cannot do without the browser asking this server first (CORS), so no
// other site can make a visitor's browser start games here.
func decode(w http.ResponseWriter, r *http.Request, v any) error {
	if ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); ct != "application/json" {
		return fmt.Errorf("%w: %w", errNotJSON, ErrBadInput)
	}
	body := http.MaxBytesReader(w, r.Body, 64<<10)
	dec := json.NewDecoder(body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%w: request body: %v", ErrBadInput, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("%w: request body: data after the JSON value", ErrBadInput)
	}
	return nil
}

// Meta is what the page needs to offer choices.
type Meta struct {
	Presets []PresetInfo `json:"presets"`
	Players []PlayerInfo `json:"players"`
	Levels  []LevelInfo  `json:"levels"`
	// Bots are the bots connected to the server that take tournament
	// games, as player specs ("bot:alice"); tournaments only.
	Bots []string `json:"bots,omitempty"`
}

// PresetInfo is a named rule set.
type PresetInfo struct {
	Rules  kalah.Rules `json:"rules"`
	Source string      `json:"source"`
}

// PlayerInfo is a kind of computer player.
type PlayerInfo struct {
	Name    string `json:"name"`
	Usage   string `json:"usage"`
	Summary string `json:"summary"`
}

// LevelInfo is a friendly difficulty name.
type LevelInfo struct {
	Name        string `json:"name"`
	Spec        string `json:"spec"`
	Description string `json:"description"`
}

func (h *Handler) meta(w http.ResponseWriter, r *http.Request) {
	var m Meta
	for _, p := range kalah.Presets() {
		m.Presets = append(m.Presets, PresetInfo{Rules: p.Rules, Source: p.Source})
	}
	for _, p := range player.List() {
		if p.Raw || p.Name+":" == server.BotPrefix {
			continue // external programs are for the command line, not a web form; bots are listed by name
		}
		m.Players = append(m.Players, PlayerInfo{Name: p.Name, Usage: p.Usage, Summary: p.Summary})
	}
	for _, l := range player.Levels() {
		m.Levels = append(m.Levels, LevelInfo{Name: l.Name, Spec: l.Spec, Description: l.Description})
	}
	if b, ok := h.opts.Tournaments.(interface{ Bots() []string }); ok {
		m.Bots = b.Bots()
	}
	writeJSON(w, http.StatusOK, m)
}

func (h *Handler) listGames(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, h.opts.Games.List())
}

// allowedSpec refuses player specs that would run programs on the server.
func allowedSpec(spec string) error {
	if spec == "" || spec == Human {
		return nil
	}
	info, _, err := player.Lookup(spec)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrBadInput, err)
	}
	if info.Raw {
		return fmt.Errorf("%w: player %s cannot be started from the web", ErrBadInput, info.Name)
	}
	if err := player.CheckLimits(spec, player.NetworkLimits); err != nil {
		return fmt.Errorf("%w: %w", ErrBadInput, err)
	}
	return nil
}

func (h *Handler) createGame(w http.ResponseWriter, r *http.Request) {
	var req NewGame
	if err := decode(w, r, &req); err != nil {
		h.fail(w, r, err)
		return
	}
	for _, s := range []string{req.South, req.North} {
		if err := allowedSpec(s); err != nil {
			h.fail(w, r, err)
			return
		}
	}
	if req.Tournament != "" {
		h.fail(w, r, fmt.Errorf("%w: games join tournaments only through the tournament", ErrBadInput))
		return
	}
	// A guest may play the computer; a game between two computers (the
	// server's work) or two people (by link) needs a signed-in person.
	isHuman := func(spec string) bool { return spec == "" || spec == Human }
	if isHuman(req.South) == isHuman(req.North) && (h.opts.Trusted == nil || !h.opts.Trusted(r)) {
		what := "a game between two computers"
		if isHuman(req.South) {
			what = "a game with a friend"
		}
		h.fail(w, r, fmt.Errorf("%w: sign in to start %s; a guest may play the computer", ErrForbidden, what))
		return
	}
	for i := range req.Names {
		if len(req.Names[i]) > 40 {
			h.fail(w, r, fmt.Errorf("%w: name longer than 40 bytes", ErrBadInput))
			return
		}
	}
	ctx := r.Context()
	if h.opts.Requester != nil {
		ctx = withRequester(ctx, h.opts.Requester(r))
	}
	c, err := h.opts.Games.Create(ctx, req)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, c)
}

func (h *Handler) gameState(w http.ResponseWriter, r *http.Request) {
	st, err := h.opts.Games.State(r.PathValue("id"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, st)
}

func (h *Handler) gameRecord(w http.ResponseWriter, r *http.Request) {
	st, err := h.opts.Games.State(r.PathValue("id"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", "kalah-"+st.ID+".txt"))
	io.WriteString(w, st.Record)
}

// gameEvents streams the game's state as Server-Sent Events, one "state"
// event each time it changes, until the client goes away.
func (h *Handler) gameEvents(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	st, ch, err := h.opts.Games.Watch(id)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	netx.LongLived(w)
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	ping := time.NewTicker(15 * time.Second)
	defer ping.Stop()
	last := -1
	for {
		if st.Version != last {
			b, _ := json.Marshal(st)
			if _, err := fmt.Fprintf(w, "event: state\ndata: %s\n\n", b); err != nil {
				return
			}
			if err := rc.Flush(); err != nil {
				return
			}
			last = st.Version
		}
		select {
		case <-r.Context().Done():
			return
		case <-h.ctx.Done():
			return
		case <-ping.C:
			if _, err := io.WriteString(w, ": ping\n\n"); err != nil {
				return
			}
			rc.Flush()
			continue
		case <-ch:
		}
		st, ch, err = h.opts.Games.Watch(id)
		if err != nil {
			return
		}
	}
}

func (h *Handler) join(w http.ResponseWriter, r *http.Request) {
	seat, tok, err := h.opts.Games.Join(r.PathValue("id"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"seat": seat, "token": tok})
}

// seatRequest is the body of the calls that act for a seat.
type seatRequest struct {
	Token string `json:"token"`
	Move  string `json:"move,omitempty"`
}

func (h *Handler) seatCall(w http.ResponseWriter, r *http.Request) (seatRequest, bool) {
	var req seatRequest
	if err := decode(w, r, &req); err != nil {
		h.fail(w, r, err)
		return req, false
	}
	if req.Token == "" {
		h.fail(w, r, fmt.Errorf("%w: no token", ErrForbidden))
		return req, false
	}
	return req, true
}

func (h *Handler) move(w http.ResponseWriter, r *http.Request) {
	req, ok := h.seatCall(w, r)
	if !ok {
		return
	}
	m, err := kalah.ParseMove(req.Move)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	st, err := h.opts.Games.Move(r.Context(), r.PathValue("id"), req.Token, m)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, st)
}

func (h *Handler) undo(w http.ResponseWriter, r *http.Request) {
	req, ok := h.seatCall(w, r)
	if !ok {
		return
	}
	st, err := h.opts.Games.Undo(r.PathValue("id"), req.Token)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, st)
}

func (h *Handler) hint(w http.ResponseWriter, r *http.Request) {
	req, ok := h.seatCall(w, r)
	if !ok {
		return
	}
	m, err := h.opts.Games.Hint(r.Context(), r.PathValue("id"), req.Token)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"move": m.String()})
}

func (h *Handler) resign(w http.ResponseWriter, r *http.Request) {
	req, ok := h.seatCall(w, r)
	if !ok {
		return
	}
	st, err := h.opts.Games.Resign(r.PathValue("id"), req.Token)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, st)
}

func (h *Handler) rematch(w http.ResponseWriter, r *http.Request) {
	req, ok := h.seatCall(w, r)
	if !ok {
		return
	}
	c, err := h.opts.Games.Rematch(r.PathValue("id"), req.Token)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, c)
}

// AnalyzeRequest asks for the value of every move of a position.
type AnalyzeRequest struct {
	Rules    kalah.Rules `json:"rules"`
	Position string      `json:"position"`
	Millis   int         `json:"time_ms"`
}

// AnalyzeResponse is the analysis of a position.
type AnalyzeResponse struct {
	Position string     `json:"position"`
	Pits     []int      `json:"pits"`
	ToMove   kalah.Side `json:"to_move"`
	Over     bool       `json:"over"`
	Score    [2]int     `json:"score"`
	Analysis
}

func (h *Handler) budget(ms int) (time.Duration, error) {
	if ms < 0 || time.Duration(ms)*time.Millisecond > h.opts.MaxAnalysis {
		return 0, fmt.Errorf("%w: time_ms %d (want 0 to %d)", ErrBadInput, ms, h.opts.MaxAnalysis.Milliseconds())
	}
	if ms == 0 {
		return min(time.Second, h.opts.MaxAnalysis), nil
	}
	return time.Duration(ms) * time.Millisecond, nil
}

func (h *Handler) analyze(w http.ResponseWriter, r *http.Request) {
	var req AnalyzeRequest
	if err := decode(w, r, &req); err != nil {
		h.fail(w, r, err)
		return
	}
	if err := req.Rules.Validate(); err != nil {
		h.fail(w, r, err)
		return
	}
	budget, err := h.budget(req.Millis)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	p := req.Rules.Start()
	if strings.TrimSpace(req.Position) != "" {
		if p, err = kalah.ParsePosition(req.Position); err != nil {
			h.fail(w, r, err)
			return
		}
	}
	if err := p.CheckRules(&req.Rules); err != nil {
		h.fail(w, r, err)
		return
	}
	out := AnalyzeResponse{ToMove: p.ToMove()}
	if p.Over(&req.Rules) {
		p.Settle(&req.Rules)
		out.Over = true
	} else if out.Analysis, err = h.opts.Analyzer.Analyze(r.Context(), req.Rules, p, budget); err != nil {
		h.fail(w, r, err)
		return
	}
	out.Position, out.Pits = p.String(), pits(p)
	out.Score = [2]int{p.Store(kalah.South), p.Store(kalah.North)}
	writeJSON(w, http.StatusOK, out)
}

// GameAnalysisRequest asks for the evaluation of every position of a game.
type GameAnalysisRequest struct {
	Rules  kalah.Rules `json:"rules"`
	Start  string      `json:"start,omitempty"`
	Moves  string      `json:"moves"`
	Millis int         `json:"time_ms"`
}

// Ply is the evaluation of one position of a game, from South's view.
type Ply struct {
	Position string `json:"position"`
	Pits     []int  `json:"pits"`
	ToMove   string `json:"to_move"`
	Move     string `json:"move,omitempty"` // the move played from here
	Best     string `json:"best,omitempty"`
	Value    int    `json:"value"` // final store difference South less North
	Exact    bool   `json:"exact"`
	Depth    int    `json:"depth"`
	Extra    bool   `json:"extra,omitempty"`
	Capture  bool   `json:"capture,omitempty"`
}

func (h *Handler) analyzeGame(w http.ResponseWriter, r *http.Request) {
	var req GameAnalysisRequest
	if err := decode(w, r, &req); err != nil {
		h.fail(w, r, err)
		return
	}
	budget, err := h.budget(req.Millis)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	var g *kalah.Game
	if strings.TrimSpace(req.Start) != "" {
		var p kalah.Position
		if p, err = kalah.ParsePosition(req.Start); err != nil {
			h.fail(w, r, err)
			return
		}
		// err, not a shadow of it: a start that does not fit the rules is
		// refused below, not played.
		g, err = kalah.NewGameFrom(req.Rules, p)
	} else {
		g, err = kalah.NewGame(req.Rules)
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if err := g.PlayMoveText(req.Moves); err != nil {
		h.fail(w, r, fmt.Errorf("%w: %w", ErrBadInput, err))
		return
	}
	n := g.Len() + 1
	if n > 1000 {
		h.fail(w, r, fmt.Errorf("%w: %d moves (at most 999 a game)", ErrBadInput, n-1))
		return
	}
	deadline := time.Now().Add(budget)
	moves := g.Moves()
	out := make([]Ply, 0, n)
	rules := g.Rules()
	for i := range n {
		p := g.PositionAt(i)
		ply := Ply{Position: p.String(), Pits: pits(p), ToMove: p.ToMove().Letter()}
		if i < len(moves) {
			ply.Move = moves[i].Move.String()
			ply.Extra = moves[i].Effect&kalah.Extra != 0
			ply.Capture = moves[i].Effect&kalah.Capture != 0
		}
		if p.Over(&rules) {
			q := p
			q.Settle(&rules)
			ply.Value, ply.Exact = q.Store(kalah.South)-q.Store(kalah.North), true
		} else {
			per := max(time.Until(deadline)/time.Duration(n-i), time.Millisecond)
			an, err := h.opts.Analyzer.Analyze(r.Context(), rules, p, per)
			if err != nil {
				h.fail(w, r, err)
				return
			}
			best := an.Moves[0]
			ply.Best, ply.Value, ply.Exact, ply.Depth = best.Move.String(), best.Value, best.Exact, best.Depth
			if p.ToMove() == kalah.North {
				ply.Value = -ply.Value
			}
		}
		out = append(out, ply)
	}
	writeJSON(w, http.StatusOK, out)
}

func (h *Handler) listTournaments(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, h.opts.Tournaments.List())
}

func (h *Handler) createTournament(w http.ResponseWriter, r *http.Request) {
	var req NewTournament
	if err := decode(w, r, &req); err != nil {
		h.fail(w, r, err)
		return
	}
	// A tournament is the server's work: it needs a signed-in person.
	if h.opts.Trusted == nil || !h.opts.Trusted(r) {
		h.fail(w, r, fmt.Errorf("%w: sign in to start a tournament", ErrForbidden))
		return
	}
	for _, s := range req.Players {
		if err := allowedSpec(s); err != nil {
			h.fail(w, r, err)
			return
		}
	}
	id, err := h.opts.Tournaments.Create(r.Context(), req)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	st, err := h.opts.Tournaments.State(id)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, st)
}

func (h *Handler) tournament(w http.ResponseWriter, r *http.Request) {
	st, err := h.opts.Tournaments.State(r.PathValue("id"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, st)
}
