package tournaments

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"kalah/internal/store"
	"kalah/player"
	"kalah/server/core"
)

// Startable refuses a player spec the server would not start for a
// tournament: an unknown player, a program (unless the admin asks and the
// server allows programs: allowExec), or one over the server's limits.
func Startable(spec string, admin, allowExec bool, limits player.Limits) error {
	info, _, err := player.Lookup(spec)
	if err != nil {
		return fmt.Errorf("%w: %w", core.ErrBadRequest, err)
	}
	if info.Raw && !(admin && allowExec) {
		return fmt.Errorf("%w: player %s runs a program on the server: not in tournaments started over HTTP", core.ErrBadRequest, info.Name)
	}
	if err := player.CheckLimits(spec, limits); err != nil {
		return fmt.Errorf("%w: %w", core.ErrBadRequest, err)
	}
	return nil
}

// MayEnter reports whether org may enter bot name in a tournament or an
// arranged game: the admin may enter any bot, a signed-in person their
// own (as st keeps them), and a bot logged in that waits for arranged
// games (it sent wait, and waiting lists it) has accepted to be entered
// by anyone. Nobody else may name a bot, which would make it lose every
// game it is not there for.
func MayEnter(ctx context.Context, st *store.Store, waiting func() []string, org Organizer, name string) error {
	if org.Admin {
		return nil
	}
	if org.Account != "" {
		owned, err := st.BotsOf(ctx, org.Account)
		if err != nil {
			return err
		}
		if slices.ContainsFunc(owned, func(b string) bool { return strings.EqualFold(b, name) }) {
			return nil
		}
	}
	if slices.ContainsFunc(waiting(), func(b string) bool { return strings.EqualFold(b, name) }) {
		return nil
	}
	return fmt.Errorf("%w: bot %s is not yours and does not take tournament games now: its owner may enter it, or the bot accepts them itself by logging in and sending wait (kalah bot --wait)", core.ErrForbidden, name)
}
