package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"kalah"
	"kalah/internal/store"
	"kalah/server/core"
)

// ErrUnavailable is returned by Remote when the server cannot be reached,
// stops, or loses a game to a restart: the game may be played again later.
var ErrUnavailable = errors.New("match server unavailable")

// Remote is a match server (kalah serve) reached through its JSON API: it
// plays arranged games with the bots connected there and lists them, as
// the Server itself does, so a tournament run on another machine (kalah
// tournament --server) can give those bots their games.
type Remote struct {
	base   *url.URL
	client *http.Client
	// Poll is the time between looks at a game whose answer was lost (two
	// seconds from Dial, and when not above zero).
	Poll time.Duration
	// Patience bounds how long PlayArranged keeps looking for a server it
	// cannot reach while it follows such a game (two minutes from Dial).
	Patience time.Duration
	// Token is the server's admin token, sent with POST /api/arranged.
	Token string
}

// Dial checks that baseURL ("http://host:8080", or just "host:8080") is a
// match server answering GET /api/bots and returns it. The client has no
// overall timeout, since a game may last hours: ctx ends each call.
func Dial(ctx context.Context, baseURL string) (*Remote, error) {
	raw := strings.TrimSpace(baseURL)
	if !strings.Contains(raw, "://") {
		raw = "http://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("server %q: %w", baseURL, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("server %q: want http://HOST:PORT", baseURL)
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	u.RawQuery, u.Fragment = "", ""
	d := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	tr := &http.Transport{Proxy: http.ProxyFromEnvironment, DialContext: d.DialContext, TLSHandshakeTimeout: 10 * time.Second,
		MaxIdleConnsPerHost: 16, IdleConnTimeout: 90 * time.Second}
	r := &Remote{base: u, client: &http.Client{Transport: tr}, Poll: 2 * time.Second, Patience: 2 * time.Minute}
	if _, err := r.Bots(ctx); err != nil {
		return nil, err
	}
	return r, nil
}

// URL returns the server's base URL.
func (r *Remote) URL() string { return r.base.String() }

func (r *Remote) url(path string) string { return r.base.String() + path }

// Bots returns the names of the bots that take arranged games, sorted.
func (r *Remote) Bots(ctx context.Context) ([]string, error) {
	var bots []string
	if err := r.get(ctx, "/api/bots", &bots); err != nil {
		return nil, err
	}
	return bots, nil
}

// WaitingBots is Bots with a deadline of its own: nil when the server
// does not answer within ten seconds.
func (r *Remote) WaitingBots() []string {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	bots, _ := r.Bots(ctx)
	return bots
}

// get reads a JSON answer.
func (r *Remote) get(ctx context.Context, path string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, r.url(path), nil)
	if err != nil {
		return err
	}
	resp, err := r.client.Do(req)
	if err != nil {
		return r.transportErr(ctx, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return r.statusErr(path, resp)
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 64<<20)).Decode(v); err != nil {
		return fmt.Errorf("%s%s: %w: %w", r.base, path, ErrUnavailable, err)
	}
	return nil
}

func (r *Remote) transportErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return fmt.Errorf("%w: %w", ErrUnavailable, err)
}

