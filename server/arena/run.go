package arena

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"kalah"
	"kalah/internal/identity"
	"kalah/internal/store"
	"kalah/server/core"
	"kalah/tournament"
)

// A director runs one people's tournament: it waits for the start, pairs
// the players (an arena whenever two are free, a Swiss round by round),
// starts their games and hears each end (watch), until the tournament is
// over or the server stops. The store holds everything it knows, so a
// restarted server's director goes on where the last one stopped: it
// watches the games resumed, and a Swiss plays the round it was in.
type director struct {
	p  *Tours
	id int64
	// nudge wakes the director: someone joined or withdrew, a game ended.
	nudge chan struct{}

	mu sync.Mutex
	// starting holds the Swiss pairings whose games are being started
	// (their bots waited for), so none is started twice.
	starting map[int64]bool
}

// pairEvery is how often an arena's director looks for players to pair
// besides being woken: a bot that comes back, for one.
const pairEvery = time.Second

// Start runs tournament id's director, unless it runs already or the
// server's tournaments are stopping.
func (p *Tours) Start(id int64) bool {
	p.mu.Lock()
	if p.directors[id] != nil {
		p.mu.Unlock()
		return true
	}
	d := &director{p: p, id: id, nudge: make(chan struct{}, 1), starting: map[int64]bool{}}
	p.directors[id] = d
	p.mu.Unlock()
	ok := p.cfg.Go(func() {
		defer func() {
			p.mu.Lock()
			delete(p.directors, id)
			p.mu.Unlock()
		}()
		if err := d.run(); err != nil && p.cfg.Context.Err() == nil {
			p.log.Error("people's tournament stopped", "tournament", IDString(id), "err", err)
		}
	})
	if !ok {
		p.mu.Lock()
		delete(p.directors, id)
		p.mu.Unlock()
	}
	return ok
}

// Resume starts the director of every unfinished people's tournament.
func (p *Tours) Resume(ctx context.Context) error {
	ts, err := p.st.PeopleTournaments(ctx, true, 1000)
	if err != nil {
		return err
	}
	for _, t := range ts {
		p.Start(t.ID)
	}
	return nil
}

// nudge wakes tournament n's director, if it runs.
func (p *Tours) nudge(n int64) {
	p.mu.Lock()
	d := p.directors[n]
	p.mu.Unlock()
	if d != nil {
		d.wake()
	}
}

func (d *director) wake() {
	select {
	case d.nudge <- struct{}{}:
	default:
	}
}

// ctx is the context the director runs under: the tournaments'.
func (d *director) ctx() context.Context { return d.p.cfg.Context }

// sleep waits for a nudge, for timer (nil: none) or until ctx ends; it
// returns false once ctx has ended.
func (d *director) sleep(timer <-chan time.Time) bool {
	select {
	case <-d.nudge:
	case <-timer:
	case <-d.ctx().Done():
		return false
	}
	return true
}

func (d *director) run() error {
	ctx := d.ctx()
	t, err := d.p.st.PeopleTournament(ctx, d.id)
	if err != nil {
		return err
	}
	// The games a server before this one started: watched again, or, in
	// an arena, a pairing whose game never started is void.
	pairings, err := d.p.st.PeoplePairings(ctx, d.id)
	if err != nil {
		return err
	}
	for _, pr := range pairings {
		switch {
		case pr.Result != "":
		case pr.Game != 0:
			d.watch(pr, d.p.host.Live(pr.Game))
		case t.Format == FormatArena:
			if _, err := d.p.st.EndPeoplePairing(ctx, pr.ID, store.PairNone, false, "void: the server stopped before the game began"); err != nil {
				return err
			}
		}
	}
	for t.Status == store.TourWaiting {
		wait := time.Until(t.Starts)
		if wait <= 0 && t.Format == FormatSwiss {
			// A Swiss begins once two can be paired; nobody waits for ever.
			n, err := d.activeEntrants()
			if err != nil {
				return err
			}
			if n < 2 {
				if time.Since(t.Starts) >= swissPatience {
					return d.finish(0, fmt.Sprintf("fewer than two players came within %v of the start", swissPatience))
				}
				wait = min(time.Until(t.Starts.Add(swissPatience)), time.Minute)
			}
		}
		if wait <= 0 {
			if err := d.p.st.SetPeopleTournamentState(ctx, d.id, store.TourRunning, 0, ""); err != nil {
				return err
			}
			t.Status = store.TourRunning
			d.p.log.Info("people's tournament started", "tournament", IDString(d.id))
			break
		}
		timer := time.NewTimer(wait)
		ok := d.sleep(timer.C)
		timer.Stop()
		if !ok {
			return nil
		}
	}
	if t.Format == FormatArena {
		return d.runArena(t)
	}
	return d.runSwiss(t)
}

