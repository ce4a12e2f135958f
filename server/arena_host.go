package server

import (
	"context"
	"time"

	"kalah"
	"kalah/internal/identity"
	"kalah/internal/store"
	"kalah/referee"
	"kalah/server/arena"
	"kalah/server/core"
	"kalah/server/gate"
)

// People's tournaments (an arena or a Swiss that people and bots join)
// are package arena's; this file is the server's side of them: the names
// the rest of package server and its users know them by, and arenaHost,
// through which they start their games here.

// Formats of people's tournaments.
const (
	FormatArena = arena.FormatArena
	FormatSwiss = arena.FormatSwiss
)

// PeopleTournamentTag holds, on each game of a people's tournament, the
// tournament's id ("p7"), so the game's page and the lists can link to it.
const PeopleTournamentTag = core.PeopleTournamentTag

// Bounds of people's tournaments: the entrants of one, the unfinished
// ones one person created, the games a state lists.
const (
	maxPeopleEntrants  = arena.MaxEntrants
	maxPeopleByCreator = arena.MaxByCreator
	maxListedGames     = arena.MaxListedGames
)

// ErrTournamentOver refuses to join a tournament that is over, or a Swiss
// whose last round has begun.
var ErrTournamentOver = arena.ErrTournamentOver

// The people's tournaments' types, as package server has always named
// them.
type (
	NewPeopleTournament   = arena.New
	PeopleStanding        = arena.Standing
	PeopleGame            = arena.Game
	PeopleYou             = arena.You
	PeopleTournamentState = arena.State
)

func peopleIDString(n int64) string { return arena.IDString(n) }

// peopleTours runs a server's people's tournaments (package arena) for
// its Tournaments, under their context and among their goroutines (which
// are there once StartTournaments has made them).
type peopleTours struct {
	*arena.Tours
	st *store.Store
}

func newPeopleTours(t *Tournaments, pause time.Duration) *peopleTours {
	s := t.srv
	return &peopleTours{st: s.st, Tours: arena.NewTours(arena.Config{Host: arenaHost{s}, Store: s.st, Log: t.log, Rules: s.cfg.Rules,
		Wait: s.cfg.ArrangedWait, Pause: pause, Context: t.ctx, Go: func(f func()) bool { return t.Go(f) }, NoTournament: ErrNoTournament})}
}

// start runs people's tournament n's director, unless it runs already or
// the server's tournaments are stopping.
func (p *peopleTours) start(n int64) bool { return p.Start(n) }

// Join enters who (the requester, or the bot named) in people's
// tournament id.
func (p *peopleTours) Join(ctx context.Context, id string, a Actor, org Organizer, bot string) (identity.ID, error) {
	return p.Tours.Join(ctx, id, a, arena.Organizer(org), bot)
}

// arenaHost is the server as the people's tournaments' Host: it starts
// their games as people's games and tells them when each ends.
type arenaHost struct{ s *Server }

// arenaGame is a live round as package arena sees it.
type arenaGame struct{ rd *round }

func (g arenaGame) ID() int64             { return g.rd.ID() }
func (g arenaGame) Done() <-chan struct{} { return g.rd.Done() }
func (g arenaGame) Ended() bool           { return g.rd.Outcome() != nil }

func (h arenaHost) Live(id int64) arena.LiveGame {
	if rd := h.s.liveRound(id); rd != nil {
		return arenaGame{rd}
	}
	return nil
}

// liveRound returns live game id's round, nil if it is not live here.
func (s *Server) liveRound(id int64) *round { return s.live.Get(id) }

func (h arenaHost) BotFree(key string) bool { return h.s.freeBot(key) }

func (h arenaHost) WaitingBots() []string { return h.s.WaitingBots() }

func (h arenaHost) BotName(name string) (string, error) {
	name, _, err := BotName(BotPrefix + name)
	return name, err
}

func (h arenaHost) Refused(reason string) { h.s.refused(reason) }

// StartGame starts spec's game as a people's game: a person's seat theirs
// by identity, a bot's played over its connection once it is free (within
// spec.Wait), through the gate, rated if asked and the players may be.
func (h arenaHost) StartGame(ctx context.Context, spec arena.GameSpec) (arena.LiveGame, [2]bool, error) {
	s := h.s
	var missing [2]bool
	g, err := kalah.NewGame(spec.Rules)
	if err != nil {
		return nil, missing, err
	}
	ids := spec.IDs
	var seats [2]*seat
	for i, id := range ids {
		if id.Kind == identity.Bot {
			seats[i] = botSeatOf(id)
			continue
		}
		seats[i] = &seat{Human: true, St: store.Seat{Kind: "human", ID: id, Name: id.Display()}}
	}
	rd := s.newRound()
	taken, err := s.takeBots(ctx, rd, seats, max(spec.Wait, time.Millisecond))
	if err != nil {
		return nil, missing, err
	}
	release := func() { s.live.Release(rd, seats) }
	for i, st := range seats {
		missing[i] = st.Bot && !taken[i]
	}
	if missing[0] || missing[1] {
		release()
		return nil, missing, arena.ErrNotFree
	}
	ref := referee.Referee{Budget: spec.Clock, Increment: spec.Increment, Grace: 250 * time.Millisecond}
	tags := spec.Tags
	if spec.Rated {
		// At most maxRatedPerDay a pair, tournaments included (ratings.Tag).
		defer s.ratings.Tag(ctx, ids, tags)()
	}
	ticket, err := s.admit(gate.Tournament, g.Rules(), seats, [2]string{})
	if err != nil {
		release()
		return nil, missing, err
	}
	stored := [2]store.Seat{seats[0].St, seats[1].St}
	id, err := s.st.CreateGame(s.ctx, store.NewGame{Rules: g.Rules(), Seats: stored, Tags: tags})
	if err != nil {
		ticket.Release()
		release()
		return nil, missing, err
	}
	g.Players = [2]string{stored[0].Name, stored[1].Name}
	if s.runRound(rd, roundSetup{ID: id, G: g, Seats: seats, Ref: ref, Tags: tags, Ticket: ticket}) == nil {
		release()
		return nil, missing, ErrClosed
	}
	s.log.Info("tournament game started", "game", id, "tournament", spec.Tournament, "south", stored[0].Name, "north", stored[1].Name)
	return arenaGame{rd}, missing, nil
}
