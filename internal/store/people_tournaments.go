package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"kalah"
	"kalah/internal/identity"
)

// People's tournaments (an arena or a Swiss that people and bots join on
// the server's page) are kept in the tables below (migration 5 -> 6): the
// tournament, who joined it, its pairings (each a server game once it
// starts) and, for a Swiss, its byes. The server runs them; this file
// holds their schema and queries.

const peopleTournamentTables = `
CREATE TABLE IF NOT EXISTS people_tournaments (
	id           INTEGER PRIMARY KEY,
	name         TEXT NOT NULL,
	format       TEXT NOT NULL,
	creator      TEXT NOT NULL,
	rules        TEXT NOT NULL,
	clock_ms     INTEGER NOT NULL,
	increment_ms INTEGER NOT NULL,
	minutes      INTEGER NOT NULL DEFAULT 0,
	rounds       INTEGER NOT NULL DEFAULT 0,
	rated        INTEGER NOT NULL DEFAULT 0,
	starts       INTEGER NOT NULL,
	status       TEXT NOT NULL DEFAULT 'waiting',
	round        INTEGER NOT NULL DEFAULT 0,
	note         TEXT NOT NULL DEFAULT '',
	created      INTEGER NOT NULL,
	finished     INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS people_tournaments_status ON people_tournaments(status);
CREATE TABLE IF NOT EXISTS people_tournament_players (
	tournament INTEGER NOT NULL REFERENCES people_tournaments(id),
	player     TEXT NOT NULL,
	id         TEXT NOT NULL,
	seq        INTEGER NOT NULL,
	joined     INTEGER NOT NULL,
	active     INTEGER NOT NULL DEFAULT 1,
	PRIMARY KEY (tournament, player)
);
CREATE TABLE IF NOT EXISTS people_tournament_pairings (
	id         INTEGER PRIMARY KEY,
	tournament INTEGER NOT NULL REFERENCES people_tournaments(id),
	round      INTEGER NOT NULL,
	south      TEXT NOT NULL,
	north      TEXT NOT NULL,
	game       INTEGER NOT NULL DEFAULT 0,
	result     TEXT NOT NULL DEFAULT '',
	counted    INTEGER NOT NULL DEFAULT 0,
	note       TEXT NOT NULL DEFAULT '',
	paired     INTEGER NOT NULL,
	ended      INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS people_tournament_pairings_by_tournament ON people_tournament_pairings(tournament);
CREATE TABLE IF NOT EXISTS people_tournament_byes (
	tournament INTEGER NOT NULL REFERENCES people_tournaments(id),
	round      INTEGER NOT NULL,
	player     TEXT NOT NULL,
	PRIMARY KEY (tournament, round)
);
`

// migratePeopleTournaments (5 -> 6) makes the tables of people's
// tournaments.
func migratePeopleTournaments(tx *Tx) error {
	_, err := tx.Exec(peopleTournamentTables)
	return err
}

// The statuses of a people's tournament.
const (
	TourWaiting  = "waiting"  // created, not started
	TourRunning  = "running"  // started: games are paired
	TourFinished = "finished" // over: its standings are final
)

// PeopleTournament is an arena or a Swiss of people and bots.
type PeopleTournament struct {
	ID      int64
	Name    string
	Format  string // "arena" or "swiss"
	Creator identity.ID
	Rules   kalah.Rules
	// ClockMS and IncrementMS are every game's Fischer clock.
	ClockMS, IncrementMS int64
	// Minutes is an arena's length; Rounds a Swiss's rounds.
	Minutes, Rounds int
	Rated           bool
	Starts          time.Time
	Status          string
	// Round is the Swiss round being played (0 before the first).
	Round int
	// Note says why a tournament ended as it did, when that needs words
	// (too few players).
	Note     string
	Created  time.Time
	Finished time.Time // zero until it is over
}

// PeopleEntrant is one who joined a people's tournament.
type PeopleEntrant struct {
	ID identity.ID
	// Seq orders the entrants by when they first joined.
	Seq    int
	Joined time.Time
	// Active is false once they withdrew (until they join again).
	Active bool
}

