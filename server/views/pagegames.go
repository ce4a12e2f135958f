package views

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"kalah"
	"kalah/internal/store"
	"kalah/server/core"
)

// savedGame is a game of the page's own runtime of older releases, as they
// kept it in web-games/, one JSON file a game.
type savedGame struct {
	ID      string    `json:"id"`
	Created time.Time `json:"created"`
	Req     struct {
		Casual        bool   `json:"casual"`
		PerMoveMillis int    `json:"per_move_ms,omitempty"`
		DelayMillis   int    `json:"delay_ms,omitempty"`
		Tournament    string `json:"tournament,omitempty"`
	} `json:"request"`
	Seats [2]struct {
		Name   string `json:"name"`
		Human  bool   `json:"human"`
		Joined bool   `json:"joined"`
		Spec   string `json:"spec,omitempty"`
	} `json:"seats"`
	Tokens [2]string    `json:"tokens"`
	Record kalah.Record `json:"record"`
	Reason string       `json:"reason,omitempty"`
}

// ImportSavedGames moves the games an older release's page kept in dir
// (web-games/ in the data directory) into the server's store: finished
// ones to be listed and replayed, unfinished ones to go on there, people
// keeping their seats with the tokens they had. Each keeps its old id
// (ImportTag), by which the page still finds it. Unfinished
// tournament games are left out: their tournament plays them again. Once
// every file is in, dir is renamed dir.imported; a file that cannot be
// read is reported and stays. It returns how many games it imported; a
// game imported before (a crash between two files) is not imported again.
func (vs *Views) ImportSavedGames(ctx context.Context, dir string, log *slog.Logger) (int, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("web games: %w", err)
	}
	var saved []savedGame
	bad := 0
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return 0, fmt.Errorf("web games: %w", err)
		}
		var sg savedGame
		if err := json.Unmarshal(b, &sg); err != nil || sg.ID+".json" != e.Name() {
			log.Warn("web games: an unreadable file is left where it is", "file", e.Name(), "err", err)
			bad++
			continue
		}
		saved = append(saved, sg)
	}
	slices.SortFunc(saved, func(a, b savedGame) int { return a.Created.Compare(b.Created) })
	n := 0
	for _, sg := range saved {
		if _, err := vs.h.ImportedGame(ctx, sg.ID); err == nil {
			continue // imported before
		}
		if sg.Record.Result == kalah.Ongoing && sg.Req.Tournament != "" {
			continue
		}
		im := Imported{Record: sg.Record, Casual: sg.Req.Casual,
			PerMove: time.Duration(sg.Req.PerMoveMillis) * time.Millisecond, Delay: time.Duration(sg.Req.DelayMillis) * time.Millisecond,
			Tags: map[string]string{core.ImportTag: sg.ID}}
		if sg.Reason != "" {
			im.Tags[core.ReasonTag] = sg.Reason
		}
		if sg.Req.Tournament != "" {
			im.Tags[core.TournamentTag] = sg.Req.Tournament
		}
		for i, seat := range sg.Seats {
			if seat.Human {
				im.Seats[i] = store.Seat{Name: seat.Name, Kind: "human"}
				if seat.Joined {
					im.Tokens[i] = sg.Tokens[i]
				}
				continue
			}
			im.Seats[i] = store.Seat{Name: seat.Name, Kind: "spec", Spec: seat.Spec}
		}
		if _, err := vs.h.ImportGame(ctx, im); err != nil {
			log.Warn("web games: a game could not be imported", "id", sg.ID, "err", err)
			bad++
			continue
		}
		n++
	}
	if bad == 0 {
		if err := os.Rename(dir, dir+".imported"); err != nil {
			return n, fmt.Errorf("web games imported, but %w", err)
		}
	}
	log.Info("web games imported into the server's database", "games", n, "left", bad)
	return n, nil
}

// Imported is a game played elsewhere (the web page's own games of older
// releases) to be kept in the server's store.
type Imported struct {
	// Seats are the players; a "human" seat's token, in Tokens, moves it
	// again here (an empty token: a seat nobody took).
	Seats  [2]store.Seat
	Tokens [2]string
	// Record holds the rules, start, moves (with their times) and, when
	// the game is over, its result.
	Record kalah.Record
	// Settings of a game to go on: its clock and casualness.
	PerMove, Delay time.Duration
	Casual         bool
	// Tags are stored with the game, ImportTag among them.
	Tags map[string]string
}
