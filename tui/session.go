package tui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"kalah"
	"kalah/engine"
	"kalah/player"
	"kalah/referee"
)

// Human is the opponent spec for a second person at the same keyboard.
const Human = "human"

// Errors returned by a Session, matched with errors.Is.
var (
	// ErrRejected marks a key that was refused; the game did not change.
	ErrRejected = errors.New("rejected")
	// ErrStale is returned for a computer's reply to a game that has since
	// changed (an undo or restart while it thought).
	ErrStale = errors.New("stale reply")
)

// Config is what a session is built from.
type Config struct {
	// Rules are the rules played.
	Rules kalah.Rules
	// Opponent is a player spec or level name for the computer, or Human
	// (or empty) for a second person.
	Opponent string
	// You is the side the person plays against a computer. With two people
	// it only chooses which side is drawn at the bottom.
	You kalah.Side
	// Time is the computer's time a move (zero: none); hints get the same.
	Time time.Duration
	// Seed feeds players that draw at random.
	Seed uint64
	// Helper is the player that moves for a person who presses space and
	// gives hints; empty picks one (see DefaultHelper).
	Helper string
	// Record, if set, gets every game that ends as one JSON line (a
	// kalah.Record), as "kalah match --record" writes them; a game taken
	// back and finished again is written again.
	Record io.Writer
	// DataDir is where a game left unfinished is saved for "kalah play
	// --resume" and where the w key saves games (see UnfinishedFile and
	// GamesDir); empty saves nothing.
	DataDir string
	// Background, if not nil, tells of work going on behind the game (the
	// perfect player's endgame database being built): the full-screen game
	// shows the latest note under the board, none after an empty one.
	Background <-chan string
}

// DefaultOpponent returns the opponent "kalah play" offers first: the level
// named "medium", else the middle difficulty level, else greedy.
func DefaultOpponent() string {
	ls := player.Levels()
	for _, l := range ls {
		if strings.EqualFold(l.Name, "medium") {
			return l.Name
		}
	}
	if len(ls) > 0 {
		return ls[(len(ls)-1)/2].Name
	}
	return "greedy"
}

// DefaultHelper returns the player used for hints and for space on a
// person's turn when no computer opponent is playing: the strongest level,
// else greedy.
func DefaultHelper() string {
	if ls := player.Levels(); len(ls) > 0 {
		return ls[len(ls)-1].Name
	}
	return "greedy"
}

// IsHuman reports whether an opponent spec means a second person.
func IsHuman(spec string) bool {
	s := strings.ToLower(strings.TrimSpace(spec))
	return s == "" || s == Human
}

// Session is one sitting at the board: the game in play, which seats are
// people, and the computer players. Its methods are not safe for concurrent
// use; a Request it hands out may run on another goroutine.
type Session struct {
	cfg    Config
	game   *kalah.Game
	prev   *kalah.Game // the game before the last restart, for undo
	human  [2]bool     // by seat: 0 started as South, 1 as North
	names  [2]string   // by seat, for messages
	engine player.Player
	helper player.Player
	shared bool // engine and helper are one player
	gen    int  // changes with every change of the game, to spot stale replies
}

// NewSession builds a session and its computer players.
func NewSession(cfg Config) (*Session, error) {
	if err := cfg.Rules.Validate(); err != nil {
		return nil, err
	}
	if cfg.You > kalah.North {
		return nil, fmt.Errorf("side %d", cfg.You)
	}
	s := &Session{cfg: cfg}
	opts := player.Options{Rules: cfg.Rules, Seed: cfg.Seed}
	you := int(cfg.You)
	helperSpec := cfg.Helper
	if IsHuman(cfg.Opponent) {
		s.human = [2]bool{true, true}
		s.names = [2]string{"South player", "North player"}
	} else {
		p, err := player.New(cfg.Opponent, opts)
		if err != nil {
			return nil, err
		}
		s.engine = p
		s.human[you] = true
		s.names[you] = "you"
		s.names[1-you] = shortName(cfg.Opponent)
		if e, ok := p.(*engine.Player); ok {
			e.Engage() // the perfect level chosen: its database is wanted now
		}
	}
	if helperSpec == "" {
		helperSpec = DefaultHelper()
	}
	if s.engine != nil && strings.EqualFold(helperSpec, cfg.Opponent) {
		s.helper, s.shared = s.engine, true
	} else {
		h, err := player.New(helperSpec, opts)
		if err != nil {
			s.shared = true
			s.Close()
			return nil, fmt.Errorf("helper: %w", err)
		}
		s.helper = h
	}
	if s.engine == nil {
		s.engine, s.shared = s.helper, true
	}
	s.game = s.newGame()
	return s, nil
}