// statusErr turns an error answer into the server's sentinel errors.
func (r *Remote) statusErr(path string, resp *http.Response) error {
	var body struct {
		Error string `json:"error"`
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if json.Unmarshal(b, &body) != nil || body.Error == "" {
		body.Error = strings.TrimSpace(string(b))
		if len(body.Error) > 200 {
			body.Error = body.Error[:200]
		}
	}
	msg := fmt.Sprintf("%s%s: %s", r.base, path, body.Error)
	switch resp.StatusCode {
	case http.StatusServiceUnavailable:
		if resp.Header.Get("Retry-After") != "" {
			return fmt.Errorf("%w: %s", core.ErrBusy, msg)
		}
		return fmt.Errorf("%w: %s", ErrUnavailable, msg)
	case http.StatusForbidden:
		return fmt.Errorf("%w: %s", core.ErrForbidden, msg)
	case http.StatusNotFound:
		if path == "/api/bots" || path == "/api/arranged" {
			return fmt.Errorf("%w: %s%s answers 404: not a kalah serve with tournament games (or an older one)", core.ErrNotFound, r.base, path)
		}
		return fmt.Errorf("%w: %s", core.ErrNotFound, msg)
	case http.StatusBadGateway, http.StatusGatewayTimeout:
		return fmt.Errorf("%w: %s", ErrUnavailable, msg)
	}
	return fmt.Errorf("%s (HTTP %d)", msg, resp.StatusCode)
}

// PlayArranged plays a game on the server, as Server.PlayArranged does
// there, and returns it once it is over. Errors are the server's (package
// core's): ErrBusy when it is full (try again), ErrForbidden for programs
// it does not run, ErrUnavailable when it cannot be reached or stops (the game, if it
// started, counts for nothing: play it again). If the connection drops
// after the game started, PlayArranged follows the game through GET
// /api/games/{id} until it ends. Ending ctx leaves the game playing on.
// OnStart, if set, is called with the server's game id.
func (r *Remote) PlayArranged(ctx context.Context, a Arranged) (ArrangedResult, error) {
	body, err := json.Marshal(a.Request())
	if err != nil {
		return ArrangedResult{}, err
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, r.url("/api/arranged"), bytes.NewReader(body))
	if err != nil {
		return ArrangedResult{}, err
	}
	hr.Header.Set("Content-Type", "application/json")
	if r.Token != "" {
		hr.Header.Set("Authorization", "Bearer "+r.Token)
	}
	resp, err := r.client.Do(hr)
	if err != nil {
		return ArrangedResult{}, r.transportErr(ctx, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return ArrangedResult{}, r.statusErr("/api/arranged", resp)
	}
	id, _ := strconv.ParseInt(resp.Header.Get(GameHeader), 10, 64)
	if id > 0 && a.OnStart != nil {
		a.OnStart(id)
	}
	var reply ArrangedReply
	if err := json.NewDecoder(io.LimitReader(resp.Body, 64<<20)).Decode(&reply); err != nil {
		if ctx.Err() != nil {
			return ArrangedResult{ID: id}, ctx.Err()
		}
		if id <= 0 {
			return ArrangedResult{}, fmt.Errorf("%w: reading the game: %w", ErrUnavailable, err)
		}
		// The game plays on there: look at it until it ends.
		return r.follow(ctx, id, a)
	}
	if reply.Error != "" {
		return ArrangedResult{ID: reply.ID}, fmt.Errorf("%w: game %d on %s: %s", ErrUnavailable, reply.ID, r.base, reply.Error)
	}
	if id <= 0 && a.OnStart != nil {
		a.OnStart(reply.ID)
	}
	return ArrangedResult{ID: reply.ID, Record: reply.Record, Reason: reply.Reason}, nil
}

// gameState is what follow reads of GET /api/games/{id}: the server's
// GameView, of which it needs only whether the game is over and how.
type gameState struct {
	Status store.Status `json:"status"`
	Record kalah.Record `json:"record"`
}

// follow waits for game id to end, looking every r.Poll, and returns it.
// A game the server ended by adjudication after the answer was lost was
// most likely cut by a restart: it is reported unavailable, to be played
// again.
func (r *Remote) follow(ctx context.Context, id int64, a Arranged) (ArrangedResult, error) {
	poll := r.Poll
	if poll <= 0 {
		poll = 2 * time.Second
	}
	t := time.NewTicker(poll)
	defer t.Stop()
	var down time.Time
	for {
		select {
		case <-ctx.Done():
			return ArrangedResult{ID: id}, ctx.Err()
		case <-t.C:
		}
		var v gameState
		err := r.get(ctx, "/api/games/"+strconv.FormatInt(id, 10), &v)
		if errors.Is(err, ErrUnavailable) {
			// The server restarts, or the network hiccups.
			if down.IsZero() {
				down = time.Now()
			}
			if time.Since(down) > r.Patience {
				return ArrangedResult{ID: id}, fmt.Errorf("following game %d: %w", id, err)
			}
			continue
		}
		down = time.Time{}
		if err != nil {
			return ArrangedResult{ID: id}, err
		}
		if v.Status != store.Finished {
			continue
		}
		if v.Record.Termination == kalah.Adjudicated {
			return ArrangedResult{ID: id}, fmt.Errorf("%w: game %d on %s was adjudicated after the connection dropped (a restart?): play it again", ErrUnavailable, id, r.base)
		}
		rec := v.Record
		rec.SetPlayers(strings.TrimSpace(a.South), strings.TrimSpace(a.North))
		return ArrangedResult{ID: id, Record: rec}, nil
	}
}
