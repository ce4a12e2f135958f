package setup

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
	"kalah/server/ratings"
	"kalah/server/round"
	"kalah/server/views"
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
	// By is who asks: the person seated in the game's first human seat
	// (and the second too, unless Invite). The server sets it, and the
	// fields below, from the request's session; JSON never does.
	By identity.ID `json:"-"`
	// Seated, if set, gives the human seats by seat (a seek's two people,
	// a rematch's); a zero ID leaves that seat to By.
	Seated [2]identity.ID `json:"-"`
	// Reserve, if set, leaves human seat Reserve-1 open for the identity
	// seated there (a rematch's other player).
	Reserve int `json:"-"`
	// Path is how the game was asked for, and Addrs the address of each
	// person seated, where known (for the gate).
	Path  gate.Path `json:"-"`
	Addrs [2]string `json:"-"`
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
	// Limited is that count (-1: not limited), for callers that tell
	// someone else.
	Limited int `json:"-"`
}

// StartGame starts a game between server-side players and people.
func (m *Service) StartGame(ctx context.Context, req GameRequest) (Started, error) {
	r := req.Rules
	if r.Houses == 0 && r.Seeds == 0 {
		r = m.cfg.Rules // none given
	}
	if err := r.Validate(); err != nil {
		return Started{}, fmt.Errorf("%w: %w", core.ErrBadRequest, err)
	}
	if req.Names != [2]string{} {
		return Started{}, fmt.Errorf("%w: names are not taken any more: a seat shows its player (your account when signed in, else a guest name)", core.ErrBadRequest)
	}
	g, err := kalah.NewGame(r)
	if req.Start != "" {
		p, perr := kalah.ParsePosition(req.Start)
		if perr != nil {
			return Started{}, fmt.Errorf("%w: start: %w", core.ErrBadRequest, perr)
		}
		g, err = kalah.NewGameFrom(r, p)
	}
	if err != nil {
		return Started{}, fmt.Errorf("%w: %w", core.ErrBadRequest, err)
	}
	for i, m := range req.Opening {
		if _, err := g.Play(m); err != nil {
			return Started{}, fmt.Errorf("%w: opening move %d: %w", core.ErrBadRequest, i+1, err)
		}
	}
	if g.Over() {
		return Started{}, fmt.Errorf("%w: the game is over before it starts", core.ErrBadRequest)
	}
	if len(req.Tags) > 8 {
		return Started{}, fmt.Errorf("%w: tags too long or too many", core.ErrBadRequest)
	}
	for k, v := range req.Tags {
		if len(k) > 40 || len(v) > 200 {
			return Started{}, fmt.Errorf("%w: tags too long or too many", core.ErrBadRequest)
		}
	}
	perMove := time.Duration(req.PerMoveMS) * time.Millisecond
	delay := time.Duration(req.DelayMS) * time.Millisecond
	if perMove < 0 || perMove > maxPerMove || delay < 0 || delay > maxDelay {
		return Started{}, fmt.Errorf("%w: per move %v (at most %v), delay %v (at most %v)", core.ErrBadRequest, perMove, maxPerMove, delay, maxDelay)
	}
	clock := time.Duration(req.ClockMS) * time.Millisecond
	inc := time.Duration(req.IncrementMS) * time.Millisecond
	if clock < 0 || clock > 3*time.Hour || inc < 0 || inc > time.Minute || (inc > 0 && clock == 0) {
		return Started{}, fmt.Errorf("%w: a clock of %v with %v a move: want at most 3 hours and a minute a move", core.ErrBadRequest, clock, inc)
	}
	var seats [2]*round.Seat
	var out Started
	humans := 0
	for i, spec := range []string{req.South, req.North} {
		spec = strings.TrimSpace(spec)
		if strings.EqualFold(spec, "human") || spec == "" {
			humans++
			st := &round.Seat{Human: true, St: store.Seat{Kind: "human"}}
			who := req.Seated[i]
			if who.IsZero() {
				who = req.By
			}
			switch {
			case req.Reserve == i+1:
				st.St.Open, st.St.ID = true, who // kept for them
			case humans == 2 && req.Invite && req.Reserve == 0:
				st.St.Open = true
				out.Invite, st.St.InviteHash = round.NewToken()
			default:
				out.Tokens[i], st.St.TokenHash = round.NewToken()
				st.St.ID = who
			}
			st.St.Name = round.DisplayName(st.St)
			seats[i] = st
			continue
		}
		p, err := m.host.ServerPlayer(spec, r, seedFor(req.Seeds[i], i))
		if err != nil {
			if !errors.Is(err, core.ErrForbidden) {
				err = fmt.Errorf("%w: %w", core.ErrBadRequest, err)
			}
			CloseSeats(seats)
			return Started{}, err
		}
		seats[i] = &round.Seat{P: p, St: ProgramSeat(spec)}
	}
	su := Setup{Start: req.Start, Casual: req.Casual && humans > 0, Tags: map[string]string{}, Rated: req.Rated && !req.Casual,
		Path: req.Path, Addrs: req.Addrs}
	if su.Path == "" {
		switch {
		case humans == 1:
			su.Path = gate.Computer
		case req.Invite:
			su.Path = gate.Invite
		default:
			su.Path = gate.People
		}
	}
	for k, v := range req.Tags {
		su.Tags[k] = v
	}
	if su.Casual {
		su.Tags[core.TagCasual] = "yes"
	}
	if req.Takebacks != nil && !*req.Takebacks {
		su.Tags[core.TagNoTakebacks] = "yes"
	}
	if req.Event != "" {
		su.Tags["Event"] = req.Event
	}
	if perMove > 0 || delay > 0 || humans > 0 || clock > 0 {
		su.Ref = &referee.Referee{PerMove: perMove, Delay: delay, Grace: 250 * time.Millisecond, Budget: clock, Increment: inc}
		if perMove == 0 && humans == 0 && clock == 0 {
			su.Ref.PerMove = m.cfg.PerMove
		}
		su.Tags[core.TagPerMove] = strconv.FormatInt(su.Ref.PerMove.Milliseconds(), 10)
		su.Tags[core.TagDelay] = strconv.FormatInt(delay.Milliseconds(), 10)
		if clock > 0 {
			su.Tags[core.TagClock] = strconv.FormatInt(clock.Milliseconds(), 10)
			su.Tags[core.TagInc] = strconv.FormatInt(inc.Milliseconds(), 10)
		}
	}
	limited := -1
	su.Limited = &limited
	rd, err := m.Begin(ctx, g, seats, su)
	if err != nil {
		return Started{}, err
	}
	out.ID, out.Limited = rd.ID(), limited
	if limited >= 0 {
		out.Note = ratings.LimitNote(strconv.Itoa(limited), req.By, [2]identity.ID{seats[0].St.ID, seats[1].St.ID}, [2]string{seats[0].St.Name, seats[1].St.Name})
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

// ProgramSeat is the stored seat of a server-side player given by spec:
// a difficulty level is named by the level ("medium") whether it was asked
// for by its name or by its engine's settings ("pekar-tree:3"), so the same
// level reads the same from every entry point, and its Spec is the
// engine's, which the page shows as the seat's detail and a restarted
// server rebuilds the player from. A kind of player asked for by its bare
// name ("random", "pekar") is that player, named so, even where a level
// plays it (a tournament of "random" shows "random" in its games); any
// other spec is its own name.
func ProgramSeat(spec string) store.Seat {
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

// SetupOf rebuilds a stored game's clock and casualness from its tags.
func SetupOf(tags map[string]string) Setup {
	su := Setup{Casual: tags[core.TagCasual] == "yes"}
	if pm, ok := tags[core.TagPerMove]; ok {
		ms, _ := strconv.ParseInt(pm, 10, 64)
		dl, _ := strconv.ParseInt(tags[core.TagDelay], 10, 64)
		cl, _ := strconv.ParseInt(tags[core.TagClock], 10, 64)
		inc, _ := strconv.ParseInt(tags[core.TagInc], 10, 64)
		su.Ref = &referee.Referee{PerMove: time.Duration(ms) * time.Millisecond, Delay: time.Duration(dl) * time.Millisecond, Grace: 250 * time.Millisecond,
			Budget: time.Duration(cl) * time.Millisecond, Increment: time.Duration(inc) * time.Millisecond}
	}
	return su
}

// Round returns live game id's round; for a game that is over, the error
// says so (kalah.ErrGameOver).
func (m *Service) Round(id int64) (*round.Round, error) {
	r := m.cfg.Live.Get(id)
	if r == nil {
		ctx, cancel := context.WithTimeout(m.ctx, 5*time.Second)
		defer cancel()
		sg, err := m.st.Game(ctx, id)
		switch {
		case err == nil && sg.Status == store.Finished:
			return nil, fmt.Errorf("game %d: %w", id, kalah.ErrGameOver)
		case err != nil && !errors.Is(err, store.ErrNotFound):
			return nil, err
		}
		return nil, fmt.Errorf("live game %d: %w", id, core.ErrNotFound)
	}
	return r, nil
}

// Move plays a person's move in game id. An illegal move is refused, not
// forfeited.
func (m *Service) Move(ctx context.Context, id int64, a core.Actor, mv kalah.Move) error {
	r, err := m.Round(id)
	if err != nil {
		return err
	}
	return r.Move(ctx, a, mv)
}

// Resign ends game id with a loss for the person's seat, whether or not it
// is their turn; before both sides have moved it aborts the game instead.
func (m *Service) Resign(ctx context.Context, id int64, a core.Actor) error {
	r, err := m.Round(id)
	if err != nil {
		return err
	}
	return r.Resign(ctx, a)
}

// Abort calls game id off, with no result and no rating, as long as one
// side has not moved yet; either player may.
func (m *Service) Abort(ctx context.Context, id int64, a core.Actor) error {
	r, err := m.Round(id)
	if err != nil {
		return err
	}
	return r.Abort(ctx, a)
}

// TakeBack takes back moves in game id (round.Round.TakeBack): against
// the computer at once, in a casual game; between people it asks the
// opponent, whose own takeback grants it.
func (m *Service) TakeBack(ctx context.Context, id int64, a core.Actor) error {
	r, err := m.Round(id)
	if err != nil {
		return err
	}
	return r.TakeBack(ctx, a)
}

// DeclineTakeBack refuses the opponent's request to take back a move.
func (m *Service) DeclineTakeBack(ctx context.Context, id int64, a core.Actor) error {
	r, err := m.Round(id)
	if err != nil {
		return err
	}
	return r.DeclineTakeBack(ctx, a)
}

// Claim ends a game between people without a clock in the person's
// favour when the opponent, to move, has not moved for the server's
// ClaimAfter.
func (m *Service) Claim(ctx context.Context, id int64, a core.Actor) error {
	r, err := m.Round(id)
	if err != nil {
		return err
	}
	return r.Claim(ctx, a)
}

// GiveTime adds GiveTime to the opponent's clock, in a game with a clock
// between people.
func (m *Service) GiveTime(ctx context.Context, id int64, a core.Actor) error {
	r, err := m.Round(id)
	if err != nil {
		return err
	}
	return r.GiveTime(ctx, a)
}

// Join takes an open seat of game id for a: a seat open to anyone who has
// the invitation's secret (the first who joins owns it), or a seat kept
// for a's identity (a rematch's). It returns the seat and a token that
// moves it.
func (m *Service) Join(ctx context.Context, id int64, a core.Actor, invite string) (int, string, error) {
	r, err := m.Round(id)
	if err != nil {
		return 0, "", err
	}
	return r.Join(ctx, a, invite)
}

// Hint returns the move the server's analyser (Config.Hint) suggests to a
// person in a casual game against the computer, on their turn.
func (m *Service) Hint(ctx context.Context, id int64, a core.Actor) (kalah.Move, error) {
	r, err := m.Round(id)
	if err != nil {
		return kalah.NoMove, err
	}
	g, err := r.Hint(ctx, a)
	if err != nil {
		return kalah.NoMove, err
	}
	return m.cfg.Hint(ctx, g)
}

// Abandon ends live game id as an adjudicated draw that counts for no one,
// with reason given; a tournament that stops abandons the game it was
// following, which it will play again.
func (m *Service) Abandon(ctx context.Context, id int64, reason string) error {
	r, err := m.Round(id)
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
func (m *Service) Rematch(ctx context.Context, id int64, a core.Actor) (Started, error) {
	m.rematchMu.Lock()
	defer m.rematchMu.Unlock()
	sg, err := m.st.Game(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return Started{}, fmt.Errorf("game %d: %w", id, core.ErrNotFound)
	}
	if err != nil {
		return Started{}, err
	}
	if sg.Status != store.Finished {
		return Started{}, fmt.Errorf("%w: game %d is not over", core.ErrNotYourTurn, id)
	}
	seat := -1
	for i, st := range sg.Seats {
		if st.Kind == "human" && (round.HashIs(st.TokenHash, a.Token) || seat < 0 && a.ID.Is(st.ID)) {
			seat = i
		}
	}
	if seat < 0 {
		return Started{}, fmt.Errorf("%w: you played no seat in game %d", core.ErrForbidden, id)
	}
	mine := 1 - seat // sides exchanged
	if next := sg.Record.Tags[core.RematchTag]; next != "" {
		n, _ := strconv.ParseInt(next, 10, 64)
		ng, err := m.st.Game(ctx, n)
		if err != nil {
			return Started{}, fmt.Errorf("the rematch, game %d: %w", n, err)
		}
		if !ng.Seats[mine].Open {
			return Started{ID: n}, nil // taken already, by them
		}
		r, err := m.Round(n)
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
	req := GameRequest{Rules: sg.Record.Rules, Start: sg.Record.Start, Tags: map[string]string{core.RematchOfTag: strconv.FormatInt(id, 10)}}
	su := SetupOf(sg.Record.Tags)
	req.Casual = su.Casual
	req.Rated = sg.Record.Tags[core.TagRated] == "yes" || sg.Record.Tags[core.TagRatedAsked] == "yes"
	if sg.Record.Tags[core.TagNoTakebacks] == "yes" {
		req.Takebacks = new(bool)
	}
	if su.Ref != nil {
		req.PerMoveMS, req.DelayMS = su.Ref.PerMove.Milliseconds(), su.Ref.Delay.Milliseconds()
		req.ClockMS, req.IncrementMS = su.Ref.Budget.Milliseconds(), su.Ref.Increment.Milliseconds()
	}
	specs := [2]*string{&req.South, &req.North}
	for i, st := range sg.Seats {
		to := 1 - i
		switch st.Kind {
		case "human":
			*specs[to] = "human"
			req.Seated[to] = st.ID
			if i != seat {
				req.Reserve = to + 1
			}
		case "spec":
			*specs[to] = st.Spec
		default:
			return Started{}, fmt.Errorf("%w: a rematch is for games on this server's page and API; bots ask for theirs by playing again", core.ErrBadRequest)
		}
	}
	req.By = sg.Seats[seat].ID
	if req.By.IsZero() {
		req.By = a.ID
	}
	req.Seated[mine] = req.By
	req.Path = gate.Rematch
	req.Addrs[mine] = a.Addr
	out, err := m.StartGame(ctx, req)
	if err != nil {
		return Started{}, err
	}
	if err := m.st.SetTag(ctx, id, core.RematchTag, strconv.FormatInt(out.ID, 10)); err != nil {
		return Started{}, err
	}
	return out, nil
}

// ImportedGame returns the id of the game imported under webID (ImportTag).
func (m *Service) ImportedGame(ctx context.Context, webID string) (int64, error) {
	id, err := m.st.GameByTag(ctx, core.ImportTag, webID)
	if errors.Is(err, store.ErrNotFound) {
		return 0, fmt.Errorf("game %q: %w", webID, core.ErrNotFound)
	}
	return id, err
}

// ImportGame stores a game played elsewhere; one not over goes on here at
// once, as a game resumed after a restart does.
func (m *Service) ImportGame(ctx context.Context, im views.Imported) (int64, error) {
	g, err := store.Replay(im.Record)
	if err != nil {
		return 0, fmt.Errorf("%w: %w", core.ErrBadRequest, err)
	}
	over := im.Record.Result != kalah.Ongoing
	seats := im.Seats
	for i := range seats {
		if seats[i].Kind == "human" {
			seats[i].TokenHash, seats[i].Open = "", im.Tokens[i] == ""
			if im.Tokens[i] != "" {
				seats[i].TokenHash = round.TokenHash(im.Tokens[i])
			}
			seats[i].Name = round.DisplayName(seats[i])
		}
	}
	tags := map[string]string{}
	for k, v := range im.Tags {
		tags[k] = v
	}
	if !over {
		tags[core.TagPerMove] = strconv.FormatInt(im.PerMove.Milliseconds(), 10)
		tags[core.TagDelay] = strconv.FormatInt(im.Delay.Milliseconds(), 10)
		if im.Casual {
			tags[core.TagCasual] = "yes"
		}
	}
	id, err := m.st.CreateGame(ctx, store.NewGame{Rules: g.Rules(), Seats: seats, Start: im.Record.Start, Tags: tags})
	if err != nil {
		return 0, err
	}
	for i, rm := range im.Record.Moves {
		if err := m.st.AddMove(ctx, id, i, rm); err != nil {
			return 0, err
		}
	}
	if over {
		return id, m.st.FinishGame(ctx, id, im.Record)
	}
	sg, err := m.st.Game(ctx, id)
	if err != nil {
		return 0, err
	}
	return id, m.resumeGame(sg)
}