// shortName names a computer opponent in labels: a level by its name, a
// spec as itself.
func shortName(spec string) string {
	for _, l := range player.Levels() {
		if strings.EqualFold(l.Name, spec) {
			return l.Name
		}
	}
	return spec
}

// OpponentName is how a computer opponent is named on screen: a level as
// "medium (alphabeta:6)", a spec as itself.
func OpponentName(spec string) string {
	for _, l := range player.Levels() {
		if strings.EqualFold(l.Name, spec) {
			return l.Name + " (" + l.Spec + ")"
		}
	}
	return spec
}

func (s *Session) newGame() *kalah.Game {
	g, _ := kalah.NewGame(s.cfg.Rules) // the rules were validated
	for seat := range 2 {
		if s.human[seat] {
			g.Players[seat] = "human"
		} else {
			g.Players[seat] = s.cfg.Opponent
		}
	}
	return g
}

// Resume continues game g, which must be played under the session's
// rules, in place of the game in play; the seats' names are the session's.
func (s *Session) Resume(g *kalah.Game) error {
	if g.Rules() != s.cfg.Rules {
		return fmt.Errorf("the game was played under %s, not %s", g.Rules(), s.cfg.Rules)
	}
	g = g.Clone()
	fresh := s.newGame()
	g.Players = fresh.Players
	s.prev, s.game = nil, g
	s.gen++
	return nil
}

// OpponentTitle names the computer opponent in full, as "hard
// (alphabeta:knowledge:time=1s)", or says there are two people.
func (s *Session) OpponentTitle() string {
	if s.TwoHumans() {
		return "another person"
	}
	return OpponentName(s.cfg.Opponent)
}

// Config returns the configuration the session was built from.
func (s *Session) Config() Config { return s.cfg }

// Game returns the game in play; callers must not change it.
func (s *Session) Game() *kalah.Game { return s.game }

// Generation changes with every change of the game.
func (s *Session) Generation() int { return s.gen }

// IsHumanSide reports whether a person now plays side sd.
func (s *Session) IsHumanSide(sd kalah.Side) bool { return s.human[s.game.Seat(sd)] }

// TwoHumans reports whether two people share the keyboard.
func (s *Session) TwoHumans() bool { return s.human[0] && s.human[1] }

// Bottom returns the side drawn at the bottom: the person's (which may
// change after a pie-rule swap), or the configured side for two people.
func (s *Session) Bottom() kalah.Side {
	if s.TwoHumans() {
		return s.cfg.You
	}
	return s.game.PlayerSide(int(s.cfg.You))
}

// Label names side sd with its player, as "South (you)".
func (s *Session) Label(sd kalah.Side) string {
	seat := s.game.Seat(sd)
	if s.TwoHumans() {
		return sd.String()
	}
	return sd.String() + " (" + s.names[seat] + ")"
}

// NeedsComputer reports whether the game waits for the computer's own move.
func (s *Session) NeedsComputer() bool {
	return !s.game.Over() && !s.IsHumanSide(s.game.ToMove())
}