// Results of a pairing (PeoplePairing.Result).
const (
	PairSouth = "south" // the seat that started South won
	PairNorth = "north"
	PairDraw  = "draw"
	PairNone  = "none" // no result: aborted, or voided
)

// PeoplePairing is one game of a people's tournament.
type PeoplePairing struct {
	ID           int64
	Round        int // a Swiss's round; 0 in an arena
	South, North identity.ID
	// Game is the server game's id, 0 until it starts.
	Game int64
	// Result is "" until the game ends, then PairSouth, PairNorth,
	// PairDraw or PairNone; Counted says whether it counts in the
	// standings (an arena counts the games that end before it does).
	Result  string
	Counted bool
	Note    string
	Paired  time.Time
	Ended   time.Time
}

// CreatePeopleTournament stores a new people's tournament and returns its
// id.
func (s *Store) CreatePeopleTournament(ctx context.Context, t PeopleTournament) (int64, error) {
	rules, err := json.Marshal(t.Rules.Canonical())
	if err != nil {
		return 0, err
	}
	var id int64
	err = s.write(ctx, func(tx *Tx) error {
		res, err := tx.Exec(`INSERT INTO people_tournaments(name, format, creator, rules, clock_ms, increment_ms, minutes, rounds, rated, starts, status, created)
			VALUES(?,?,?,?,?,?,?,?,?,?,?,?)`, t.Name, t.Format, t.Creator.String(), string(rules), t.ClockMS, t.IncrementMS, t.Minutes, t.Rounds,
			boolInt(t.Rated), t.Starts.UnixMilli(), TourWaiting, time.Now().UnixMilli())
		if err != nil {
			return err
		}
		id, err = res.LastInsertId()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("store: create tournament: %w", err)
	}
	return id, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

const peopleTournamentCols = `id, name, format, creator, rules, clock_ms, increment_ms, minutes, rounds, rated, starts, status, round, note, created, finished`

func scanPeopleTournament(sc scanner) (PeopleTournament, error) {
	var t PeopleTournament
	var creator, rules string
	var rated int
	var starts, created, finished int64
	if err := sc.Scan(&t.ID, &t.Name, &t.Format, &creator, &rules, &t.ClockMS, &t.IncrementMS, &t.Minutes, &t.Rounds, &rated,
		&starts, &t.Status, &t.Round, &t.Note, &created, &finished); err != nil {
		return t, err
	}
	if err := json.Unmarshal([]byte(rules), &t.Rules); err != nil {
		return t, fmt.Errorf("store: tournament %d rules: %w", t.ID, err)
	}
	t.Creator, _ = identity.Parse(creator)
	t.Rated = rated != 0
	t.Starts, t.Created = time.UnixMilli(starts), time.UnixMilli(created)
	if finished != 0 {
		t.Finished = time.UnixMilli(finished)
	}
	return t, nil
}

// PeopleTournament returns people's tournament id.
func (s *Store) PeopleTournament(ctx context.Context, id int64) (PeopleTournament, error) {
	t, err := scanPeopleTournament(s.queryRow(ctx, `SELECT `+peopleTournamentCols+` FROM people_tournaments WHERE id=?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return t, fmt.Errorf("store: tournament %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return t, fmt.Errorf("store: tournament %d: %w", id, err)
	}
	return t, nil
}

// PeopleTournaments returns people's tournaments, newest first (only
// those not finished, if unfinished), at most limit (0: 100).
func (s *Store) PeopleTournaments(ctx context.Context, unfinished bool, limit int) ([]PeopleTournament, error) {
	if limit <= 0 {
		limit = 100
	}
	q := `SELECT ` + peopleTournamentCols + ` FROM people_tournaments`
	if unfinished {
		q += ` WHERE status != '` + TourFinished + `'`
	}
	rows, err := s.query(ctx, q+fmt.Sprintf(` ORDER BY id DESC LIMIT %d`, limit))
	if err != nil {
		return nil, fmt.Errorf("store: tournaments: %w", err)
	}
	defer rows.Close()
	var out []PeopleTournament
	for rows.Next() {
		t, err := scanPeopleTournament(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// SetPeopleTournamentState records where tournament id stands: its
// status, its Swiss round and, for a finished one, why in words (note may
// be empty).
func (s *Store) SetPeopleTournamentState(ctx context.Context, id int64, status string, round int, note string) error {
	var finished int64
	if status == TourFinished {
		finished = time.Now().UnixMilli()
	}
	err := s.write(ctx, func(tx *Tx) error {
		res, err := tx.Exec(`UPDATE people_tournaments SET status=?, round=?, note=?, finished=? WHERE id=?`, status, round, note, finished, id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return ErrNotFound
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store: tournament %d: %w", id, err)
	}
	return nil
}

// JoinPeopleTournament enters who in tournament id, or makes them active
// again if they had withdrawn. It reports whether they were active
// already. Entrants beyond max are refused (ErrFull).
func (s *Store) JoinPeopleTournament(ctx context.Context, id int64, who identity.ID, max int) (already bool, err error) {
	err = s.write(ctx, func(tx *Tx) error {
		var active int
		err := tx.QueryRow(`SELECT active FROM people_tournament_players WHERE tournament=? AND player=?`, id, who.Key()).Scan(&active)
		switch {
		case err == nil:
			already = active != 0
			_, err = tx.Exec(`UPDATE people_tournament_players SET active=1 WHERE tournament=? AND player=?`, id, who.Key())
			return err
		case !errors.Is(err, sql.ErrNoRows):
			return err
		}
		var n int
		if err := tx.QueryRow(`SELECT count(*) FROM people_tournament_players WHERE tournament=?`, id).Scan(&n); err != nil {
			return err
		}
		if n >= max {
			return fmt.Errorf("%w: %d players have joined, the most a tournament takes", ErrFull, n)
		}
		_, err = tx.Exec(`INSERT INTO people_tournament_players(tournament, player, id, seq, joined) VALUES(?,?,?,?,?)`,
			id, who.Key(), who.String(), n, time.Now().UnixMilli())
		return err
	})
	if err != nil {
		return false, fmt.Errorf("store: join tournament %d: %w", id, err)
	}
	return already, nil
}

// WithdrawFromPeopleTournament makes who inactive in tournament id: they
// are paired no more, and keep what they scored. ErrNotFound if they never
// joined.
func (s *Store) WithdrawFromPeopleTournament(ctx context.Context, id int64, who identity.ID) error {
	err := s.write(ctx, func(tx *Tx) error {
		res, err := tx.Exec(`UPDATE people_tournament_players SET active=0 WHERE tournament=? AND player=?`, id, who.Key())
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return fmt.Errorf("%w: %s has not joined", ErrNotFound, who.Display())
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store: withdraw from tournament %d: %w", id, err)
	}
	return nil
}

// PeopleEntrants returns those who joined tournament id, in the order
// they first joined.
func (s *Store) PeopleEntrants(ctx context.Context, id int64) ([]PeopleEntrant, error) {
	rows, err := s.query(ctx, `SELECT id, seq, joined, active FROM people_tournament_players WHERE tournament=? ORDER BY seq`, id)
	if err != nil {
		return nil, fmt.Errorf("store: tournament %d players: %w", id, err)
	}
	defer rows.Close()
	var out []PeopleEntrant
	for rows.Next() {
		var e PeopleEntrant
		var who string
		var joined int64
		var active int
		if err := rows.Scan(&who, &e.Seq, &joined, &active); err != nil {
			return nil, err
		}
		e.ID, _ = identity.Parse(who)
		e.Joined, e.Active = time.UnixMilli(joined), active != 0
		out = append(out, e)
	}
	return out, rows.Err()
}

// AddPeoplePairing stores a pairing of tournament id (before its game
// starts, so a restart finds it) and returns its id.
func (s *Store) AddPeoplePairing(ctx context.Context, id int64, round int, south, north identity.ID) (int64, error) {
	var pid int64
	err := s.write(ctx, func(tx *Tx) error {
		res, err := tx.Exec(`INSERT INTO people_tournament_pairings(tournament, round, south, north, paired) VALUES(?,?,?,?,?)`,
			id, round, south.String(), north.String(), time.Now().UnixMilli())
		if err != nil {
			return err
		}
		pid, err = res.LastInsertId()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("store: pairing of tournament %d: %w", id, err)
	}
	return pid, nil
}

// SetPeoplePairingGame records the server game of pairing pid.
func (s *Store) SetPeoplePairingGame(ctx context.Context, pid, game int64) error {
	err := s.write(ctx, func(tx *Tx) error {
		_, err := tx.Exec(`UPDATE people_tournament_pairings SET game=? WHERE id=?`, game, pid)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: pairing %d: %w", pid, err)
	}
	return nil
}

// EndPeoplePairing records the end of pairing pid's game, once: a pairing
// ended already is left as it is (and reported false).
func (s *Store) EndPeoplePairing(ctx context.Context, pid int64, result string, counted bool, note string) (bool, error) {
	var done bool
	err := s.write(ctx, func(tx *Tx) error {
		res, err := tx.Exec(`UPDATE people_tournament_pairings SET result=?, counted=?, note=?, ended=? WHERE id=? AND result=''`,
			result, boolInt(counted), note, time.Now().UnixMilli(), pid)
		if err != nil {
			return err
		}
		n, _ := res.RowsAffected()
		done = n == 1
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("store: end pairing %d: %w", pid, err)
	}
	return done, nil
}

// PeoplePairings returns tournament id's pairings in the order they ended
// (those still playing last, in the order they were paired).
func (s *Store) PeoplePairings(ctx context.Context, id int64) ([]PeoplePairing, error) {
	rows, err := s.query(ctx, `SELECT id, round, south, north, game, result, counted, note, paired, ended
		FROM people_tournament_pairings WHERE tournament=? ORDER BY ended = 0, ended, id`, id)
	if err != nil {
		return nil, fmt.Errorf("store: tournament %d pairings: %w", id, err)
	}
	defer rows.Close()
	var out []PeoplePairing
	for rows.Next() {
		var p PeoplePairing
		var south, north string
		var counted int
		var paired, ended int64
		if err := rows.Scan(&p.ID, &p.Round, &south, &north, &p.Game, &p.Result, &counted, &p.Note, &paired, &ended); err != nil {
			return nil, err
		}
		p.South, _ = identity.Parse(south)
		p.North, _ = identity.Parse(north)
		p.Counted, p.Paired = counted != 0, time.UnixMilli(paired)
		if ended != 0 {
			p.Ended = time.UnixMilli(ended)
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// PeopleByes returns tournament id's byes: who sat out each round.
func (s *Store) PeopleByes(ctx context.Context, id int64) (map[int]identity.ID, error) {
	rows, err := s.query(ctx, `SELECT round, player FROM people_tournament_byes WHERE tournament=?`, id)
	if err != nil {
		return nil, fmt.Errorf("store: tournament %d byes: %w", id, err)
	}
	defer rows.Close()
	out := map[int]identity.ID{}
	for rows.Next() {
		var round int
		var who string
		if err := rows.Scan(&round, &who); err != nil {
			return nil, err
		}
		out[round], _ = identity.Parse(who)
	}
	return out, rows.Err()
}

// AddPeopleRound stores Swiss round of tournament id in one write: its
// pairings (South first), its bye (zero: none) and the round's number, so
// a restart finds either the whole round or none of it.
func (s *Store) AddPeopleRound(ctx context.Context, id int64, round int, games [][2]identity.ID, bye identity.ID) error {
	now := time.Now().UnixMilli()
	err := s.write(ctx, func(tx *Tx) error {
		for _, g := range games {
			if _, err := tx.Exec(`INSERT INTO people_tournament_pairings(tournament, round, south, north, paired) VALUES(?,?,?,?,?)`,
				id, round, g[0].String(), g[1].String(), now); err != nil {
				return err
			}
		}
		if !bye.IsZero() {
			if _, err := tx.Exec(`INSERT INTO people_tournament_byes(tournament, round, player) VALUES(?,?,?)`, id, round, bye.String()); err != nil {
				return err
			}
		}
		res, err := tx.Exec(`UPDATE people_tournaments SET round=? WHERE id=? AND round=?`, round, id, round-1)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return fmt.Errorf("%w: round %d of tournament %d follows no round %d", ErrNotFound, round, id, round-1)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store: round %d of tournament %d: %w", round, id, err)
	}
	return nil
}
