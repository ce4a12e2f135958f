package server

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"kalah"
	"kalah/internal/identity"
	"kalah/internal/store"
	"kalah/player"
	"kalah/referee"
	"kalah/server/core"
	"kalah/server/gate"
	rnd "kalah/server/round"
)

// Errors of people's games, matched with errors.Is.
var (
	ErrNotCasual   = core.ErrNotCasual
	ErrNoTakebacks = core.ErrNoTakebacks
	ErrNoSeat      = core.ErrNoSeat
	ErrTooMany     = core.ErrTooMany
	ErrNoHints     = core.ErrNoHints
	ErrTooLate     = core.ErrTooLate
)

// Tags under which a game keeps its settings (core's).
const (
	tagPerMove     = core.TagPerMove
	tagDelay       = core.TagDelay
	tagCasual      = core.TagCasual
	tagClock       = core.TagClock
	tagInc         = core.TagInc
	tagOpening     = core.TagOpening
	tagRatedAsked  = core.TagRatedAsked
	tagNoTakebacks = core.TagNoTakebacks
	ImportTag      = core.ImportTag
	TournamentTag  = core.TournamentTag
	ReasonTag      = core.ReasonTag
	RematchTag     = core.RematchTag
	RematchOfTag   = core.RematchOfTag
)

// Bounds of a game's clock asked for over the network.
const (
	maxPerMove = time.Hour
	maxDelay   = time.Minute
)

// GameRequest asks StartGame for a game.
type GameRequest struct {
	Rules kalah.Rules `json:"rules"`
	// South and North are player specs (see kalah players) or "human" for
	// a person, who moves through the API or the page.
	South string `json:"south"`
	North string `json:"north"`
	// Start is a set-up position in kalah notation; empty means the rules'
	// start.
	Start string `json:"start,omitempty"`
	// Opening holds moves played before the players take over.
	Opening []kalah.Move `json:"opening,omitempty"`
	// Names is refused: a seat shows its player's identity (an account,
	// a guest, a program's spec), never a name the request chose.
	Names [2]string `json:"names,omitzero"`
	// PerMoveMS limits each move, DelayMS pauses before each so people can
	// follow; zero means the server's clock, or for a game with a person
	// no limit.
	PerMoveMS int64 `json:"per_move_ms,omitempty"`
	DelayMS   int64 `json:"delay_ms,omitempty"`
	// ClockMS, if set, is each player's time for the whole game, with
	// IncrementMS added after each of their moves (a Fischer clock); a
	// player whose time runs out loses.
	ClockMS     int64 `json:"clock_ms,omitempty"`
	IncrementMS int64 `json:"increment_ms,omitempty"`
	// Casual games allow takebacks against the computer (at once) and
	// hints; they are never rated. Between people a takeback is asked of
	// the opponent in any game, rated or not, unless Takebacks is false.
	Casual bool `json:"casual,omitempty"`
	// Takebacks, if false, refuses every takeback in a game between
	// people (either may still be asked nothing); absent means allowed.
	Takebacks *bool `json:"takebacks,omitempty"`
	// Invite leaves the second person's seat open for someone to take by
	// the invitation's link (Started.Invite): the first who joins owns it.
	Invite bool `json:"invite,omitempty"`
	// Seeds, if not zero, seed each computer seat's player.
	Seeds [2]uint64 `json:"seeds,omitzero"`
	// Event names the tournament the game belongs to, if any.
	Event string `json:"event,omitempty"`
	// Tags are stored with the game (its record's tags).
	Tags map[string]string `json:"-"`
	// Rated games count on the rating ladders when their players may be
	// rated against each other (both accounts or bots, not one person and
	// their own bot, not two bots of one owner) and the game is not
	// casual.
	Rated bool `json:"rated,omitempty"`
	// by is who asks: the person seated in the game's first human seat
	// (and the second too, unless Invite).
	by identity.ID
	// seated, if set, gives the human seats by seat (a seek's two people,
	// a rematch's); a zero ID leaves that seat to by.
	seated [2]identity.ID
	// reserve, if set, leaves human seat reserve-1 open for the identity
	// seated there (a rematch's other player).
	reserve int
	// path is how the game was asked for, and addrs the address of each
	// person seated, where known (for the gate).
	path  gate.Path
	addrs [2]string
}