// Event is one move made in the session, described for people.
type Event struct {
	Played   kalah.Played
	Label    string // the mover, as "North (greedy)"
	Computer bool   // a computer chose it
	Captured int    // seeds captured, the capturing seed included
	Text     string // one line saying what happened, in plain words and seeds
	Report   *player.Report
	// Outlook is what the computer's search said of the game's end, when
	// its units are seeds.
	Outlook *Outlook
	// Details is the search as the player reported it (depth, score in
	// its own units, line), for people who ask; empty for a person's move.
	Details string
}

// Play makes the person's move m (a house, or kalah.Swap). A refused move
// returns an error wrapping ErrRejected that says why, and changes nothing.
func (s *Session) Play(m kalah.Move) (Event, error) {
	g := s.game
	n := g.Rules().Houses
	switch {
	case g.Over():
		return Event{}, fmt.Errorf("%w: the game is over", ErrRejected)
	case !s.IsHumanSide(g.ToMove()):
		return Event{}, fmt.Errorf("%w: it is the computer's turn", ErrRejected)
	case m == kalah.Swap && !g.IsLegal(m):
		return Event{}, fmt.Errorf("%w: no swap now (only the second player's first move may swap, under the pie rule)", ErrRejected)
	case m != kalah.Swap && (m < 1 || int(m) > n):
		return Event{}, fmt.Errorf("%w: there is no house %d (houses are 1-%d)", ErrRejected, m, n)
	case !g.IsLegal(m):
		return Event{}, fmt.Errorf("%w: house %d is empty", ErrRejected, m)
	}
	return s.apply(m, nil, nil)
}

// apply plays a legal move and describes it; req is the computer's
// request that chose it (nil for a person's key).
func (s *Session) apply(m kalah.Move, req *Request, rep *player.Report) (Event, error) {
	g := s.game
	before := g.Position()
	label := s.Label(before.ToMove())
	var o *Outlook
	details := ""
	if req != nil && rep != nil {
		if x, ok := outlookOf(req.p, before, *rep); ok {
			o = &x
		}
		details = detailsText(req.who, *rep)
	}
	eff, err := g.Play(m)
	if err != nil {
		return Event{}, fmt.Errorf("%w: %w", ErrRejected, err)
	}
	s.gen++
	ev := Event{Played: kalah.Played{Side: before.ToMove(), Move: m, Effect: eff}, Label: label, Computer: req != nil, Report: rep, Outlook: o, Details: details}
	if eff&kalah.Capture != 0 {
		ev.Captured = captured(before, g.Rules(), m)
	}
	ev.Text = s.describe(ev)
	if g.Over() {
		ev.Text += s.record()
	}
	return ev, nil
}

// record writes a game that has ended to Config.Record, and returns a note
// for the person if that failed.
func (s *Session) record() string {
	if s.cfg.Record == nil {
		return ""
	}
	g := s.game.Clone()
	if g.Tags == nil {
		g.Tags = map[string]string{}
	}
	g.Tags["Event"] = "kalah play"
	g.Tags["Date"] = time.Now().UTC().Format(time.DateOnly)
	b, err := json.Marshal(g.Record())
	if err == nil {
		_, err = s.cfg.Record.Write(append(b, '\n'))
	}
	if err != nil {
		return fmt.Sprintf(" (the game could not be recorded: %v)", err)
	}
	return ""
}

func (s *Session) describe(ev Event) string {
	var b strings.Builder
	if ev.Played.Move == kalah.Swap {
		fmt.Fprintf(&b, "%s swaps sides", ev.Label)
	} else {
		fmt.Fprintf(&b, "%s sows house %d", ev.Label, ev.Played.Move)
	}
	eff := ev.Played.Effect
	switch {
	case eff&kalah.Capture != 0:
		fmt.Fprintf(&b, ": captures %d seeds", ev.Captured)
	case eff&kalah.Extra != 0 && eff&kalah.End == 0:
		fmt.Fprintf(&b, ": the last seed lands in the store, %s moves again", ev.Played.Side)
	case eff&kalah.Extra != 0:
		b.WriteString(": the last seed lands in the store")
	}
	if eff&kalah.End != 0 {
		b.WriteString("; the game is over")
	}
	if ev.Outlook != nil && eff&kalah.End == 0 {
		b.WriteString(" (" + s.OutlookText(*ev.Outlook) + ")")
	}
	return b.String()
}