// swissPatience is how long after its start a Swiss waits for a second
// player before it ends without a game.
const swissPatience = time.Hour

// activeEntrants counts the tournament's active entrants.
func (d *director) activeEntrants() (int, error) {
	es, err := d.p.st.PeopleEntrants(d.ctx(), d.id)
	n := 0
	for _, e := range es {
		if e.Active {
			n++
		}
	}
	return n, err
}

// finish ends the tournament with note (empty, or why in words).
func (d *director) finish(round int, note string) error {
	if err := d.p.st.SetPeopleTournamentState(context.WithoutCancel(d.ctx()), d.id, store.TourFinished, round, note); err != nil {
		return err
	}
	d.p.log.Info("people's tournament finished", "tournament", IDString(d.id), "note", note)
	return nil
}

// runArena pairs free players until the arena's time is up. Games still
// in play then go on, but count for nothing, as on lichess.
func (d *director) runArena(t store.PeopleTournament) error {
	end := arenaEnd(t)
	endTimer := time.NewTimer(max(time.Until(end), 0))
	defer endTimer.Stop()
	tick := time.NewTicker(pairEvery)
	defer tick.Stop()
	for {
		if !time.Now().Before(end) {
			return d.finish(0, "")
		}
		if err := d.pairArena(t, end); err != nil {
			return err
		}
		select {
		case <-d.nudge:
		case <-tick.C:
		case <-endTimer.C:
		case <-d.ctx().Done():
			return nil
		}
	}
}