// Started is a game StartGame began.
type Started struct {
	ID int64 `json:"id"`
	// Tokens holds, for each human seat (0: South) the caller took, a
	// secret that moves it (for API clients; a page moves its seats by its
	// session); empty for computer seats and open seats.
	Tokens [2]string `json:"tokens"`
	// Invite, for a game started with Invite, is the secret of the open
	// seat's link: whoever gives it first takes the seat (Join).
	Invite string `json:"invite,omitempty"`
	// Note, for a game asked to be rated that is played unrated because its
	// players have played their rated games with each other today, says so
	// ("casual: you have played 5 rated games with bob today").
	Note string `json:"note,omitempty"`
	// limited is that count (-1: not limited), for callers that tell
	// someone else.
	limited int
}

// Actor is who makes a request on a game (core.Actor).
type Actor = core.Actor

// newToken returns a fresh secret (128 bits) and its stored hash.
func newToken() (token, hash string) { return rnd.NewToken() }

func tokenHash(token string) string { return rnd.TokenHash(token) }

// hashIs reports whether secret hashes to hash, in constant time.
func hashIs(hash, secret string) bool { return rnd.HashIs(hash, secret) }

// StartGame starts a game between server-side players and people.
func (s *Server) StartGame(ctx context.Context, req GameRequest) (Started, error) {
	r := req.Rules
	if r.Houses == 0 && r.Seeds == 0 {
		r = s.cfg.Rules // none given
	}
	if err := r.Validate(); err != nil {
		return Started{}, fmt.Errorf("%w: %w", ErrBadRequest, err)
	}
	if req.Names != [2]string{} {
		return Started{}, fmt.Errorf("%w: names are not taken any more: a seat shows its player (your account when signed in, else a guest name)", ErrBadRequest)
	}
	g, err := kalah.NewGame(r)
	if req.Start != "" {
		p, perr := kalah.ParsePosition(req.Start)
		if perr != nil {
			return Started{}, fmt.Errorf("%w: start: %w", ErrBadRequest, perr)
		}
		g, err = kalah.NewGameFrom(r, p)
	}
	if err != nil {
		return Started{}, fmt.Errorf("%w: %w", ErrBadRequest, err)
	}
	for i, m := range req.Opening {
		if _, err := g.Play(m); err != nil {
			return Started{}, fmt.Errorf("%w: opening move %d: %w", ErrBadRequest, i+1, err)
		}
	}
	if g.Over() {
		return Started{}, fmt.Errorf("%w: the game is over before it starts", ErrBadRequest)
	}
	if len(req.Tags) > 8 {
		return Started{}, fmt.Errorf("%w: tags too long or too many", ErrBadRequest)
	}
	for k, v := range req.Tags {
		if len(k) > 40 || len(v) > 200 {
			return Started{}, fmt.Errorf("%w: tags too long or too many", ErrBadRequest)
		}
	}
	perMove := time.Duration(req.PerMoveMS) * time.Millisecond
	delay := time.Duration(req.DelayMS) * time.Millisecond
	if perMove < 0 || perMove > maxPerMove || delay < 0 || delay > maxDelay {
		return Started{}, fmt.Errorf("%w: per move %v (at most %v), delay %v (at most %v)", ErrBadRequest, perMove, maxPerMove, delay, maxDelay)
	}
	clock := time.Duration(req.ClockMS) * time.Millisecond
	inc := time.Duration(req.IncrementMS) * time.Millisecond
	if clock < 0 || clock > 3*time.Hour || inc < 0 || inc > time.Minute || (inc > 0 && clock == 0) {
		return Started{}, fmt.Errorf("%w: a clock of %v with %v a move: want at most 3 hours and a minute a move", ErrBadRequest, clock, inc)
	}
	var seats [2]*seat
	var out Started
	humans := 0
	for i, spec := range []string{req.South, req.North} {
		spec = strings.TrimSpace(spec)
		if strings.EqualFold(spec, "human") || spec == "" {
			humans++
			st := &seat{Human: true, St: store.Seat{Kind: "human"}}
			who := req.seated[i]
			if who.IsZero() {
				who = req.by
			}
			switch {
			case req.reserve == i+1:
				st.St.Open, st.St.ID = true, who // kept for them
			case humans == 2 && req.Invite && req.reserve == 0:
				st.St.Open = true
				out.Invite, st.St.InviteHash = newToken()
			default:
				out.Tokens[i], st.St.TokenHash = newToken()
				st.St.ID = who
			}
			st.St.Name = displayName(st.St)
			seats[i] = st
			continue
		}
		p, err := s.serverPlayer(spec, r, seedFor(req.Seeds[i], i))
		if err != nil {
			if !errors.Is(err, ErrForbidden) {
				err = fmt.Errorf("%w: %w", ErrBadRequest, err)
			}
			closeSeats(seats)
			return Started{}, err
		}
		seats[i] = &seat{P: p, St: programSeat(spec)}
	}
	su := setup{start: req.Start, casual: req.Casual && humans > 0, tags: map[string]string{}, rated: req.Rated && !req.Casual,
		path: req.path, addrs: req.addrs}
	if su.path == "" {
		switch {
		case humans == 1:
			su.path = gate.Computer
		case req.Invite:
			su.path = gate.Invite
		default:
			su.path = gate.People
		}
	}
	for k, v := range req.Tags {
		su.tags[k] = v
	}
	if su.casual {
		su.tags[tagCasual] = "yes"
	}
	if req.Takebacks != nil && !*req.Takebacks {
		su.tags[tagNoTakebacks] = "yes"
	}
	if req.Event != "" {
		su.tags["Event"] = req.Event
	}
	if perMove > 0 || delay > 0 || humans > 0 || clock > 0 {
		su.ref = &referee.Referee{PerMove: perMove, Delay: delay, Grace: 250 * time.Millisecond, Budget: clock, Increment: inc}
		if perMove == 0 && humans == 0 && clock == 0 {
			su.ref.PerMove = s.cfg.PerMove
		}
		su.tags[tagPerMove] = strconv.FormatInt(su.ref.PerMove.Milliseconds(), 10)
		su.tags[tagDelay] = strconv.FormatInt(delay.Milliseconds(), 10)
		if clock > 0 {
			su.tags[tagClock] = strconv.FormatInt(clock.Milliseconds(), 10)
			su.tags[tagInc] = strconv.FormatInt(inc.Milliseconds(), 10)
		}
	}
	limited := -1
	su.limited = &limited
	rd, err := s.begin(ctx, g, seats, su)
	if err != nil {
		return Started{}, err
	}
	out.ID, out.limited = rd.ID(), limited
	if limited >= 0 {
		out.Note = limitNote(strconv.Itoa(limited), req.by, [2]identity.ID{seats[0].St.ID, seats[1].St.ID}, [2]string{seats[0].St.Name, seats[1].St.Name})
	}
	return out, nil
}

