package arranged

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"strings"
	"time"

	"kalah"
	"kalah/internal/identity"
	"kalah/internal/store"
	"kalah/player"
	"kalah/referee"
	"kalah/server/client"
	"kalah/server/core"
	"kalah/server/gate"
	"kalah/server/round"
	gamesetup "kalah/server/setup"
)

// Host is the server as its arranged games need it.
type Host interface {
	Context() context.Context
	Log() *slog.Logger
	Config() Config
	// Player builds a server-side player of spec under the server's
	// limits, refusing programs unless the server runs them.
	Player(spec string, r kalah.Rules, seed uint64) (player.Player, error)
	// FreeConn reports whether the bot of identity key is logged in and
	// waits for arranged games, neither in a game nor queued.
	FreeConn(key string) bool
	// WaitingBots returns the bots logged in that take arranged games.
	WaitingBots() []string
	// Live is the live games and the bots seated in them.
	Live() *round.Registry
	// Full reports, as an error, that the server plays as many games as it
	// may; nil if it may start one more.
	Full() error
	// Admit passes a game through the gate (gate.Tournament).
	Admit(r kalah.Rules, seats [2]*round.Seat) (*gate.Ticket, error)
	Store() *store.Store
	// Run starts rd's loop on su; nil if the server is stopping.
	Run(rd *round.Round, su round.Setup) *round.Round
	// AdjudicateBroken ends a stored game whose moves cannot be replayed.
	AdjudicateBroken(sg store.Game, cause error) error

	// Of the HTTP side (http.go):

	// Admitted reports whether r carries the server's admin token, when it
	// has one; it writes the refusal otherwise.
	Admitted(w http.ResponseWriter, r *http.Request, what string) bool
	// Open reports whether the server has no admin token: whoever asks may
	// arrange games then, a bot entered only by its owner or its consent.
	Open() bool
	// MayEnter says whether whoever asks with r (signed in or not) may
	// enter bot in a game they arrange.
	MayEnter(r *http.Request, bot string) error
}

// Config is the server's settings as its arranged games need them.
type Config struct {
	// Rules are those of a game that names none.
	Rules kalah.Rules
	// Grace is the latency allowed beyond a limit of a game's clock that
	// names none.
	Grace time.Duration
	// Wait is how long a game waits for a bot that is not free when its
	// own Wait is zero.
	Wait time.Duration
}

// Service plays arranged games on the server. It keeps no state of its
// own: the bots it takes are the live registry's, the games the rounds'.
type Service struct{ h Host }

// New returns the arranged games of the server h.
func New(h Host) *Service { return &Service{h: h} }

// Arranged games are those the server sets up itself rather than the
// queue or a challenge: a tournament run by kalah serve names a bot logged
// in to the server as the player "bot:NAME", and each of its games with
// that bot is played here, refereed and stored like any other. A bot takes
// such games by sending wait (answered "ok wait"); from then on, whenever
// it is logged in and neither playing nor queued, it may be given a game:
// it is sent start, go, moved and end as for a queue game. It stops taking
// them with leave.

// DefaultArrangedWait is how long PlayArranged waits for a bot to be free
// when neither Arranged.Wait nor Config.ArrangedWait is set.
const DefaultArrangedWait = time.Minute

