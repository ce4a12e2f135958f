package web

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"mime"
	"net/http"
	"path"
	"strings"
	"sync"
	"time"

	"kalah"
	"kalah/engine"
	"kalah/internal/cores"
	"kalah/internal/httpapi"
	"kalah/internal/netx"
	"kalah/player"
)

//go:embed static
var staticFS embed.FS

// Prefix is where the one HTTP API lives (docs/API.md): the page serves
// its own part of it (meta, analysis, tournaments) and hands the rest
// (games, accounts, bots) to the server.
const Prefix = "/api/"

// Backend is the match server as the page uses it (*server.Server): the
// rest of the API, who asks, the real client behind the server's trusted
// proxies, and the refusals it counts. The page depends on this much
// only: the server's work (games, tournaments, the store) stays the
// server's.
type Backend interface {
	Handler() http.Handler
	RealClients(http.Handler) http.Handler
	Requester(*http.Request) string
	Refused(reason string)
}

// TournamentAPI is the server's tournaments as the page mounts them
// (*server.Tournaments): their part of the API, and the bots waiting to
// be entered.
type TournamentAPI interface {
	http.Handler
	Bots() []string
}

// Options configure the page.
type Options struct {
	// Server is the match server (*server.Server): the one runtime of
	// every game the page starts and shows, and the rest of the API;
	// required.
	Server Backend
	// Analyzer values positions for the analysis board; nil means package
	// engine (Engine).
	Analyzer Analyzer
	// Tournaments are the server's tournaments (*server.Tournaments),
	// whose part of the API (/api/tournaments) the page mounts; nil means
	// none on this page.
	Tournaments TournamentAPI
	// Log receives request errors; nil discards them.
	Log *slog.Logger
	// MaxAnalysis bounds the time one analysis request may take; zero means
	// 10 seconds.
	MaxAnalysis time.Duration
	// AnalysisRate and AnalysisBurst are the token bucket of analysis
	// requests (POST /api/analyze and /api/analyze/game) of each client: a
	// signed-in account, or a guest's address. Zero means 2 a second in
	// bursts of 20; a negative rate, no limit.
	AnalysisRate  float64
	AnalysisBurst int
	// DBBuilds tells where the perfect player's endgame databases being
	// built on first use stand, which the page shows its visitors (perfect
	// play and exact analysis are slower until they are built); nil means
	// engine.DBBuilds.
	DBBuilds func() []engine.DBBuild
	// Analyses bounds the analyses run at once, for everyone (zero: half
	// the cores, at least one); a request waits for a place as long as its
	// own budget, then is refused as busy (503). One client may run
	// analysesPerClient at once.
	Analyses int
}

// Handler serves the page and its API.
type Handler struct {
	ctx  context.Context // ends the event streams when it ends
	opts Options
	mux  *http.ServeMux
	errs *httpapi.Errors // the statuses of its answers (errorsOf)
	// files holds each static file, plain and gzipped, by name.
	files map[string]*asset

	analysisRate *netx.Limiter // analysis requests by client
	analyses     chan struct{} // a place for each analysis running
	mu           sync.Mutex
	analysing    map[string]int // analyses running by client
	games        gameCache      // the last game analyses, answered again
}

type asset struct {
	plain, gz []byte
	etag      string
	ctype     string
}

