package web

import (
	"context"
	"encoding/json"
	"strconv"

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
}

func (c *Created) UnmarshalJSON(b []byte) error {
	var s server.Started
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	c.ID, c.Tokens = strconv.FormatInt(s.ID, 10), s.Tokens
	return nil
}

// seatRequest is the body of a seat's request.
type seatRequest struct {
	Token string `json:"token"`
	Move  string `json:"move,omitempty"`
}

// startGame starts a game on the page's server, as the API would.
func startGame(h *Handler, req NewGame) (Created, error) {
	s, err := h.opts.Server.StartGame(context.Background(), req)
	if err != nil {
		return Created{}, err
	}
	return Created{ID: strconv.FormatInt(s.ID, 10), Tokens: s.Tokens}, nil
}

// boardOf reads a game as the page draws it.
func boardOf(h *Handler, id string) (State, error) {
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil {
		return State{}, err
	}
	return h.opts.Server.BoardOf(context.Background(), n)
}
