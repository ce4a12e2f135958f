package client

import (
	"bytes"
	"context"
	"fmt"
	"net/http"

	"kalah/server/core"
)

// CheckToken asks the server whether it takes r.Token for arranged games,
// before any game depends on it: a tournament that cannot play its bots'
// games is refused before it is made. It sends POST /api/arranged with an
// empty game, which the server checks for the token first (401 without
// it) and then refuses as incomplete (400) without starting anything.
func (r *Remote) CheckToken(ctx context.Context) error {
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, r.url("/api/arranged"), bytes.NewReader([]byte("{}")))
	if err != nil {
		return err
	}
	hr.Header.Set("Content-Type", "application/json")
	if r.Token != "" {
		hr.Header.Set("Authorization", "Bearer "+r.Token)
	}
	resp, err := r.client.Do(hr)
	if err != nil {
		return r.transportErr(ctx, err)
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusBadRequest:
		return nil // past the token, refused for the empty game
	case http.StatusUnauthorized:
		what := "no admin token was given"
		if r.Token != "" {
			what = "it does not take the admin token given"
		}
		return fmt.Errorf("%w: %s plays bots' games only with its admin token, and %s (kalah serve keeps it in admin.token in its data directory: give --server-token or $KALAH_ADMIN_TOKEN)", core.ErrForbidden, r.base, what)
	}
	return r.statusErr("/api/arranged", resp)
}