// New returns the page's handler. When ctx ends, its event streams close,
// so a server shutting down need not wait for them.
func New(ctx context.Context, o Options) (*Handler, error) {
	if o.Server == nil {
		return nil, errors.New("web: no server: give Options.Server")
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
	if o.AnalysisRate == 0 {
		o.AnalysisRate = 2
	}
	if o.AnalysisBurst <= 0 {
		o.AnalysisBurst = 20
	}
	if o.DBBuilds == nil {
		o.DBBuilds = engine.DBBuilds
	}
	if o.Analyses <= 0 {
		o.Analyses = max(cores.N()/2, 1)
	}
	h := &Handler{ctx: ctx, opts: o, mux: http.NewServeMux(), errs: errorsOf(o.Server), files: map[string]*asset{},
		analysisRate: netx.NewLimiter(o.AnalysisRate, o.AnalysisBurst), analyses: make(chan struct{}, o.Analyses), analysing: map[string]int{}}
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
	// The page's own part of the server's one API; games, accounts and
	// the rest are the server's (Options.Server).
	m.HandleFunc("GET "+Prefix+"meta", h.meta)
	m.HandleFunc("POST "+Prefix+"analyze", h.analyze)
	m.HandleFunc("POST "+Prefix+"analyze/game", h.analyzeGame)
	// The server's tournaments serve their own part of the API.
	if t := h.opts.Tournaments; t != nil {
		m.Handle(Prefix+"tournaments", t)
		m.Handle(Prefix+"tournaments/", t)
	} else {
		m.HandleFunc("GET "+Prefix+"tournaments", func(w http.ResponseWriter, r *http.Request) {
			httpapi.WriteJSON(w, http.StatusOK, []struct{}{})
		})
	}
	api := h.opts.Server.Handler()
	m.Handle(Prefix, api)
	m.Handle("/ws/", api)
	// Anything else: a page that says so (words.go).
	m.HandleFunc("/", h.notFound)
}

// ServeHTTP implements http.Handler. Every answer carries the security
// headers (netx.SecurityHeaders: a Content-Security-Policy that allows
// this server's own scripts and styles and no framing); every limit keyed
// by address counts the real client behind the server's trusted proxies.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.opts.Server.RealClients(httpapi.Requests(http.HandlerFunc(h.serve), h.opts.Log, h.errs)).ServeHTTP(w, r)
}

// errorsOf returns the statuses the page's answers take: the server's (a
// Backend that says them, as *server.Server does; else the HTTP layer's
// own) and the page's own refusals of analyses.
func errorsOf(b Backend) *httpapi.Errors {
	errs := httpapi.NewErrors()
	if e, ok := b.(interface{ Errors() *httpapi.Errors }); ok {
		errs = e.Errors().Clone()
	}
	return errs.Map(http.StatusTooManyRequests, errTooFast).Map(http.StatusServiceUnavailable, errAnalysesBusy)
}

func (h *Handler) serve(w http.ResponseWriter, r *http.Request) {
	netx.SecurityHeaders(w, r)
	if (r.Method == http.MethodPost || r.Method == http.MethodPut || r.Method == http.MethodPatch || r.Method == http.MethodDelete) && strings.HasPrefix(r.URL.Path, Prefix) {
		if err := netx.CheckWrite(r); err != nil {
			httpapi.WriteError(w, err) // a form, text or a page of another site
			return
		}
	}
	h.mux.ServeHTTP(w, r)
}

// analysesPerClient is how many analyses one client may run at once: the
// page sends one at a time, but a click may overlap the last answer.
const analysesPerClient = 2

// errAnalysesBusy refuses an analysis while the server runs as many as it
// may.
var errAnalysesBusy = errors.New("the server is analysing as many positions as it can")

// errTooFast refuses a client over its analysis rate.
var errTooFast = errors.New("too many analyses; wait a little")

// admitAnalysis takes a place for one analysis of r's client: within its
// rate and its share, then a place among the Analyses run at once, waited
// for as long as the request's budget. It answers the refusal itself (429
// or 503, with Retry-After) and returns nil then.
func (h *Handler) admitAnalysis(w http.ResponseWriter, r *http.Request, budget time.Duration) func() {
	who := h.opts.Server.Requester(r)
	refuse := func(err error) func() {
		w.Header().Set("Retry-After", "2")
		httpapi.WriteError(w, err)
		return nil
	}
	if !h.analysisRate.Allow(who) {
		h.opts.Server.Refused("analysis-rate")
		return refuse(errTooFast)
	}
	h.mu.Lock()
	if h.analysing[who] >= analysesPerClient {
		h.mu.Unlock()
		h.opts.Server.Refused("analysis-rate")
		return refuse(fmt.Errorf("%w: %d analyses of yours are running", errTooFast, analysesPerClient))
	}
	h.analysing[who]++
	h.mu.Unlock()
	done := func() {
		h.mu.Lock()
		if h.analysing[who]--; h.analysing[who] <= 0 {
			delete(h.analysing, who)
		}
		h.mu.Unlock()
	}
	t := time.NewTimer(budget)
	defer t.Stop()
	select {
	case h.analyses <- struct{}{}:
		return func() {
			<-h.analyses
			done()
		}
	case <-t.C:
		done()
		h.opts.Server.Refused("analysis-busy")
		return refuse(errAnalysesBusy)
	case <-r.Context().Done():
		done()
		return nil
	}
}

