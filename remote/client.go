package remote

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"kalah"
	"kalah/player"
	"kalah/protocol/line"
)

// Client puts a player online on a kalah server: it connects, logs in,
// joins the queue (or challenges a named opponent) and plays the games it
// is given with Player.
type Client struct {
	Addr   string // "host:port" (TCP) or a ws:// URL
	Name   string
	Token  string
	Player player.Player
	// Rules is the rules word to queue for (line.RulesToken), or "" to
	// take any game.
	Rules string
	// Challenge, if set, names the opponent to challenge instead of
	// queueing.
	Challenge string
	// Wait, instead of queueing, waits for the games the server arranges:
	// a tournament run by the server with this bot as "bot:NAME". The
	// server sends each game when it comes; the client plays game after
	// game (Games of them, or until ctx ends).
	Wait bool
	// Accept, instead of queueing, stays online and accepts every
	// challenge, from bots and from people on the web page, one game at a
	// time.
	Accept bool
	// Games is how many games to play; zero means until ctx ends.
	Games int
	// OnMsg, if set, sees every message from the server (to draw a board).
	OnMsg func(m line.Msg)
	// OnEnd, if set, is called after each game; st.Side is the side the
	// client played last (they differ from the start after a pie swap).
	OnEnd func(st line.Start, e line.End)
	Log   *slog.Logger
}

// ErrRefused is a server's refusal: a bad token, a full server.
var ErrRefused = errors.New("server refused")

// ErrNameRefused is a login refused for its name: one the server keeps
// for its own use, one that belongs to someone else (a wrong token), one
// that is no name. A refusal of this kind is also ErrRefused; another name
// (or the name's token) would be let in.
var ErrNameRefused = errors.New("name refused")

// loginRefusal is the server's answer to a login other than ok.
type loginRefusal struct {
	name bool   // the name, or its token, was the trouble
	msg  string // the server's words
}

func (r loginRefusal) Error() string { return ErrRefused.Error() + ": " + r.msg }

func (r loginRefusal) Is(target error) bool {
	return target == ErrRefused || r.name && target == ErrNameRefused
}

// ErrUnreachable is a server that does not answer at its address: nothing
// listens there, or the network does not reach it.
var ErrUnreachable = errors.New("cannot reach the server")

// ErrRateLimited is a server's "too many logins from your address just
// now": worth trying again after a pause.
var ErrRateLimited = errors.New("server limits logins")

