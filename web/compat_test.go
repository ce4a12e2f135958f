package web

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"strconv"
	"testing"

	"kalah/server"
)

// The tests speak the one API through the page's handler: games are the
// server's (server.Board, server.GameRequest, server.Started).
type (
	State   = server.Board
	NewGame = server.GameRequest
)

// Created is server.Started with its id as the string the paths use.
type Created struct {
	ID     string
	Tokens [2]string
	Invite string
}

func (c *Created) UnmarshalJSON(b []byte) error {
	var s server.Started
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	c.ID, c.Tokens, c.Invite = strconv.FormatInt(s.ID, 10), s.Tokens, s.Invite
	return nil
}

// seatRequest is the body of a seat's request.
type seatRequest struct {
	Token  string `json:"token,omitempty"`
	Move   string `json:"move,omitempty"`
	Invite string `json:"invite,omitempty"`
}

// startGame starts a game on the page's server, as the API would.
func startGame(h *Handler, req NewGame) (Created, error) {
	s, err := h.opts.Server.(*server.Server).StartGame(context.Background(), req)
	if err != nil {
		return Created{}, err
	}
	return Created{ID: strconv.FormatInt(s.ID, 10), Tokens: s.Tokens, Invite: s.Invite}, nil
}

// boardOf reads a game as the page draws it.
func boardOf(h *Handler, id string) (State, error) {
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil {
		return State{}, err
	}
	return h.opts.Server.(*server.Server).BoardOf(context.Background(), n)
}

// startAs signs up an account name on the page's server at base (over
// HTTP, as a page would) and starts req there as that person: the game's
// human seat is the account's.
func startAs(t testing.TB, base, name string, req NewGame) Created {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar}
	post := func(path string, body any, out any) {
		t.Helper()
		b, _ := json.Marshal(body)
		resp, err := client.Post(base+path, "application/json", bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode/100 != 2 {
			msg, _ := io.ReadAll(resp.Body)
			t.Fatalf("POST %s: %d %s", path, resp.StatusCode, msg)
		}
		if out != nil {
			json.NewDecoder(resp.Body).Decode(out)
		}
	}
	post("/api/account/signup", map[string]string{"name": name, "password": "a long password"}, nil)
	var c Created
	post("/api/games", req, &c)
	return c
}