// seedFor returns a computer seat's seed: the one asked for, or one of
// the moment.
func seedFor(seed uint64, seat int) uint64 {
	if seed == 0 {
		seed = uint64(time.Now().UnixNano()) + uint64(seat)
	}
	return seed
}

// displayName is the name a person's seat shows: its identity's, or
// "Anonymous" for a seat taken without one; "" while open for anyone.
func displayName(st store.Seat) string { return rnd.DisplayName(st) }

// programSeat is the stored seat of a server-side player given by spec:
// a difficulty level is named by the level ("medium") whether it was asked
// for by its name or by its engine's settings ("pekar-tree:3"), so the same
// level reads the same from every entry point, and its Spec is the
// engine's, which the page shows as the seat's detail and a restarted
// server rebuilds the player from. A kind of player asked for by its bare
// name ("random", "pekar") is that player, named so, even where a level
// plays it (a tournament of "random" shows "random" in its games); any
// other spec is its own name.
func programSeat(spec string) store.Seat {
	name := spec
	bare := false
	for _, k := range player.List() {
		bare = bare || k.Name == spec
	}
	for _, l := range player.Levels() {
		if strings.EqualFold(spec, l.Name) || spec == l.Spec && !bare {
			name, spec = l.Name, l.Spec
			break
		}
	}
	return store.Seat{Name: name, Kind: "spec", Spec: spec, ID: identity.Of(identity.Program, name)}
}