func (h *Handler) static(name string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		a, ok := h.files[name]
		if !ok {
			h.notFound(w, r)
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

// fail answers an error as the whole API does (httpapi.WriteError).
func (h *Handler) fail(w http.ResponseWriter, r *http.Request, err error) {
	httpapi.WriteError(w, err)
}

// Meta is what the page needs to offer choices.
type Meta struct {
	Presets []PresetInfo `json:"presets"`
	Players []PlayerInfo `json:"players"`
	Levels  []LevelInfo  `json:"levels"`
	// Bots are the bots connected to the server that take tournament
	// games, as player specs ("bot:alice"); tournaments only.
	Bots []string `json:"bots,omitempty"`
	// Building are the perfect player's endgame databases being built:
	// until they are, its moves and the analysis are slower and may be
	// estimates. The page asks again now and then while there are any.
	Building []Building `json:"building,omitempty"`
}

// Building is an endgame database being built on first use.
type Building struct {
	Seeds        int  `json:"seeds"`
	EmptyCapture bool `json:"empty_capture"`
	Percent      int  `json:"percent"`
	// Elsewhere: another process on the server's machine builds it, and
	// this one waits for it (Percent is not known).
	Elsewhere bool `json:"elsewhere,omitempty"`
	// ResumedFrom is the percentage a build stopped before (the server
	// restarted) had kept on disk, where this one went on from.
	ResumedFrom int `json:"resumed_from,omitempty"`
}

// PresetInfo is a named rule set: its source, and in Summary what it is
// in plain words.
type PresetInfo struct {
	Rules   kalah.Rules `json:"rules"`
	Source  string      `json:"source"`
	Summary string      `json:"summary"`
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
		m.Presets = append(m.Presets, PresetInfo{Rules: p.Rules, Source: p.Source, Summary: presetSummary(p.Rules)})
	}
	for _, p := range player.List() {
		if p.Raw || p.Server {
			continue // external programs are for the command line, not a web form; bots are listed by name
		}
		m.Players = append(m.Players, PlayerInfo{Name: p.Name, Usage: p.Usage, Summary: p.Summary})
	}
	for _, l := range player.Levels() {
		m.Levels = append(m.Levels, LevelInfo{Name: l.Name, Spec: l.Spec, Description: l.Description})
	}
	if t := h.opts.Tournaments; t != nil {
		m.Bots = t.Bots()
	}
	for _, b := range h.opts.DBBuilds() {
		m.Building = append(m.Building, Building{Seeds: b.Seeds, EmptyCapture: b.Rules.EmptyCapture, Percent: int(100 * b.Done / max(b.Total, 1)), Elsewhere: b.Elsewhere,
			ResumedFrom: int(100 * b.From / max(b.Total, 1))})
	}
	httpapi.WriteJSON(w, http.StatusOK, m)
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
		return 0, fmt.Errorf("%w: time_ms %d (want 0 to %d)", httpapi.ErrBadRequest, ms, h.opts.MaxAnalysis.Milliseconds())
	}
	if ms == 0 {
		return min(time.Second, h.opts.MaxAnalysis), nil
	}
	return time.Duration(ms) * time.Millisecond, nil
}

func (h *Handler) analyze(w http.ResponseWriter, r *http.Request) {
	var req AnalyzeRequest
	if err := httpapi.ReadJSON(w, r, &req); err != nil {
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
	release := h.admitAnalysis(w, r, budget)
	if release == nil {
		return
	}
	defer release()
	// The engine keeps to the budget; the deadline ends the request
	// should anything not.
	ctx, cancel := context.WithTimeout(r.Context(), budget+time.Second)
	defer cancel()
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
	} else if out.Analysis, err = h.opts.Analyzer.Analyze(ctx, req.Rules, p, budget); err != nil {
		h.fail(w, r, err)
		return
	}
	out.Position, out.Pits = p.String(), pits(p)
	out.Score = [2]int{p.Store(kalah.South), p.Store(kalah.North)}
	httpapi.WriteJSON(w, http.StatusOK, out)
}