// captured replays the sowing of m on a copy of the pits to count what a
// capture took: the last seed and the seeds opposite it.
func captured(before kalah.Position, r kalah.Rules, m kalah.Move) int {
	n := before.Houses()
	pits := make([]int, 2*n+2)
	for i := range pits {
		pits[i] = before.Pit(i)
	}
	me := int(before.ToMove())
	skip := (1-me)*(n+1) + n
	if r.SowOpponentStore {
		skip = -1
	}
	i := me*(n+1) + int(m) - 1
	seeds := pits[i]
	pits[i] = 0
	for seeds > 0 {
		i = (i + 1) % len(pits)
		if i == skip {
			continue
		}
		pits[i]++
		seeds--
	}
	return pits[2*n-i] + 1
}

// Request is a question for a computer player: a move or a hint. Run it on
// any goroutine; hand the Reply back to Session.Finish on the session's.
type Request struct {
	Hint     bool          // a hint, not a move to play
	Analysis bool          // score every legal move, play none
	Own      bool          // the computer moves for its own seat (not for a person)
	Delay    time.Duration // pause before asking, so people can follow
	s        *Session
	gen      int
	game     *kalah.Game // a snapshot
	p        player.Player
	clock    player.Clock
	who      string
}

// Reply is a computer player's answer to a Request.
type Reply struct {
	Req      *Request
	Move     kalah.Move
	Analysis []MoveScore // for an analysis, best first
	Report   *player.Report
	Err      error
	Elapsed  time.Duration
}

// Ask returns a request for the computer to move for the side to move: the
// computer's own move, or a move for the person who pressed space.
func (s *Session) Ask() (*Request, error) {
	if s.game.Over() {
		return nil, fmt.Errorf("%w: the game is over", ErrRejected)
	}
	own := !s.IsHumanSide(s.game.ToMove())
	_, bot := s.engine.(player.Observer)
	if s.TwoHumans() || (!own && bot) {
		// A bot that follows the game plays one side; it does not move for
		// the person.
		return s.request(s.helper, s.helperName(), false, own), nil
	}
	return s.request(s.engine, s.names[1-int(s.cfg.You)], false, own), nil
}

// Close stops the computer players that hold resources, such as a bot's
// process. A request still running may fail.
func (s *Session) Close() error {
	var errs []error
	for i, p := range []player.Player{s.engine, s.helper} {
		if i == 1 && s.shared {
			break
		}
		if c, ok := p.(interface{ Close() error }); ok {
			errs = append(errs, c.Close())
		}
	}
	return errors.Join(errs...)
}

// AskAnalysis returns a request that scores every legal move for the side
// to move with the helper, which must report its scores (a searching
// player); the time a move is shared among them.
func (s *Session) AskAnalysis() (*Request, error) {
	if s.game.Over() {
		return nil, fmt.Errorf("%w: the game is over", ErrRejected)
	}
	if _, ok := s.helper.(player.Reporter); !ok {
		return nil, fmt.Errorf("%w: %s gives no scores to analyse with (choose a searching player with --hint-player)", ErrRejected, s.helperName())
	}
	r := s.request(s.helper, s.helperName(), false, false)
	r.Analysis = true
	return r, nil
}

// AskHint returns a request for a hint for the side to move.
func (s *Session) AskHint() (*Request, error) {
	if s.game.Over() {
		return nil, fmt.Errorf("%w: the game is over", ErrRejected)
	}
	return s.request(s.helper, s.helperName(), true, false), nil
}

func (s *Session) helperName() string {
	if s.cfg.Helper != "" {
		return shortName(s.cfg.Helper)
	}
	return shortName(DefaultHelper())
}

