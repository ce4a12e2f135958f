package web

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"kalah"
	"kalah/player"
)

// savedGame is a hub game as kept on disk: enough to show it again and to
// go on playing it after a restart.
type savedGame struct {
	ID      string       `json:"id"`
	Created time.Time    `json:"created"`
	Req     NewGame      `json:"request"`
	Seats   [2]Seat      `json:"seats"`
	Tokens  [2]string    `json:"tokens"`
	Record  kalah.Record `json:"record"`
	Reason  string       `json:"reason,omitempty"`
}

// Persist keeps every game of the hub in dir, one JSON file a game
// rewritten after each move, and loads the games already there: finished
// ones to be replayed, unfinished ones to go on (people keep their seats
// through their tokens). Games of tournaments are not resumed here; their
// tournament plays them again. Call it before the hub starts any game.
func (h *Hub) Persist(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("web games: %w", err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("web games: %w", err)
	}
	var saved []savedGame
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return fmt.Errorf("web games: %w", err)
		}
		var sg savedGame
		if err := json.Unmarshal(b, &sg); err != nil || sg.ID+".json" != e.Name() {
			h.log.Warn("web games: skipping an unreadable file", "file", e.Name(), "err", err)
			continue
		}
		saved = append(saved, sg)
	}
	slices.SortFunc(saved, func(a, b savedGame) int { return a.Created.Compare(b.Created) })
	if len(saved) > h.maxGames {
		saved = saved[len(saved)-h.maxGames:]
	}
	h.mu.Lock()
	h.dir = dir
	h.mu.Unlock()
	for _, sg := range saved {
		if err := h.restore(sg); err != nil {
			h.log.Warn("web games: cannot restore a game", "id", sg.ID, "err", err)
		}
	}
	return nil
}

func (h *Hub) restore(sg savedGame) error {
	g, err := sg.Record.Game()
	if err != nil {
		return err
	}
	s := &session{hub: h, id: sg.ID, created: sg.Created, req: sg.Req, game: g, view: g.Clone(),
		seats: sg.Seats, tokens: sg.Tokens, reason: sg.Reason, changed: make(chan struct{})}
	for _, m := range sg.Record.Moves {
		s.millis = append(s.millis, m.Millis)
	}
	resume := !g.Over() && sg.Req.Tournament == ""
	for seat, st := range sg.Seats {
		if st.Human {
			s.moves[seat] = make(chan kalah.Move, 1)
			s.players[seat] = &browserPlayer{s: s, seat: seat}
			continue
		}
		if !resume {
			continue
		}
		seed := sg.Req.Seed + uint64(seat)
		if sg.Req.PlayerSeeds != [2]uint64{} {
			seed = sg.Req.PlayerSeeds[seat]
		}
		p, err := player.New(st.Spec, player.Options{Rules: g.Rules(), Seed: seed})
		if err != nil {
			return err
		}
		s.players[seat] = p
	}
	h.mu.Lock()
	if _, dup := h.games[s.id]; dup {
		h.mu.Unlock()
		return fmt.Errorf("game %s twice", s.id)
	}
	h.games[s.id] = s
	h.order = append(h.order, s.id)
	h.mu.Unlock()
	if resume {
		s.mu.Lock()
		s.startLocked()
		s.mu.Unlock()
	}
	return nil
}

// saveLocked writes the game to the hub's directory, if it has one. s.mu
// is held. A failure is logged: the game goes on in memory.
func (s *session) saveLocked() {
	dir := s.hub.dir
	if dir == "" {
		return
	}
	rec := s.view.Record()
	for i := range rec.Moves {
		if i < len(s.millis) {
			rec.Moves[i].Millis = s.millis[i]
		}
	}
	b, err := json.Marshal(savedGame{ID: s.id, Created: s.created, Req: s.req, Seats: s.seats, Tokens: s.tokens, Record: rec, Reason: s.reason})
	if err == nil {
		tmp := filepath.Join(dir, s.id+".tmp")
		if err = os.WriteFile(tmp, b, 0o600); err == nil {
			err = os.Rename(tmp, filepath.Join(dir, s.id+".json"))
		}
	}
	if err != nil {
		s.hub.log.Error("web games: cannot save a game", "id", s.id, "err", err)
	}
}