// Play plays one game with bots connected to the server and
// server-side players, refereed and stored like a queue game (listed live,
// watchable), and returns it once it is over. A restarted server does not
// resume it but ends it adjudicated a draw: its caller plays it again. It
// first waits, up to a.Wait, until every bot seat's bot is free and then
// takes them all at once; see Arranged.Wait for bots that do not come. It
// returns an error, and no result, if a is malformed, the server is full
// (ErrBusy: try again later) or stops (core.ErrClosed), or ctx ends first; a
// game already started then plays on without its caller.
func (s *Service) Play(ctx context.Context, a Arranged) (ArrangedResult, error) {
	cfg := s.h.Config()
	r := a.Rules
	if r.Houses == 0 {
		r = cfg.Rules
	}
	if err := r.Validate(); err != nil {
		return ArrangedResult{}, err
	}
	g, err := kalah.NewGame(r)
	if err != nil {
		return ArrangedResult{}, err
	}
	for i, m := range a.Opening {
		if g.Over() {
			break
		}
		if _, err := g.Play(m); err != nil {
			return ArrangedResult{}, fmt.Errorf("opening move %d: %w", i+1, err)
		}
	}
	g.Tags = a.Tags
	specs := [2]string{strings.TrimSpace(a.South), strings.TrimSpace(a.North)}
	var names [2]string // bot seats' names
	for i, spec := range specs {
		name, ok, err := client.BotName(spec)
		if err != nil {
			return ArrangedResult{}, err
		}
		if ok {
			names[i] = name
		}
	}
	if names[0] != "" && strings.EqualFold(names[0], names[1]) {
		return ArrangedResult{}, fmt.Errorf("%w: bot %s cannot play itself", core.ErrForbidden, names[0])
	}
	var seats [2]*round.Seat
	for i, spec := range specs {
		if names[i] != "" {
			seats[i] = round.BotSeat(identity.Of(identity.Bot, names[i]))
			continue
		}
		p, err := s.h.Player(spec, r, a.Seeds[i])
		if err != nil {
			// A player that cannot start loses, as in tournament.Play.
			p = round.Absent(fmt.Errorf("%w: %w", player.ErrCrashed, err))
		}
		seats[i] = &round.Seat{P: p, St: gamesetup.ProgramSeat(spec)}
	}
	wait := a.Wait
	if wait <= 0 {
		wait = cfg.Wait
	}
	ref := referee.Referee{PerMove: a.PerMove, Budget: a.Budget, Increment: a.Increment, Grace: a.Grace, Delay: a.Delay}
	if ref.Grace == 0 {
		ref.Grace = cfg.Grace
	}
	rd := round.New(0)
	taken, err := s.TakeBots(ctx, rd, seats, wait)
	if err != nil {
		gamesetup.CloseSeats(seats)
		return ArrangedResult{}, err
	}
	var missing []string
	for i, st := range seats {
		if st.Bot && !taken[i] {
			missing = append(missing, st.St.Name)
			// It loses when asked to move.
			seats[i] = &round.Seat{P: round.Absent(fmt.Errorf("%w: bot %s was not free for its game within %v (it must be logged in and have sent wait)", player.ErrDisconnected, st.St.Name, wait)), St: st.St}
		}
	}
	release := func() { s.h.Live().Release(rd, seats) }
	tags := maps.Clone(a.Tags)
	if tags == nil {
		tags = map[string]string{}
	}
	tags[core.TagArranged] = "1"
	ticket, err := s.h.Admit(r, seats)
	if err != nil {
		release()
		gamesetup.CloseSeats(seats)
		return ArrangedResult{}, err
	}
	stored := [2]store.Seat{seats[0].St, seats[1].St}
	id, err := s.h.Store().CreateGame(s.h.Context(), store.NewGame{Rules: r, Seats: stored, Tags: tags})
	if err == nil {
		for i, m := range g.Record().Moves {
			if err = s.h.Store().AddMove(s.h.Context(), id, i, m); err != nil {
				break
			}
		}
	}
	if err != nil {
		ticket.Release()
		release()
		gamesetup.CloseSeats(seats)
		return ArrangedResult{}, err
	}
	if len(missing) == 2 {
		// Neither bot came: nobody to blame more than the other.
		ticket.Release()
		release()
		gamesetup.CloseSeats(seats)
		reason := fmt.Sprintf("neither %s nor %s was free for the game within %v", missing[0], missing[1], wait)
		if !g.Over() {
			if err := g.Adjudicate(kalah.Draw); err != nil {
				return ArrangedResult{}, err
			}
		}
		rec := g.Record()
		rec.Tags = map[string]string{core.ReasonTag: reason}
		if err := s.h.Store().FinishGame(s.h.Context(), id, rec); err != nil {
			return ArrangedResult{}, err
		}
		s.h.Log().Info("arranged game adjudicated", "game", id, "reason", reason)
		if a.OnStart != nil {
			a.OnStart(id)
		}
		rec.SetPlayers(specs[0], specs[1])
		return ArrangedResult{ID: id, Record: rec, Reason: reason}, nil
	}
	g.Players = [2]string{stored[0].Name, stored[1].Name}
	if s.h.Run(rd, round.Setup{ID: id, G: g, Seats: seats, Ref: ref, Tags: tags, Opening: g.Len(), Ticket: ticket}) == nil {
		release()
		return ArrangedResult{ID: id}, core.ErrClosed
	}
	s.h.Log().Info("arranged game started", "game", id, "south", stored[0].Name, "north", stored[1].Name, "rules", r.String())
	if a.OnStart != nil {
		a.OnStart(id)
	}
	select {
	case <-rd.Done():
	case <-ctx.Done():
		return ArrangedResult{ID: id}, ctx.Err()
	}
	o := rd.Outcome()
	if o == nil {
		return ArrangedResult{ID: id}, fmt.Errorf("game %d stopped unfinished: %w", id, core.ErrClosed)
	}
	res := ArrangedResult{ID: id, Record: o.Record, Reason: o.Reason}
	res.Record.SetPlayers(specs[0], specs[1])
	return res, nil
}

// Abandon ends an arranged game found unfinished after a restart:
// adjudicated a draw, which no tournament counts (it plays the game
// again), freeing its bots for that.
func (s *Service) Abandon(sg store.Game) error {
	g, err := store.Replay(sg.Record)
	if err != nil {
		return s.h.AdjudicateBroken(sg, err)
	}
	if !g.Over() {
		if err := g.Adjudicate(kalah.Draw); err != nil {
			return err
		}
	}
	s.h.Log().Info("abandoned an arranged game left unfinished; its tournament plays it again", "game", sg.ID, "moves", g.Len())
	return s.h.Store().FinishGame(s.h.Context(), sg.ID, g.Record())
}

// TakeBots waits until every bot seat's bot is free, or until wait has
// passed, and then reserves for rd those that are free, in the live
// games' registry, which takes them all at once so nothing else takes
// them in between (round.Registry.Reserve). It reports which seats it
// took, and ErrBusy when the server plays as many games as it may.
func (s *Service) TakeBots(ctx context.Context, rd *round.Round, seats [2]*round.Seat, wait time.Duration) ([2]bool, error) {
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	late := false
	for {
		// Asked before the bots are looked at, so that a bot freed after
		// the look wakes this loop.
		live := s.h.Live()
		freed := live.Freed()
		if err := s.h.Full(); err != nil {
			return [2]bool{}, err
		}
		var free [2]bool
		for i, st := range seats {
			free[i] = st.Bot && s.h.FreeConn(st.St.ID.Key())
		}
		taken, ok := live.Reserve(rd, seats, free, !late)
		if !ok {
			return taken, core.ErrClosed
		}
		if taken[0] || taken[1] || late || (!seats[0].Bot && !seats[1].Bot) {
			return taken, nil
		}
		select {
		case <-freed:
		case <-deadline.C:
			late = true
		case <-ctx.Done():
			return taken, ctx.Err()
		case <-s.h.Context().Done():
			return taken, core.ErrClosed
		}
	}
}