func (s *Session) request(p player.Player, who string, hint, own bool) *Request {
	return &Request{Hint: hint, Own: own, s: s, gen: s.gen, game: s.game.Clone(), p: p,
		clock: player.Clock{PerMove: s.cfg.Time}, who: who}
}

// Run asks the player, honouring ctx and the clock. A player that overruns
// its time by half again is cancelled.
func (r *Request) Run(ctx context.Context) Reply {
	if r.Analysis {
		return r.analyse(ctx)
	}
	if r.Delay > 0 {
		t := time.NewTimer(r.Delay)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return Reply{Req: r, Err: ctx.Err()}
		}
	}
	if limit := r.clock.Limit(); limit > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, limit+limit/2+100*time.Millisecond)
		defer cancel()
	}
	start := time.Now()
	m, err := safeMove(ctx, r.p, r.game, r.clock)
	rep := Reply{Req: r, Move: m, Err: err, Elapsed: time.Since(start)}
	if rp, ok := r.p.(player.Reporter); ok && err == nil {
		x := rp.LastReport()
		rep.Report = &x
	}
	return rep
}

// MoveScore is one legal move as the helper judged it, from the mover's
// view: in the helper's own units, and in seeds when they can be had.
type MoveScore struct {
	Move  kalah.Move
	Score int  // in the helper's units
	Exact bool // a proven store difference (or the game ends with the move)
	// Final is the final store difference for the mover after the move
	// with best play, proven if Exact; valid if InSeeds.
	Final   int
	InSeeds bool
}

// analyse plays each legal move on a copy of the game and asks the helper
// what it thinks of the position after it.
func (r *Request) analyse(ctx context.Context) Reply {
	start := time.Now()
	rep := Reply{Req: r}
	moves := r.game.Legal()
	per := 250 * time.Millisecond
	if r.clock.PerMove > 0 {
		per = max(r.clock.PerMove/time.Duration(len(moves)), 10*time.Millisecond)
	}
	rp, _ := r.p.(player.Reporter)
	mover := r.game.ToMove()
	for _, m := range moves {
		g := r.game.Clone()
		if _, err := g.Play(m); err != nil {
			rep.Err = err
			return rep
		}
		var ms MoveScore
		switch {
		case g.Over():
			p := g.Position()
			d := p.Store(mover) - p.Store(mover.Other())
			ms = MoveScore{Move: m, Score: d, Exact: true, Final: d, InSeeds: true}
		default:
			mctx, cancel := context.WithTimeout(ctx, per+per/2+100*time.Millisecond)
			_, err := safeMove(mctx, r.p, g, player.Clock{PerMove: per})
			cancel()
			if ctx.Err() != nil {
				rep.Err = ctx.Err()
				return rep
			}
			if err != nil {
				rep.Err = fmt.Errorf("analysing %s: %w", m, err)
				return rep
			}
			x := rp.LastReport()
			ms = MoveScore{Move: m, Score: x.Score, Exact: x.Exact}
			if o, ok := outlookOf(r.p, g.Position(), x); ok {
				ms.Final, ms.InSeeds = o.Final, true
			}
			if g.ToMove() != mover {
				ms.Score, ms.Final = -ms.Score, -ms.Final
			}
		}
		rep.Analysis = append(rep.Analysis, ms)
	}
	seeds := true
	for _, a := range rep.Analysis {
		seeds = seeds && a.InSeeds
	}
	slices.SortStableFunc(rep.Analysis, func(a, b MoveScore) int {
		if seeds {
			return b.Final - a.Final
		}
		return b.Score - a.Score
	})
	rep.Elapsed = time.Since(start)
	return rep
}

func safeMove(ctx context.Context, p player.Player, g *kalah.Game, c player.Clock) (m kalah.Move, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("%w: panic: %v", player.ErrCrashed, v)
		}
	}()
	return p.Move(ctx, g, c)
}