// pairArena pairs the players free now: active, in no game of the
// arena, and, for a bot, logged in and free for a game. Whoever has waited
// longest is paired first, with the free player closest in the standings
// whom they have not just played; two who have just played each other
// meet again only when nobody else is in a game to wait for. The one who
// was South less often takes South.
func (d *director) pairArena(t store.PeopleTournament, end time.Time) error {
	ctx := d.ctx()
	entrants, err := d.p.st.PeopleEntrants(ctx, d.id)
	if err != nil {
		return err
	}
	pairings, err := d.p.st.PeoplePairings(ctx, d.id)
	if err != nil {
		return err
	}
	busy := map[string]bool{}
	last := map[string]string{}     // each player's last opponent
	lastAt := map[string]int64{}    // the pairing that set it
	souths := map[string]int{}      // games each started South
	since := map[string]time.Time{} // when each was last free: joined, or their last game ended
	for _, e := range entrants {
		since[e.ID.Key()] = e.Joined
	}
	for _, pr := range pairings {
		s, n := pr.South.Key(), pr.North.Key()
		if pr.Result == "" {
			busy[s], busy[n] = true, true
		}
		if pr.Result == store.PairNone && pr.Game == 0 {
			continue
		}
		souths[s]++
		for _, x := range [][2]string{{s, n}, {n, s}} {
			if pr.ID > lastAt[x[0]] {
				lastAt[x[0]], last[x[0]] = pr.ID, x[1]
			}
			if pr.Ended.After(since[x[0]]) {
				since[x[0]] = pr.Ended
			}
		}
	}
	tb := standings(t, entrants, pairings, nil)
	var free []Standing // in the order of the standings
	others := 0         // active players in a game now
	for _, s := range tb.standings {
		switch {
		case !s.Active:
		case busy[s.ID.Key()]:
			others++
		case s.ID.Kind == identity.Bot && !d.p.host.BotFree(s.ID.Key()):
		default:
			free = append(free, s)
		}
	}
	queue := make([]int, len(free)) // the free, longest waiting first
	for i := range queue {
		queue[i] = i
	}
	slices.SortStableFunc(queue, func(a, b int) int { return since[free[a].ID.Key()].Compare(since[free[b].ID.Key()]) })
	used := make([]bool, len(free))
	for _, i := range queue {
		if used[i] {
			continue
		}
		a := free[i].ID
		pick, rematch := -1, -1
		for j := range free {
			if used[j] || j == i {
				continue
			}
			b := free[j].ID
			closer := pick < 0 || abs(j-i) < abs(pick-i)
			switch {
			case last[a.Key()] != b.Key() && last[b.Key()] != a.Key():
				if closer {
					pick = j
				}
			case rematch < 0:
				rematch = j
			}
		}
		if pick < 0 && others == 0 {
			pick = rematch // nobody else to wait for
		}
		if pick < 0 {
			continue
		}
		used[i], used[pick] = true, true
		south, north := a, free[pick].ID
		if souths[north.Key()] < souths[south.Key()] {
			south, north = north, south
		}
		if !time.Now().Before(end) {
			return nil
		}
		if err := d.startPairing(t, 0, south, north, 0); err != nil {
			return err
		}
	}
	return nil
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// runSwiss plays the rounds: each paired by score once the one before has
// ended, after a pause for the players to see the standings.
func (d *director) runSwiss(t store.PeopleTournament) error {
	ctx := d.ctx()
	tick := time.NewTicker(pairEvery)
	defer tick.Stop()
	for {
		// The round in play: games not started yet are started (again,
		// after a restart or a full server), and the director waits until
		// every game has ended.
		pairings, err := d.p.st.PeoplePairings(ctx, d.id)
		if err != nil {
			return err
		}
		pending := false
		for _, pr := range pairings {
			if pr.Round == t.Round && pr.Result == "" {
				pending = true
				if pr.Game == 0 {
					d.startSwissGame(t, pr)
				}
			}
		}
		if pending {
			if !d.sleep(tick.C) {
				return nil
			}
			continue
		}
		if t.Round >= t.Rounds {
			return d.finish(t.Round, "")
		}
		if t.Round > 0 && d.p.cfg.Pause > 0 {
			timer := time.NewTimer(d.p.cfg.Pause)
			select {
			case <-timer.C:
			case <-ctx.Done():
				timer.Stop()
				return nil
			}
		}
		next, err := d.pairSwiss(t)
		if err != nil {
			return err
		}
		if next == 0 {
			return d.finish(t.Round, "fewer than two players to pair: the tournament ends here")
		}
		t.Round = next
	}
}

// pairSwiss pairs the next round of a Swiss from its standings (package
// tournament's pairing: by score, no pair twice while another way exists,
// a bye for the lowest without one) and stores it with the round's number
// in one write. It returns the round, or 0 if fewer than two active
// players are left.
func (d *director) pairSwiss(t store.PeopleTournament) (int, error) {
	ctx := d.ctx()
	entrants, err := d.p.st.PeopleEntrants(ctx, d.id)
	if err != nil {
		return 0, err
	}
	pairings, err := d.p.st.PeoplePairings(ctx, d.id)
	if err != nil {
		return 0, err
	}
	byes, err := d.p.st.PeopleByes(ctx, d.id)
	if err != nil {
		return 0, err
	}
	tb := standings(t, entrants, pairings, byes)
	var ids []identity.ID
	index := map[string]int{}
	for _, s := range tb.standings {
		if s.Active {
			index[s.ID.Key()] = len(ids)
			ids = append(ids, s.ID)
		}
	}
	if len(ids) < 2 {
		return 0, nil
	}
	met := map[[2]int]bool{}
	souths := map[string]int{}
	for _, pr := range pairings {
		souths[pr.South.Key()]++
		a, okA := index[pr.South.Key()]
		b, okB := index[pr.North.Key()]
		if okA && okB {
			met[tournament.PairKey(a, b)] = true
		}
	}
	hadBye := map[int]bool{}
	for _, who := range byes {
		if i, ok := index[who.Key()]; ok {
			hadBye[i] = true
		}
	}
	order := make([]int, len(ids))
	for i := range order {
		order[i] = i
	}
	pairs, bye := tournament.PairSwiss(order, met, hadBye)
	round := t.Round + 1
	var games [][2]identity.ID
	for _, pr := range pairs {
		south, north := ids[pr[0]], ids[pr[1]]
		// The one who was South less often takes South; on a tie, it
		// alternates by round.
		if c := cmp.Compare(souths[south.Key()], souths[north.Key()]); c > 0 || c == 0 && round%2 == 0 {
			south, north = north, south
		}
		games = append(games, [2]identity.ID{south, north})
	}
	var byeID identity.ID
	if bye >= 0 {
		byeID = ids[bye]
	}
	if err := d.p.st.AddPeopleRound(ctx, d.id, round, games, byeID); err != nil {
		return 0, err
	}
	d.p.log.Info("swiss round paired", "tournament", IDString(d.id), "round", round, "games", len(games), "bye", byeID.Key())
	return round, nil
}

// startSwissGame starts the game of a Swiss pairing in the background,
// unless it is being started already: a bot has Config.Wait (the
// server's ArrangedWait) to be free for it, and loses the game if it is
// not (both: no result).
func (d *director) startSwissGame(t store.PeopleTournament, pr store.PeoplePairing) {
	d.mu.Lock()
	if d.starting[pr.ID] {
		d.mu.Unlock()
		return
	}
	d.starting[pr.ID] = true
	d.mu.Unlock()
	started := d.p.cfg.Go(func() {
		defer func() {
			d.mu.Lock()
			delete(d.starting, pr.ID)
			d.mu.Unlock()
		}()
		if err := d.startGame(t, pr.ID, pr.Round, pr.South, pr.North, d.p.cfg.Wait); err != nil && d.ctx().Err() == nil {
			d.p.log.Error("a tournament game did not start", "tournament", IDString(d.id), "err", err)
		}
	})
	if !started {
		d.mu.Lock()
		delete(d.starting, pr.ID)
		d.mu.Unlock()
	}
}

// startPairing stores an arena pairing and starts its game, the bots in
// it taken at once (wait 0); a pairing whose bot was taken meanwhile is
// void.
func (d *director) startPairing(t store.PeopleTournament, round int, south, north identity.ID, wait time.Duration) error {
	pid, err := d.p.st.AddPeoplePairing(d.ctx(), d.id, round, south, north)
	if err != nil {
		return err
	}
	return d.startGame(t, pid, round, south, north, wait)
}

// startGame starts pairing pid's game and watches it. A bot that is not
// free within wait loses the pairing in a Swiss (both: no result); in an
// arena the pairing is void.
func (d *director) startGame(t store.PeopleTournament, pid int64, round int, south, north identity.ID, wait time.Duration) error {
	ctx := d.ctx()
	rd, missing, err := d.startTournamentGame(ctx, t, round, [2]identity.ID{south, north}, wait)
	switch {
	case errors.Is(err, ErrNotFree):
		result, note := store.PairNone, ""
		switch {
		case t.Format == FormatArena:
			note = "void: a bot was taken by another game"
		case missing[0] && missing[1]:
			note = fmt.Sprintf("neither %s nor %s was free for the game within %v", south.Display(), north.Display(), wait)
		case missing[0]:
			result, note = store.PairNorth, fmt.Sprintf("%s was not free for the game within %v", south.Display(), wait)
		default:
			result, note = store.PairSouth, fmt.Sprintf("%s was not free for the game within %v", north.Display(), wait)
		}
		_, err := d.p.st.EndPeoplePairing(context.WithoutCancel(ctx), pid, result, result != store.PairNone, note)
		d.wake()
		return err
	case errors.Is(err, core.ErrBusy) && t.Format == FormatArena:
		// The server is full: the pairing is void, the players free for
		// the next try.
		_, err := d.p.st.EndPeoplePairing(context.WithoutCancel(ctx), pid, store.PairNone, false, "void: the server was full")
		return err
	case err != nil:
		if ctx.Err() != nil || errors.Is(err, core.ErrClosed) {
			return nil // the next server starts it (Swiss) or voids it (arena)
		}
		return err
	}
	if err := d.p.st.SetPeoplePairingGame(context.WithoutCancel(ctx), pid, rd.ID()); err != nil {
		return err
	}
	d.watch(store.PeoplePairing{ID: pid, Round: round, South: south, North: north, Game: rd.ID()}, rd)
	return nil
}

// watch waits, in the background, for the end of pairing pr's game (rd,
// or nil for one not live here) and records it.
func (d *director) watch(pr store.PeoplePairing, rd LiveGame) {
	d.p.cfg.Go(func() {
		ctx := d.ctx()
		if rd != nil {
			select {
			case <-rd.Done():
			case <-ctx.Done():
				return
			}
			if !rd.Ended() {
				return // the server stops: the next one resumes the game
			}
		}
		if err := d.record(pr); err != nil && ctx.Err() == nil {
			d.p.log.Error("a tournament game's end was not recorded", "tournament", IDString(d.id), "game", pr.Game, "err", err)
		}
		d.wake()
	})
}

// record stores how pairing pr's game ended. A game aborted before both
// sides moved blames the side that was to move (it did not, or aborted):
// in an arena it scores nothing and that player is withdrawn (they may
// join again); in a Swiss they lose it, and are withdrawn. An arena counts
// only the games that end before it does.
func (d *director) record(pr store.PeoplePairing) error {
	ctx := context.WithoutCancel(d.ctx())
	t, err := d.p.st.PeopleTournament(ctx, d.id)
	if err != nil {
		return err
	}
	sg, err := d.p.st.Game(ctx, pr.Game)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	result, note, blame := store.PairNone, "", -1
	ids := [2]identity.ID{pr.South, pr.North}
	switch {
	case err != nil || sg.Status != store.Finished:
		note = "the game was lost when the server stopped"
	default:
		g, rerr := store.Replay(sg.Record)
		swapped := rerr == nil && g.Swapped()
		seatOf := func(s kalah.Side) int {
			if swapped {
				return 1 - int(s)
			}
			return int(s)
		}
		switch sg.Record.Termination {
		case kalah.Aborted:
			if rerr == nil {
				blame = g.Seat(g.ToMove())
			}
			note = "aborted: " + sg.Record.Tags[core.ReasonTag]
			if blame >= 0 && t.Format == FormatSwiss {
				result = []string{store.PairNorth, store.PairSouth}[blame]
				note = fmt.Sprintf("%s did not play (%s): a loss", ids[blame].Display(), sg.Record.Tags[core.ReasonTag])
			}
		default:
			switch sg.Record.Result {
			case kalah.SouthWins:
				result = []string{store.PairSouth, store.PairNorth}[seatOf(kalah.South)]
			case kalah.NorthWins:
				result = []string{store.PairSouth, store.PairNorth}[seatOf(kalah.North)]
			case kalah.Draw:
				result = store.PairDraw
			}
			note = sg.Record.Tags[core.ReasonTag]
		}
	}
	counted := result != store.PairNone
	if counted && t.Format == FormatArena && (t.Status == store.TourFinished || !time.Now().Before(arenaEnd(t))) {
		counted, note = false, "ended after the arena did: not counted"
	}
	done, err := d.p.st.EndPeoplePairing(ctx, pr.ID, result, counted, note)
	if err != nil || !done {
		return err
	}
	if blame >= 0 && t.Status != store.TourFinished {
		if err := d.p.st.WithdrawFromPeopleTournament(ctx, d.id, ids[blame]); err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
	}
	return nil
}