// setupOf rebuilds a stored game's clock and casualness from its tags.
func (s *Server) setupOf(tags map[string]string) setup {
	su := setup{casual: tags[tagCasual] == "yes"}
	if pm, ok := tags[tagPerMove]; ok {
		ms, _ := strconv.ParseInt(pm, 10, 64)
		dl, _ := strconv.ParseInt(tags[tagDelay], 10, 64)
		cl, _ := strconv.ParseInt(tags[tagClock], 10, 64)
		inc, _ := strconv.ParseInt(tags[tagInc], 10, 64)
		su.ref = &referee.Referee{PerMove: time.Duration(ms) * time.Millisecond, Delay: time.Duration(dl) * time.Millisecond, Grace: 250 * time.Millisecond,
			Budget: time.Duration(cl) * time.Millisecond, Increment: time.Duration(inc) * time.Millisecond}
	}
	return su
}

// round returns live game id's round; for a game that is over, the error
// says so (kalah.ErrGameOver).
func (s *Server) round(id int64) (*round, error) {
	r := s.live.Get(id)
	if r == nil {
		ctx, cancel := context.WithTimeout(s.ctx, 5*time.Second)
		defer cancel()
		sg, err := s.st.Game(ctx, id)
		switch {
		case err == nil && sg.Status == store.Finished:
			return nil, fmt.Errorf("game %d: %w", id, kalah.ErrGameOver)
		case err != nil && !errors.Is(err, store.ErrNotFound):
			return nil, err
		}
		return nil, fmt.Errorf("live game %d: %w", id, ErrNotFound)
	}
	return r, nil
}

// Move plays a person's move in game id. An illegal move is refused, not
// forfeited.
func (s *Server) Move(ctx context.Context, id int64, a Actor, m kalah.Move) error {
	r, err := s.round(id)
	if err != nil {
		return err
	}
	return r.Move(ctx, a, m)
}

// Resign ends game id with a loss for the person's seat, whether or not it
// is their turn; before both sides have moved it aborts the game instead.
func (s *Server) Resign(ctx context.Context, id int64, a Actor) error {
	r, err := s.round(id)
	if err != nil {
		return err
	}
	return r.Resign(ctx, a)
}

// Abort calls game id off, with no result and no rating, as long as one
// side has not moved yet; either player may.
func (s *Server) Abort(ctx context.Context, id int64, a Actor) error {
	r, err := s.round(id)
	if err != nil {
		return err
	}
	return r.Abort(ctx, a)
}

// TakeBack takes back moves in game id (round.Round.TakeBack): against
// the computer at once, in a casual game; between people it asks the
// opponent, whose own takeback grants it.
func (s *Server) TakeBack(ctx context.Context, id int64, a Actor) error {
	r, err := s.round(id)
	if err != nil {
		return err
	}
	return r.TakeBack(ctx, a)
}

// DeclineTakeBack refuses the opponent's request to take back a move.
func (s *Server) DeclineTakeBack(ctx context.Context, id int64, a Actor) error {
	r, err := s.round(id)
	if err != nil {
		return err
	}
	return r.DeclineTakeBack(ctx, a)
}