// Run plays until Games games are over or ctx ends.
func (c *Client) Run(ctx context.Context) error {
	log := c.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	t, err := line.Dial(ctx, c.Addr)
	if err != nil {
		return fmt.Errorf("%w at %s: %w", ErrUnreachable, c.Addr, err)
	}
	defer t.Close()
	stop := context.AfterFunc(ctx, func() { t.Close() })
	defer stop()
	send := func(m line.Msg) error { return t.WriteLine(m.String(), 30*time.Second) }
	read := func() (line.Msg, error) {
		for {
			s, err := t.ReadLine(0)
			if err != nil {
				if ctx.Err() != nil {
					return line.Msg{}, ctx.Err()
				}
				return line.Msg{}, fmt.Errorf("%w: %w", player.ErrDisconnected, err)
			}
			m, err := line.Parse(s)
			if err != nil {
				continue
			}
			if c.OnMsg != nil {
				c.OnMsg(m)
			}
			if m.Cmd == "ping" {
				if err := send(line.Msg{Cmd: "pong"}); err != nil {
					return line.Msg{}, err
				}
				continue
			}
			return m, nil
		}
	}
	m, err := read()
	if err != nil {
		return err
	}
	if err := line.CheckGreeting(m); err != nil {
		return err
	}
	if err := send(line.Msg{Cmd: "login", Args: []string{c.Name, c.Token}}); err != nil {
		return err
	}
	if m, err = read(); err != nil {
		return err
	}
	if m.Cmd != "ok" {
		if m.Cmd == "error" && m.Arg(0) == line.CodeRate {
			// Too many logins from this address just now: try again later.
			return fmt.Errorf("%w: %s", ErrRateLimited, m.Rest(0))
		}
		if m.Cmd == "error" {
			code := m.Arg(0)
			return loginRefusal{name: code == line.CodeAuth || code == line.CodeSyntax, msg: m.Rest(1)}
		}
		return loginRefusal{msg: m.String()}
	}
	log.Info("logged in", "server", c.Addr, "name", c.Name)
	played := 0
	// A bot that logs back in during a game (after a dropped connection
	// or a server restart) is sent that game's start at once: it plays on
	// rather than joining a queue.
	var first *line.Msg
	if s, err := t.ReadLine(time.Second); err == nil {
		if m, err := line.Parse(s); err == nil {
			if c.OnMsg != nil {
				c.OnMsg(m)
			}
			first = &m
		}
	} else if !errors.Is(err, line.ErrTimeout) {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("%w: %w", player.ErrDisconnected, err)
	}
	ask := func() error {
		if c.Wait {
			log.Info("waiting for tournament games that name this bot", "player", "bot:"+c.Name)
			return send(line.Msg{Cmd: "wait"})
		}
		if c.Accept {
			log.Info("online, accepting challenges", "name", c.Name)
			return nil
		}
		if c.Challenge != "" {
			log.Info("challenging; waiting for an answer", "opponent", c.Challenge)
			return send(line.Msg{Cmd: "challenge", Args: nonEmpty(c.Challenge, c.Rules)})
		}
		rules := c.Rules
		if rules == "" {
			rules = "any"
		}
		log.Info("in the queue, waiting for an opponent", "rules", rules)
		return send(line.Msg{Cmd: "queue", Args: nonEmpty(c.Rules)})
	}
	if first == nil || first.Cmd != "start" {
		if err := ask(); err != nil {
			return err
		}
	} else {
		log.Info("back in a game in progress")
	}
	var st line.Start
	var g *kalah.Game
	for {
		var m line.Msg
		if first != nil {
			m, first = *first, nil
		} else if m, err = read(); err != nil {
			return err
		}
		if m.Cmd == "ping" {
			send(line.Msg{Cmd: "pong"})
			continue
		}
		switch m.Cmd {
		case "start":
			if st, err = line.ParseStart(m); err != nil {
				return fmt.Errorf("%w: %v", player.ErrProtocol, err)
			}
			log.Info("playing", "game", st.Game, "side", st.Side, "opponent", st.Opponent, "rules", st.Rules.String())
		case "go":
			turn, err := line.ParseTurn(m)
			if err != nil {
				return fmt.Errorf("%w: %v", player.ErrProtocol, err)
			}
			st.Side = turn.Position.ToMove()
			if g, err = kalah.NewGameFrom(st.Rules, turn.Position); err != nil {
				return fmt.Errorf("%w: %v", player.ErrProtocol, err)
			}
			mctx, cancel := context.WithCancel(ctx)
			if lim := (player.Clock{PerMove: turn.PerMove, Remaining: turn.Remaining}).Limit(); lim > 0 {
				mctx, cancel = context.WithTimeout(ctx, lim)
			}
			mv, err := c.Player.Move(mctx, g, player.Clock{PerMove: turn.PerMove, Remaining: turn.Remaining})
			cancel()
			if err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				log.Warn("player failed; resigning", "err", err)
				if err := send(line.Msg{Cmd: "resign"}); err != nil {
					return err
				}
				continue
			}
			if err := send(line.MoveMsg(mv)); err != nil {
				return err
			}
		case "end":
			e, err := line.ParseEnd(m)
			if err != nil {
				return fmt.Errorf("%w: %v", player.ErrProtocol, err)
			}
			played++
			log.Info("game over", "id", st.Game, "result", e.Result, "termination", e.Termination, "score", fmt.Sprintf("%d-%d", e.South, e.North))
			if c.OnEnd != nil {
				c.OnEnd(st, e)
			}
			if c.Games > 0 && played >= c.Games {
				send(line.Msg{Cmd: "quit"})
				return nil
			}
			if c.Wait || c.Accept {
				// Waiting lasts until leave: the next game will come.
				continue
			}
			if err := ask(); err != nil {
				return err
			}
		case "error":
			log.Warn("server error", "msg", m.Rest(0))
			switch m.Arg(0) {
			case line.CodeShutdown:
				// The server is going down (a restart, say): connect again.
				return fmt.Errorf("%w: %s", player.ErrDisconnected, m.Rest(0))
			case line.CodeRate:
				return fmt.Errorf("%w: %s", ErrRateLimited, m.Rest(0))
			case line.CodeAuth, line.CodeVersion, line.CodeBusy, line.CodeReplaced, line.CodeRules, line.CodeNotFound:
				return fmt.Errorf("%w: %s", ErrRefused, m.Rest(0))
			}
		case "challenged":
			if c.Accept {
				log.Info("challenged; accepting", "from", m.Arg(1), "rules", m.Arg(2))
				if err := send(line.Msg{Cmd: "accept", Args: []string{m.Arg(0)}}); err != nil {
					return err
				}
			} else if err := send(line.Msg{Cmd: "decline", Args: []string{m.Arg(0)}}); err != nil {
				return err
			}
		case "declined":
			return fmt.Errorf("%w: %s declined the challenge", ErrRefused, c.Challenge)
		}
	}
}

func nonEmpty(s ...string) []string {
	var out []string
	for _, x := range s {
		if x != "" {
			out = append(out, x)
		}
	}
	return out
}