// GameAnalysisRequest asks for the evaluation of every position of a game.
type GameAnalysisRequest struct {
	Rules  kalah.Rules `json:"rules"`
	Start  string      `json:"start,omitempty"`
	Moves  string      `json:"moves"`
	Millis int         `json:"time_ms"`
	// Record, if set, is a whole game in the text notation (a downloaded
	// record, pasted or read from a file): its rules, start and moves are
	// analysed instead of the fields above.
	Record string `json:"record,omitempty"`
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
	// PlayedValue is the final store difference (South less North) the
	// move played leads to, valued with Value (one set: both proven, or
	// both from one search of one depth).
	PlayedValue int `json:"played_value"`
	// Loss is what the move played gave away against the best move, in
	// the final store difference, for its mover (Value less PlayedValue
	// from its side; 0 exactly when the move is Best or as good), and
	// Seeds the seeds that is: half of it, rounded up (a seed that ends in
	// the opponent's store instead of the mover's moves the difference by
	// two). Class names it by classOf; LossExact when both values are
	// proven.
	Loss      int    `json:"loss,omitempty"`
	Seeds     int    `json:"seeds,omitempty"`
	Class     string `json:"class,omitempty"`
	LossExact bool   `json:"loss_exact,omitempty"`
}

// classOf names a move that gave away loss of the final store difference,
// where best is the final difference the best move leads to and played the
// move played's, both for its mover: "best" (nothing), "inaccuracy" (?!:
// one seed, a loss of 1 or 2), "mistake" (?: two or three seeds, 3 to 6),
// "blunder" (??: four seeds or more, 7 or more). A move that throws away
// the result where both values are proven (a win to a draw or a loss, a
// draw to a loss) is a blunder whatever it gave away, as lichess marks a
// move that loses a won game. docs/API.md and the page's help say the
// same.
func classOf(loss, best, played int, exact bool) string {
	seeds := (loss + 1) / 2
	switch {
	case loss <= 0:
		return "best"
	case seeds >= 4, exact && sign(played) < sign(best):
		return "blunder"
	case seeds >= 2:
		return "mistake"
	}
	return "inaccuracy"
}

// sign is -1, 0 or 1 as v is a loss, a draw or a win.
func sign(v int) int {
	switch {
	case v < 0:
		return -1
	case v > 0:
		return 1
	}
	return 0
}

// mark fills in ply's loss and class from the values of its position's best
// move and of the move played, final store differences for the mover.
func (ply *Ply) mark(best, played int, exact bool) {
	ply.Loss = max(best-played, 0)
	ply.Seeds = (ply.Loss + 1) / 2
	ply.Class, ply.LossExact = classOf(ply.Loss, best, played, exact), exact
}

// plyAt is position i of g, whose moves are played, as the analysis shows
// it before any value: the board, the move played from it, and for a
// position that ends the game its final value (over).
func plyAt(g *kalah.Game, played []kalah.Played, i int) (ply Ply, over bool) {
	p := g.PositionAt(i)
	ply = Ply{Position: p.String(), Pits: pits(p), ToMove: p.ToMove().Letter()}
	if i < len(played) {
		ply.Move = played[i].Move.String()
		ply.Extra = played[i].Effect&kalah.Extra != 0
		ply.Capture = played[i].Effect&kalah.Capture != 0
	}
	rules := g.RulesPtr()
	if p.Over(rules) {
		p.Settle(rules)
		ply.Value, ply.Exact = p.Store(kalah.South)-p.Store(kalah.North), true
		return ply, true
	}
	return ply, false
}

// wholeGame analyses g at once with ga, each position from South's view.
func wholeGame(ctx context.Context, ga GameAnalyzer, g *kalah.Game, budget time.Duration) ([]Ply, error) {
	rules := g.Rules()
	played := g.Moves()
	moves := make([]kalah.Move, len(played))
	for i, m := range played {
		moves[i] = m.Move
	}
	vals, err := ga.AnalyzeGame(ctx, rules, g.PositionAt(0), moves, budget)
	if err != nil {
		return nil, err
	}
	if len(vals) != len(moves)+1 {
		return nil, fmt.Errorf("the analysis has %d positions for a game of %d", len(vals), len(moves)+1)
	}
	out := make([]Ply, len(vals))
	for i, v := range vals {
		ply, over := plyAt(g, played, i)
		if over {
			out[i] = ply
			continue
		}
		p := g.PositionAt(i)
		ply.Exact, ply.Depth = v.Exact, v.Depth
		me := p.ToMove()
		ply.Value = p.Store(me) - p.Store(me.Other()) + v.Value
		ply.Best = v.Best.String()
		now := p.Store(me) - p.Store(me.Other())
		if i < len(moves) {
			ply.PlayedValue = now + v.PlayedValue
			ply.mark(now+v.Value, ply.PlayedValue, v.Exact && v.PlayedExact)
		}
		if me == kalah.North {
			ply.Value, ply.PlayedValue = -ply.Value, -ply.PlayedValue
		}
		out[i] = ply
	}
	return out, nil
}