// Who names the player that answers the request.
func (r *Request) Who() string { return r.who }

// Finish applies a computer's reply: it plays the move (for a move
// request) and describes it. A reply to a game that has changed since is
// ErrStale. A computer that fails at its own move forfeits, as under a
// referee; a failed move for a person changes nothing.
func (s *Session) Finish(rep Reply) (Event, error) {
	r := rep.Req
	if r == nil || r.s != s || r.gen != s.gen {
		return Event{}, ErrStale
	}
	if r.Analysis {
		if rep.Err != nil {
			return Event{}, fmt.Errorf("no analysis: %w", rep.Err)
		}
		parts := make([]string, len(rep.Analysis))
		seeds := true
		for _, a := range rep.Analysis {
			seeds = seeds && a.InSeeds
		}
		for i, a := range rep.Analysis {
			switch {
			case seeds && a.Exact:
				parts[i] = fmt.Sprintf("%s: %+d proven", a.Move, a.Final)
			case seeds:
				parts[i] = fmt.Sprintf("%s: about %+d", a.Move, a.Final)
			default:
				parts[i] = fmt.Sprintf("%s: %+d", a.Move, a.Score)
			}
		}
		what := "final store difference in seeds for " + s.who(s.game.ToMove()) + " with best play after each move"
		if !seeds {
			what = "its own score of each move, not in seeds"
		}
		return Event{Label: s.Label(s.game.ToMove()), Computer: true,
			Text: fmt.Sprintf("analysis by %s (%s), best first: %s", r.who, what, strings.Join(parts, " · "))}, nil
	}
	if r.Hint {
		if rep.Err != nil {
			return Event{}, fmt.Errorf("no hint: %w", rep.Err)
		}
		if !s.game.IsLegal(rep.Move) {
			return Event{}, fmt.Errorf("no hint: %s suggested the illegal move %s", r.who, rep.Move)
		}
		ev := Event{Played: kalah.Played{Side: s.game.ToMove(), Move: rep.Move}, Label: s.Label(s.game.ToMove()), Computer: true, Report: rep.Report}
		ev.Text = fmt.Sprintf("hint from %s: %s", r.who, moveWord(rep.Move))
		if rep.Report != nil {
			if o, ok := outlookOf(r.p, s.game.Position(), *rep.Report); ok {
				ev.Outlook = &o
				ev.Text += ": " + s.OutlookText(o)
			}
			ev.Details = detailsText(r.who, *rep.Report)
		}
		return ev, nil
	}
	err := rep.Err
	if err == nil && !s.game.IsLegal(rep.Move) {
		err = fmt.Errorf("%w: %s", kalah.ErrIllegalMove, rep.Move)
	}
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return Event{}, err
		}
		if !r.Own {
			return Event{}, fmt.Errorf("%s could not move: %w", r.who, err)
		}
		side := s.game.ToMove()
		if ferr := s.game.Forfeit(side, referee.Classify(err)); ferr != nil {
			return Event{}, ferr
		}
		s.gen++
		return Event{Label: s.Label(side), Computer: true,
			Text: fmt.Sprintf("%s forfeits (%s): %v", s.Label(side), s.game.Termination(), err) + s.record()}, nil
	}
	return s.apply(rep.Move, r, rep.Report)
}

func moveWord(m kalah.Move) string {
	if m == kalah.Swap {
		return "swap sides"
	}
	return fmt.Sprintf("house %d", m)
}

