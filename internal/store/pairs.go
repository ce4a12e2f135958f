package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"kalah"
	"kalah/internal/identity"
)

// RatedGamesBetween counts the games between a and b created since then
// that count on the ladders: rated and live, or rated when they ended (a
// rated game aborted, adjudicated or ended too early to count is not).
func (s *Store) RatedGamesBetween(ctx context.Context, a, b identity.ID, since time.Time) (int, error) {
	if s.pairs.none(a.Key(), b.Key(), since.UnixMilli()) {
		return 0, nil
	}
	return s.ratedGamesBetween(ctx, a, b, since)
}

// ratedGamesBetween is RatedGamesBetween asked of the database.
func (s *Store) ratedGamesBetween(ctx context.Context, a, b identity.ID, since time.Time) (int, error) {
	var n int
	err := s.queryRow(ctx, `SELECT count(*) FROM games WHERE created >= ?
		AND ((south_id=? AND north_id=?) OR (south_id=? AND north_id=?))
		AND `+ratedSQL+` = 'yes'
		AND (status=? OR EXISTS (SELECT 1 FROM rating_history h WHERE h.game = games.id))`,
		since.UnixMilli(), a.Key(), b.Key(), b.Key(), a.Key(), string(Live)).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("store: rated games between %v and %v: %w", a, b, err)
	}
	return n, nil
}

// RatedPair is the rated series of two identities (A's key sorts first):
// its games, who won them, and the rating points each gained by them.
type RatedPair struct {
	A       identity.ID `json:"a"`
	B       identity.ID `json:"b"`
	Games   int         `json:"games"`
	WinsA   int         `json:"wins_a"`
	WinsB   int         `json:"wins_b"`
	Draws   int         `json:"draws"`
	PointsA float64     `json:"points_a"`
	PointsB float64     `json:"points_b"`
	First   time.Time   `json:"first"`
	Last    time.Time   `json:"last"`
}

// RatedPairs returns the rated series of every two identities that
// finished rated games against each other since then.
func (s *Store) RatedPairs(ctx context.Context, since time.Time) ([]RatedPair, error) {
	rows, err := s.query(ctx, `SELECT g.id, g.seats, g.result, (SELECT count(*) FROM moves m WHERE m.game = g.id AND m.swap = 1),
		g.finished, h.id, h.after - h.before
		FROM games g JOIN rating_history h ON h.game = g.id
		WHERE g.status=? AND g.finished >= ? ORDER BY g.id`, string(Finished), since.UnixMilli())
	if err != nil {
		return nil, fmt.Errorf("store: rated pairs: %w", err)
	}
	defer rows.Close()
	type gameRow struct {
		seats  [2]Seat
		winner int // the seat (0: started South) that won; -1 for a draw
		at     time.Time
		gain   map[string]float64
	}
	games := map[int64]*gameRow{}
	var order []int64
	for rows.Next() {
		var id, finished int64
		var seats, result, who string
		var swaps int
		var gain float64
		if err := rows.Scan(&id, &seats, &result, &swaps, &finished, &who, &gain); err != nil {
			return nil, fmt.Errorf("store: rated pairs: %w", err)
		}
		g := games[id]
		if g == nil {
			g = &gameRow{winner: -1, at: time.UnixMilli(finished), gain: map[string]float64{}}
			// A result names a side; after a swap (the pie rule) the seat
			// that started South plays North.
			switch result {
			case kalah.SouthWins.String():
				g.winner = swaps % 2
			case kalah.NorthWins.String():
				g.winner = 1 - swaps%2
			}
			if err := json.Unmarshal([]byte(seats), &g.seats); err != nil {
				continue
			}
			games[id] = g
			order = append(order, id)
		}
		g.gain[who] = gain
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: rated pairs: %w", err)
	}
	pairs := map[[2]string]*RatedPair{}
	var out []*RatedPair
	for _, id := range order {
		g := games[id]
		a, b, winner := g.seats[0].ID, g.seats[1].ID, g.winner
		if b.Key() < a.Key() {
			a, b = b, a
			if winner >= 0 {
				winner = 1 - winner
			}
		}
		ga, gb := g.gain[a.Key()], g.gain[b.Key()]
		key := [2]string{a.Key(), b.Key()}
		p := pairs[key]
		if p == nil {
			p = &RatedPair{A: a, B: b, First: g.at}
			pairs[key] = p
			out = append(out, p)
		}
		p.Games++
		switch winner {
		case 0:
			p.WinsA++
		case 1:
			p.WinsB++
		default:
			p.Draws++
		}
		p.PointsA += ga
		p.PointsB += gb
		p.Last = g.at
	}
	res := make([]RatedPair, len(out))
	for i, p := range out {
		res[i] = *p
	}
	return res, nil
}