func (h *Handler) analyzeGame(w http.ResponseWriter, r *http.Request) {
	var req GameAnalysisRequest
	if err := httpapi.ReadJSON(w, r, &req); err != nil {
		h.fail(w, r, err)
		return
	}
	budget, err := h.budget(req.Millis)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	var g *kalah.Game
	if strings.TrimSpace(req.Record) != "" {
		rec, err := kalah.ParseGame(req.Record)
		if err != nil {
			h.fail(w, r, fmt.Errorf("%w: the record: %w", httpapi.ErrBadRequest, err))
			return
		}
		// Analysed from its start, with the moves it played.
		g, err = kalah.NewGameFrom(rec.Rules(), rec.Start())
		if err == nil {
			for _, p := range rec.Moves() {
				if _, err = g.Play(p.Move); err != nil {
					break
				}
			}
		}
		if err != nil {
			h.fail(w, r, fmt.Errorf("%w: the record: %w", httpapi.ErrBadRequest, err))
			return
		}
		req.Moves = ""
	} else if strings.TrimSpace(req.Start) != "" {
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
		h.fail(w, r, fmt.Errorf("%w: %w", httpapi.ErrBadRequest, err))
		return
	}
	n := g.Len() + 1
	if n > 1000 {
		h.fail(w, r, fmt.Errorf("%w: %d moves (at most 999 a game)", httpapi.ErrBadRequest, n-1))
		return
	}
	// The same game, asked again, is answered as before: two views of it
	// never disagree (unless the analyzer has learnt more since).
	if out, ok := h.games.get(gameKey(h.opts.Analyzer, g), budget); ok {
		httpapi.WriteJSON(w, http.StatusOK, out)
		return
	}
	release := h.admitAnalysis(w, r, budget)
	if release == nil {
		return
	}
	defer release()
	deadline := time.Now().Add(budget)
	ctx, cancel := context.WithDeadline(r.Context(), deadline.Add(time.Second))
	defer cancel()
	start := g.PositionAt(0)
	if ga, ok := h.opts.Analyzer.(GameAnalyzer); ok && start.Phase() == kalah.PhasePlay {
		// The whole game at once, exact where it can be; an analyzer that
		// cannot take it (rules too large, every engine busy) leaves it to
		// the position-by-position analysis below in the time left.
		if out, err := wholeGame(ctx, ga, g, budget); err == nil {
			h.games.put(gameKey(h.opts.Analyzer, g), budget, out)
			httpapi.WriteJSON(w, http.StatusOK, out)
			return
		} else if ctx.Err() != nil {
			h.fail(w, r, err)
			return
		}
	}
	moves := g.Moves()
	out := make([]Ply, 0, n)
	rules := g.Rules()
	for i := range n {
		ply, over := plyAt(g, moves, i)
		if p := g.PositionAt(i); !over {
			per := max(time.Until(deadline)/time.Duration(n-i), time.Millisecond)
			an, err := h.opts.Analyzer.Analyze(ctx, rules, p, per)
			if err != nil {
				h.fail(w, r, err)
				return
			}
			// One search valued every move: the best and the move played
			// come from it, the move played named best where it is as good.
			best := an.Moves[0]
			if i < len(moves) {
				for _, mv := range an.Moves {
					if mv.Move == moves[i].Move {
						if mv.Value >= best.Value {
							best = mv
						}
						ply.PlayedValue = mv.Value
						ply.mark(best.Value, mv.Value, best.Exact && mv.Exact)
					}
				}
			}
			ply.Best, ply.Value, ply.Exact, ply.Depth = best.Move.String(), best.Value, best.Exact, best.Depth
			if p.ToMove() == kalah.North {
				ply.Value, ply.PlayedValue = -ply.Value, -ply.PlayedValue
			}
		}
		out = append(out, ply)
	}
	h.games.put(gameKey(h.opts.Analyzer, g), budget, out)
	httpapi.WriteJSON(w, http.StatusOK, out)
}