// MoveList describes every move of the game so far, one line each,
// numbered: who sowed which house and what came of it.
func (s *Session) MoveList() []string {
	g := s.game
	seats := moverSeats(g)
	var out []string
	for i, p := range g.Moves() {
		who := p.Side.String()
		if !s.TwoHumans() {
			who += " (" + s.names[seats[i]] + ")"
		}
		line := fmt.Sprintf("%3d. %s: %s", i+1, who, moveWord(p.Move))
		var what []string
		if p.Effect&kalah.Capture != 0 {
			what = append(what, fmt.Sprintf("captures %d", captured(g.PositionAt(i), g.Rules(), p.Move)))
		}
		if p.Effect&kalah.Extra != 0 && p.Effect&kalah.End == 0 {
			what = append(what, "moves again")
		}
		if p.Effect&kalah.End != 0 {
			what = append(what, "the game ends")
		}
		if len(what) > 0 {
			line += ", " + strings.Join(what, ", ")
		}
		q := g.PositionAt(i + 1)
		line += fmt.Sprintf("  [stores S %d, N %d]", q.Store(kalah.South), q.Store(kalah.North))
		out = append(out, line)
	}
	if len(out) == 0 {
		out = append(out, "No moves yet.")
	}
	return out
}

// Restart begins a new game with the same players; Undo straight after
// brings the old one back.
func (s *Session) Restart() {
	s.prev = s.game
	s.game = s.newGame()
	s.gen++
}

// Undo takes back moves to the person's last move: that move and every
// computer move after it, so the person is to move again where they were.
// With two people it takes back one move. Right after a restart, with no
// move of a person to take back, it brings back the game before it. It
// returns a note saying what it did.
func (s *Session) Undo() (string, error) {
	g := s.game
	if t := g.Termination(); t.IsForfeit() || t == kalah.Adjudicated {
		if err := g.Undo(); err != nil {
			return "", err
		}
		s.gen++
		return fmt.Sprintf("Took back the %s; %s to move.", t, s.Label(g.ToMove())), nil
	}
	last := -1
	for i, seat := range moverSeats(g) {
		if s.human[seat] {
			last = i
		}
	}
	if last < 0 {
		if s.prev != nil {
			s.game, s.prev = s.prev, nil
			s.gen++
			return "The game before the restart is back.", nil
		}
		return "", fmt.Errorf("%w: %w", ErrRejected, kalah.ErrNoUndo)
	}
	n := g.Len() - last
	for g.Len() > last {
		if err := g.Undo(); err != nil {
			return "", err
		}
	}
	s.gen++
	word := "moves"
	if n == 1 {
		word = "move"
	}
	return fmt.Sprintf("Took back %d %s; %s to move.", n, word, s.Label(g.ToMove())), nil
}

// moverSeats returns, for each move of g, the seat that made it.
func moverSeats(g *kalah.Game) []int {
	swapped := false
	var seats []int
	for _, p := range g.Moves() {
		seat := int(p.Side)
		if swapped {
			seat = 1 - seat
		}
		seats = append(seats, seat)
		if p.Move == kalah.Swap {
			swapped = !swapped
		}
	}
	return seats
}

// Summary describes the finished game: the winner, the final stores and
// how it ended. It is empty while the game goes on.
func (s *Session) Summary() string {
	g := s.game
	if !g.Over() {
		return ""
	}
	south, north := g.Score()
	var b strings.Builder
	b.WriteString("Game over: ")
	if w, ok := g.Result().Winner(); ok {
		hi, lo := south, north
		if w == kalah.North {
			hi, lo = north, south
		}
		fmt.Fprintf(&b, "%s wins %d-%d.", s.Label(w), hi, lo)
	} else {
		fmt.Fprintf(&b, "a draw, %d-%d.", south, north)
	}
	fmt.Fprintf(&b, " Final stores: %s %d, %s %d.", s.Label(kalah.South), south, s.Label(kalah.North), north)
	switch t := g.Termination(); {
	case t == kalah.Normal:
		fmt.Fprintf(&b, " Ended by the rules after %d moves.", g.Len())
	case t.IsForfeit():
		w, _ := g.Result().Winner()
		fmt.Fprintf(&b, " %s forfeited (%s); the seeds left went to the winner.", s.Label(w.Other()), t)
	default:
		fmt.Fprintf(&b, " Ended: %s.", t)
	}
	return b.String()
}
