package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"unicode"

	"kalah"
)

func init() {
	register(&command{name: "convert", summary: "convert games and positions between notations (text, JSON, OpenSpiel, KGP, Manchester)", run: runConvert})
}

// Input and output formats of kalah convert; docs/NOTATION.md describes each.
var (
	convertFrom = []string{"auto", "game", "json", "openspiel", "position", "kgp", "manchester"}
	convertTo   = []string{"game", "json", "moves", "position", "kgp", "manchester"}
)

func runConvert(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "convert", "[--from FORMAT] [--to FORMAT] [--side S|N] [rules flags] [FILE]",
		"Reads a game or a position (from FILE, or standard input) and writes it in\n"+
			"another notation (docs/NOTATION.md). Games are read as game text, JSON\n"+
			"records (one a line) or an OpenSpiel action list, and replayed with every\n"+
			"move checked; positions as our position text, a KGP board literal or a\n"+
			"Manchester state (which needs --side, the side to move). Game text without\n"+
			"tags, and OpenSpiel actions, are played under the rules flags.\n\n"+
			"Input formats: "+strings.Join(convertFrom, ", ")+".\n"+
			"Output formats: "+strings.Join(convertTo, ", ")+" (kgp shows the side to move as\n"+
			"South, as KGP does; position, kgp and manchester of a game give its\n"+
			"current position).")
	rf := addRulesFlags(fs)
	from := fs.String("from", "auto", "input format")
	to := fs.String("to", "", "output format (default: game for a game, position for a position)")
	sideFlag := fs.String("side", "", "the side to move, for a Manchester state: S or N")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if !slices.Contains(convertFrom, *from) {
		return usagef("--from %q: want one of %s", *from, strings.Join(convertFrom, ", "))
	}
	if *to != "" && !slices.Contains(convertTo, *to) {
		return usagef("--to %q: want one of %s", *to, strings.Join(convertTo, ", "))
	}
	if fs.NArg() > 1 {
		return usagef("at most one input file")
	}
	r, err := rf.rules()
	if err != nil {
		return err
	}
	in := e.stdin
	if name := fs.Arg(0); name != "" && name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		defer f.Close()
		in = f
	}
	data, err := io.ReadAll(io.LimitReader(in, 64<<20))
	if err != nil {
		return err
	}
	text := strings.TrimSpace(string(data))
	if text == "" {
		return errors.New("no input")
	}
	format := *from
	if format == "auto" {
		format = detectFormat(text, *sideFlag != "")
	}

	var games []*kalah.Game
	var pos kalah.Position
	switch format {
	case "game":
		g, err := readGameText(r, text)
		if err != nil {
			return err
		}
		games = append(games, g)
	case "json":
		for i, line := range strings.Split(text, "\n") {
			if strings.TrimSpace(line) == "" {
				continue
			}
			g := new(kalah.Game)
			if err := json.Unmarshal([]byte(line), g); err != nil {
				return fmt.Errorf("record %d: %w", i+1, err)
			}
			games = append(games, g)
		}
	case "openspiel":
		acts, err := kalah.ParseOpenSpielActions(text)
		if err != nil {
			return err
		}
		g, err := kalah.ReplayOpenSpiel(r, acts)
		if err != nil {
			return err
		}
		games = append(games, g)
	case "position":
		if pos, err = kalah.ParsePosition(text); err != nil {
			return err
		}
	case "kgp":
		if pos, err = kalah.ParseKGPBoard(text); err != nil {
			return err
		}
	case "manchester":
		if *sideFlag == "" {
			return usagef("a Manchester state does not say who moves: give --side S or N")
		}
		side, err := kalah.ParseSide(*sideFlag)
		if err != nil {
			return usagef("--side: %w", err)
		}
		if pos, err = kalah.ParseManchesterState(text, side); err != nil {
			return err
		}
	}

	out := bufio.NewWriter(e.stdout)
	defer out.Flush()
	if games == nil {
		switch *to {
		case "", "position":
			fmt.Fprintln(out, pos)
		case "kgp", "manchester":
			fmt.Fprintln(out, positionAs(*to, pos))
		default:
			return usagef("--to %s needs a game, and the input is a position", *to)
		}
		return nil
	}
	for i, g := range games {
		switch *to {
		case "", "game":
			if i > 0 {
				fmt.Fprintln(out)
			}
			fmt.Fprint(out, g.String())
		case "json":
			b, err := json.Marshal(g)
			if err != nil {
				return err
			}
			fmt.Fprintf(out, "%s\n", b)
		case "moves":
			fmt.Fprintln(out, g.MoveText())
		case "position", "kgp", "manchester":
			fmt.Fprintln(out, positionAs(*to, g.Position()))
		}
	}
	return nil
}

// readGameText reads a game text; one without tags is played under r.
func readGameText(r kalah.Rules, text string) (*kalah.Game, error) {
	if strings.HasPrefix(text, "[") {
		return kalah.ParseGame(text)
	}
	g, err := kalah.NewGame(r)
	if err != nil {
		return nil, err
	}
	if err := g.PlayMoveText(text); err != nil {
		return nil, err
	}
	return g, nil
}

// positionAs writes a position in one of the position formats.
func positionAs(format string, p kalah.Position) string {
	switch format {
	case "kgp":
		if p.ToMove() == kalah.North {
			p = p.Mirror() // KGP shows the side to move as South
		}
		return kalah.KGPBoard(p)
	case "manchester":
		return kalah.ManchesterState(p)
	}
	return p.String()
}

// detectFormat guesses the input format: a JSON object, a tag line, a KGP
// literal, a position (it has a "/"), move text (turn numbers or chains),
// or a list of numbers: a Manchester state if a side was given, else
// OpenSpiel actions.
func detectFormat(text string, haveSide bool) string {
	switch {
	case strings.HasPrefix(text, "{"):
		return "json"
	case strings.HasPrefix(text, "<"):
		return "kgp"
	case strings.HasPrefix(text, "["):
		rest := strings.TrimLeftFunc(text[1:], unicode.IsSpace)
		if rest != "" && unicode.IsLetter(rune(rest[0])) {
			return "game"
		}
		return "openspiel"
	case strings.Contains(text, "/") && !strings.ContainsAny(text, ".+"):
		return "position"
	case strings.ContainsAny(text, ".+") || strings.Contains(strings.ToLower(text), "swap"):
		return "game"
	case haveSide:
		return "manchester"
	}
	return "openspiel"
}