// Claim ends a game between people without a clock in the person's
// favour when the opponent, to move, has not moved for Config.ClaimAfter.
func (s *Server) Claim(ctx context.Context, id int64, a Actor) error {
	r, err := s.round(id)
	if err != nil {
		return err
	}
	return r.Claim(ctx, a)
}

// GiveTime adds GiveTime to the opponent's clock, in a game with a clock
// between people.
func (s *Server) GiveTime(ctx context.Context, id int64, a Actor) error {
	r, err := s.round(id)
	if err != nil {
		return err
	}
	return r.GiveTime(ctx, a)
}

// Join takes an open seat of game id for a: a seat open to anyone who has
// the invitation's secret (the first who joins owns it), or a seat kept
// for a's identity (a rematch's). It returns the seat and a token that
// moves it.
func (s *Server) Join(ctx context.Context, id int64, a Actor, invite string) (int, string, error) {
	r, err := s.round(id)
	if err != nil {
		return 0, "", err
	}
	return r.Join(ctx, a, invite)
}

// Hint returns the move the server's analyser (Config.Hint) suggests to a
// person in a casual game against the computer, on their turn.
func (s *Server) Hint(ctx context.Context, id int64, a Actor) (kalah.Move, error) {
	r, err := s.round(id)
	if err != nil {
		return kalah.NoMove, err
	}
	g, err := r.Hint(ctx, a)
	if err != nil {
		return kalah.NoMove, err
	}
	return s.cfg.Hint(ctx, g)
}

// Abandon ends live game id as an adjudicated draw that counts for no one,
// with reason given; a tournament that stops abandons the game it was
// following, which it will play again.
func (s *Server) Abandon(ctx context.Context, id int64, reason string) error {
	r, err := s.round(id)
	if err != nil {
		return err
	}
	return r.Abandon(ctx, reason)
}

