package tui

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"kalah"
	"kalah/internal/datadir"
)

// The files the game keeps under the data directory.
const (
	// UnfinishedFile holds the game left unfinished when the person quit;
	// "kalah play --resume" continues it.
	UnfinishedFile = "play/unfinished.json"
	// GamesDir receives the games saved with the w key.
	GamesDir = "play/games"
)

// ErrNoUnfinished is returned by LoadUnfinished when no game waits.
var ErrNoUnfinished = errors.New("no unfinished game")

// ErrSave is wrapped by the errors of SaveGame and SaveUnfinished: the
// game could not be written.
var ErrSave = errors.New("the game could not be saved")

// SaveCause is what a save error says after "the game could not be saved".
func SaveCause(err error) string {
	return strings.TrimPrefix(err.Error(), ErrSave.Error()+": ")
}

// Saved is a game left unfinished, with what is needed to sit down at it
// again: the opponent, the person's seat, the computer's time.
type Saved struct {
	Opponent string        `json:"opponent"`
	Helper   string        `json:"hint_player,omitempty"`
	You      kalah.Side    `json:"you"`
	Time     time.Duration `json:"time_ns"`
	Seed     uint64        `json:"seed"`
	SavedAt  time.Time     `json:"saved_at"`
	Game     *kalah.Game   `json:"game"` // as a kalah.Record
}

// SaveUnfinished writes the game in play to dir's UnfinishedFile, in
// place of any game there, and returns the file's path.
func (s *Session) SaveUnfinished(dir string) (string, error) {
	sv := Saved{Opponent: s.cfg.Opponent, Helper: s.cfg.Helper, You: s.cfg.You, Time: s.cfg.Time,
		Seed: s.cfg.Seed, SavedAt: time.Now().UTC(), Game: s.game}
	if IsHuman(sv.Opponent) {
		sv.Opponent = Human
	}
	b, err := json.MarshalIndent(sv, "", "  ")
	if err != nil {
		return "", err
	}
	path, err := writeFile(filepath.Join(dir, UnfinishedFile), append(b, '\n'))
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrSave, err)
	}
	return path, nil
}

// LoadUnfinished reads the game dir's UnfinishedFile holds, and the
// configuration to play it: base with the saved opponent, side, time and
// the game's rules. It returns an error wrapping ErrNoUnfinished if there
// is none.
func LoadUnfinished(dir string, base Config) (Config, *kalah.Game, error) {
	path := filepath.Join(dir, UnfinishedFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return Config{}, nil, fmt.Errorf("%w in %s (a game is saved there when you quit one in progress)", ErrNoUnfinished, dir)
	}
	if err != nil {
		return Config{}, nil, err
	}
	var sv Saved
	if err := json.Unmarshal(b, &sv); err != nil {
		return Config{}, nil, fmt.Errorf("%s: %w", path, err)
	}
	if sv.Game == nil {
		return Config{}, nil, fmt.Errorf("%s: no game in it", path)
	}
	if sv.You > kalah.North {
		return Config{}, nil, fmt.Errorf("%s: side %d", path, sv.You)
	}
	cfg := base
	cfg.Rules = sv.Game.Rules()
	cfg.Opponent, cfg.Helper, cfg.You, cfg.Time, cfg.Seed = sv.Opponent, sv.Helper, sv.You, sv.Time, sv.Seed
	return cfg, sv.Game, nil
}

// RemoveUnfinished deletes dir's UnfinishedFile, if any.
func RemoveUnfinished(dir string) error {
	err := os.Remove(filepath.Join(dir, UnfinishedFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}

// SaveGame writes the game in play, finished or not, to a new file under
// dir's GamesDir, as one kalah.Record in JSON (the format of "kalah match
// --record" lines), and returns the file's path.
func (s *Session) SaveGame(dir string, now time.Time) (string, error) {
	g := s.game.Clone()
	if g.Tags == nil {
		g.Tags = map[string]string{}
	}
	g.Tags["Event"] = "kalah play"
	g.Tags["Date"] = now.UTC().Format(time.DateOnly)
	b, err := json.Marshal(g.Record())
	if err != nil {
		return "", err
	}
	base := filepath.Join(dir, GamesDir, "kalah-"+now.UTC().Format("20060102-150405"))
	// A name no file has yet. Stat failing for any other reason than the
	// file's absence (the directory is a file, or unreadable) is the
	// answer: the game cannot be saved there.
	path := base + ".json"
	for i := 2; ; i++ {
		_, err := os.Stat(path)
		if errors.Is(err, os.ErrNotExist) {
			break
		}
		if err != nil {
			return "", fmt.Errorf("%w: %w", ErrSave, err)
		}
		if i > maxSameSecond {
			return "", fmt.Errorf("%w: %d games saved in one second under %s", ErrSave, maxSameSecond, filepath.Dir(path))
		}
		path = fmt.Sprintf("%s-%d.json", base, i)
	}
	if _, err := writeFile(path, append(b, '\n')); err != nil {
		return "", fmt.Errorf("%w: %w", ErrSave, err)
	}
	return path, nil
}

// maxSameSecond bounds the games saved within one second (their names
// differ by a number).
const maxSameSecond = 1000

// writeFile writes b to path whole or not at all (a reader never sees
// half a file), private to its owner, creating the directories on the way.
func writeFile(path string, b []byte) (string, error) {
	if err := datadir.WriteBytes(path, 0o600, b); err != nil {
		return "", err
	}
	return path, nil
}