// Rematch starts, for a person of finished game id, the game after it:
// the same rules, start, clock and casualness, the sides exchanged. A
// computer keeps its player; each person gets their own seat and no
// other: the one who asks first starts the rematch and takes theirs, the
// other's is kept open for them (they take it by asking for the rematch
// too, or by opening it signed in). The finished game's RematchTag names
// the new one, so the other's page finds it.
func (s *Server) Rematch(ctx context.Context, id int64, a Actor) (Started, error) {
	s.rematchMu.Lock()
	defer s.rematchMu.Unlock()
	sg, err := s.st.Game(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return Started{}, fmt.Errorf("game %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return Started{}, err
	}
	if sg.Status != store.Finished {
		return Started{}, fmt.Errorf("%w: game %d is not over", ErrNotYourTurn, id)
	}
	seat := -1
	for i, st := range sg.Seats {
		if st.Kind == "human" && (hashIs(st.TokenHash, a.Token) || seat < 0 && a.ID.Is(st.ID)) {
			seat = i
		}
	}
	if seat < 0 {
		return Started{}, fmt.Errorf("%w: you played no seat in game %d", ErrForbidden, id)
	}
	mine := 1 - seat // sides exchanged
	if next := sg.Record.Tags[RematchTag]; next != "" {
		n, _ := strconv.ParseInt(next, 10, 64)
		ng, err := s.st.Game(ctx, n)
		if err != nil {
			return Started{}, fmt.Errorf("the rematch, game %d: %w", n, err)
		}
		if !ng.Seats[mine].Open {
			return Started{ID: n}, nil // taken already, by them
		}
		r, err := s.round(n)
		if err != nil {
			return Started{}, fmt.Errorf("the rematch, game %d: %w", n, err)
		}
		out := Started{ID: n}
		out.Tokens[mine], err = r.Take(ctx, mine, a)
		if err != nil {
			return Started{}, fmt.Errorf("the rematch, game %d: %w", n, err)
		}
		return out, nil
	}
	req := GameRequest{Rules: sg.Record.Rules, Start: sg.Record.Start, Tags: map[string]string{RematchOfTag: strconv.FormatInt(id, 10)}}
	su := s.setupOf(sg.Record.Tags)
	req.Casual = su.casual
	req.Rated = sg.Record.Tags[tagRated] == "yes" || sg.Record.Tags[tagRatedAsked] == "yes"
	if sg.Record.Tags[tagNoTakebacks] == "yes" {
		req.Takebacks = new(bool)
	}
	if su.ref != nil {
		req.PerMoveMS, req.DelayMS = su.ref.PerMove.Milliseconds(), su.ref.Delay.Milliseconds()
		req.ClockMS, req.IncrementMS = su.ref.Budget.Milliseconds(), su.ref.Increment.Milliseconds()
	}
	specs := [2]*string{&req.South, &req.North}
	for i, st := range sg.Seats {
		to := 1 - i
		switch st.Kind {
		case "human":
			*specs[to] = "human"
			req.seated[to] = st.ID
			if i != seat {
				req.reserve = to + 1
			}
		case "spec":
			*specs[to] = st.Spec
		default:
			return Started{}, fmt.Errorf("%w: a rematch is for games on this server's page and API; bots ask for theirs by playing again", ErrBadRequest)
		}
	}
	req.by = sg.Seats[seat].ID
	if req.by.IsZero() {
		req.by = a.ID
	}
	req.seated[mine] = req.by
	req.path = gate.Rematch
	req.addrs[mine] = a.Addr
	out, err := s.StartGame(ctx, req)
	if err != nil {
		return Started{}, err
	}
	if err := s.st.SetTag(ctx, id, RematchTag, strconv.FormatInt(out.ID, 10)); err != nil {
		return Started{}, err
	}
	return out, nil
}

// ImportedGame returns the id of the game imported under webID (ImportTag).
func (s *Server) ImportedGame(ctx context.Context, webID string) (int64, error) {
	id, err := s.st.GameByTag(ctx, ImportTag, webID)
	if errors.Is(err, store.ErrNotFound) {
		return 0, fmt.Errorf("game %q: %w", webID, ErrNotFound)
	}
	return id, err
}

// ImportGame stores a game played elsewhere; one not over goes on here at
// once, as a game resumed after a restart does.
func (s *Server) ImportGame(ctx context.Context, im Imported) (int64, error) {
	g, err := store.Replay(im.Record)
	if err != nil {
		return 0, fmt.Errorf("%w: %w", ErrBadRequest, err)
	}
	over := im.Record.Result != kalah.Ongoing
	seats := im.Seats
	for i := range seats {
		if seats[i].Kind == "human" {
			seats[i].TokenHash, seats[i].Open = "", im.Tokens[i] == ""
			if im.Tokens[i] != "" {
				seats[i].TokenHash = tokenHash(im.Tokens[i])
			}
			seats[i].Name = displayName(seats[i])
		}
	}
	tags := map[string]string{}
	for k, v := range im.Tags {
		tags[k] = v
	}
	if !over {
		tags[tagPerMove] = strconv.FormatInt(im.PerMove.Milliseconds(), 10)
		tags[tagDelay] = strconv.FormatInt(im.Delay.Milliseconds(), 10)
		if im.Casual {
			tags[tagCasual] = "yes"
		}
	}
	id, err := s.st.CreateGame(ctx, store.NewGame{Rules: g.Rules(), Seats: seats, Start: im.Record.Start, Tags: tags})
	if err != nil {
		return 0, err
	}
	for i, m := range im.Record.Moves {
		if err := s.st.AddMove(ctx, id, i, m); err != nil {
			return 0, err
		}
	}
	if over {
		return id, s.st.FinishGame(ctx, id, im.Record)
	}
	sg, err := s.st.Game(ctx, id)
	if err != nil {
		return 0, err
	}
	return id, s.resumeGame(sg)
}
