package kalah

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// Tags written by the game text form itself, in this order; every other tag
// lives in Game.Tags.
var ruleTags = []string{"Rules", "Houses", "Seeds", "First", "EmptyCapture", "End", "EarlyEnd", "Pie", "SowOpponentStore"}
var gameTags = []string{"South", "North", "Swapped", "Position", "Result", "Termination", "Final"}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// String returns the game in the PGN-like text form documented in
// docs/NOTATION.md: tags for the rules, players, start, result and
// termination, then the turns, each a chain of sowings joined by "+".
func (g *Game) String() string {
	var b strings.Builder
	tag := func(k, v string) { fmt.Fprintf(&b, "[%s %s]\n", k, strconv.Quote(v)) }
	r := g.rules
	tag("Rules", r.Canonical().Name)
	tag("Houses", strconv.Itoa(r.Houses))
	tag("Seeds", strconv.Itoa(r.Seeds))
	tag("First", r.First.Letter())
	tag("EmptyCapture", yesNo(r.EmptyCapture))
	tag("End", r.End.String())
	tag("EarlyEnd", yesNo(r.EarlyEnd))
	tag("Pie", yesNo(r.Pie))
	tag("SowOpponentStore", yesNo(r.SowOpponentStore))
	// The players as seated at the end, the sides Result and Final speak
	// of; Swapped says a pie-rule swap seated them so.
	tag("South", g.Player(South))
	tag("North", g.Player(North))
	if g.Swapped() {
		tag("Swapped", "yes")
	}
	if g.start != r.Start() {
		tag("Position", g.start.String())
	}
	tag("Result", g.result.Token())
	tag("Termination", g.term.String())
	s, n := g.Score()
	tag("Final", fmt.Sprintf("%d-%d", s, n))
	for _, k := range slices.Sorted(mapsKeys(g.Tags)) {
		if !validTagKey(k) {
			continue // the game's own tags are written above; see validTagKey
		}
		tag(k, g.Tags[k])
	}
	b.WriteByte('\n')
	b.WriteString(g.MoveText())
	if b.Len() > 0 && !strings.HasSuffix(b.String(), "\n") {
		b.WriteByte(' ')
	}
	b.WriteString(g.result.Token())
	b.WriteByte('\n')
	return b.String()
}

// MoveText returns the moves alone: numbered pairs of turns, each turn a
// chain of sowings joined by "+", a trailing "+" where the mover still has
// an extra turn to play.
func (g *Game) MoveText() string {
	var b strings.Builder
	for i, t := range g.Turns() {
		if i > 0 {
			b.WriteByte(' ')
		}
		if i%2 == 0 {
			fmt.Fprintf(&b, "%d. ", i/2+1)
		}
		for j, p := range t {
			if j > 0 {
				b.WriteByte('+')
			}
			b.WriteString(p.Move.String())
		}
		if l := t[len(t)-1]; l.Effect&Extra != 0 && l.Effect&End == 0 {
			b.WriteByte('+')
		}
	}
	return b.String()
}

// validTagKey reports whether an extra tag can be written: not one the text
// form writes itself, and a single word (no space, quote or bracket), so the
// text reads back. Others (possible in a JSON record's tags) are left out of
// the text.
func validTagKey(k string) bool {
	if k == "" || slices.Contains(ruleTags, k) || slices.Contains(gameTags, k) {
		return false
	}
	return !strings.ContainsFunc(k, func(r rune) bool {
		return unicode.IsSpace(r) || r == '"' || r == '[' || r == ']' || !unicode.IsPrint(r)
	})
}

func mapsKeys(m map[string]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// ParseGame reads the text form written by Game.String and replays it,
// checking every move.
func ParseGame(text string) (*Game, error) {
	tags, body, err := splitTags(text)
	if err != nil {
		return nil, err
	}
	r, err := rulesFromTags(tags)
	if err != nil {
		return nil, err
	}
	start := r.Start()
	if s, ok := tags["Position"]; ok {
		if start, err = ParsePosition(s); err != nil {
			return nil, err
		}
	}
	g, err := NewGameFrom(r, start)
	if err != nil {
		return nil, err
	}
	g.Players = [2]string{tags["South"], tags["North"]}
	swapped := tags["Swapped"] == "yes"
	if swapped {
		g.Players = [2]string{tags["North"], tags["South"]}
	} else if v, ok := tags["Swapped"]; ok && v != "no" {
		return nil, fmt.Errorf("%w: Swapped %q: want yes or no", ErrSyntax, v)
	}
	for k, v := range tags {
		if !slices.Contains(ruleTags, k) && !slices.Contains(gameTags, k) {
			if g.Tags == nil {
				g.Tags = map[string]string{}
			}
			g.Tags[k] = v
		}
	}
	result := ""
	if err := g.playMoveText(body, &result); err != nil {
		return nil, err
	}
	if swapped && !g.Swapped() {
		return nil, fmt.Errorf("%w: the Swapped tag says the players swapped, but the moves have no swap", ErrSyntax)
	}
	if t, ok := tags["Result"]; ok {
		if result != "" && result != t {
			return nil, fmt.Errorf("%w: result tag %q disagrees with the move text's %q", ErrSyntax, t, result)
		}
		result = t
	}
	return g, g.finish(result, tags["Termination"], tags["Final"])
}

// finish checks or applies how a replayed game ended: a normal end must
// match the replay; a forfeit or adjudication is applied.
func (g *Game) finish(result, term, final string) error {
	res := Ongoing
	if result != "" {
		var err error
		if res, err = ParseResult(result); err != nil {
			return err
		}
	}
	t := NotOver
	if term != "" {
		var err error
		if t, err = ParseTermination(term); err != nil {
			return err
		}
	} else if g.Over() {
		t = Normal
	}
	switch {
	case t == NotOver || t == Normal:
		if (t == Normal) != g.Over() || (res != Ongoing && res != g.result) {
			return fmt.Errorf("%w: the record says %s (%s) but the moves give %s (%s)", ErrSyntax, res, t, g.result, g.term)
		}
	case t.IsForfeit():
		w, ok := res.Winner()
		if !ok {
			return fmt.Errorf("%w: a forfeit (%s) needs a winner", ErrSyntax, t)
		}
		if err := g.Forfeit(w.Other(), t); err != nil {
			return fmt.Errorf("%w: forfeit after the game ended", ErrSyntax)
		}
	case t == Adjudicated:
		if err := g.Adjudicate(res); err != nil {
			return fmt.Errorf("%w: %v", ErrSyntax, err)
		}
	case t == Agreement:
		if res != Draw {
			return fmt.Errorf("%w: a draw by agreement is a draw, the record says %s", ErrSyntax, res)
		}
		if err := g.AgreeDraw(); err != nil {
			return fmt.Errorf("%w: %v", ErrSyntax, err)
		}
	case t == Aborted:
		if res != Ongoing && res != NoResult {
			return fmt.Errorf("%w: an aborted game has no result, the record says %s", ErrSyntax, res)
		}
		if err := g.Abort(); err != nil {
			return fmt.Errorf("%w: %v", ErrSyntax, err)
		}
	}
	if final != "" {
		s, n := g.Score()
		if final != fmt.Sprintf("%d-%d", s, n) {
			return fmt.Errorf("%w: final score %s, the moves give %d-%d", ErrSyntax, final, s, n)
		}
	}
	return nil
}

// PlayMoveText plays moves written as in MoveText ("1. 3+6 2 2. 4 ...");
// turn numbers are optional; a result token may end the text.
func (g *Game) PlayMoveText(text string) error {
	var result string
	return g.playMoveText(text, &result)
}

func (g *Game) playMoveText(text string, result *string) error {
	text = stripComments(text)
	for _, tok := range strings.Fields(text) {
		if _, err := ParseResult(tok); err == nil && tok != "draw" && tok != "south" && tok != "north" && tok != "ongoing" {
			*result = tok
			continue
		}
		if *result != "" {
			return fmt.Errorf("%w: %q after the result", ErrSyntax, tok)
		}
		if isTurnNumber(tok) {
			continue
		}
		if i := strings.IndexByte(tok, '.'); i > 0 && isTurnNumber(tok[:i+1]) {
			tok = tok[i+1:] // "1.3+6"
		}
		open := strings.HasSuffix(tok, "+")
		parts := strings.Split(strings.TrimSuffix(tok, "+"), "+")
		for j, s := range parts {
			m, err := ParseMove(s)
			if err != nil {
				return fmt.Errorf("move %d: %w", g.Len()+1, err)
			}
			eff, err := g.Play(m)
			if err != nil {
				return fmt.Errorf("move %d (%s): %w", g.Len()+1, s, err)
			}
			more := j < len(parts)-1 || open
			if eff&End == 0 && m != Swap && (eff&Extra != 0) != more {
				if more {
					return fmt.Errorf("%w: move %d (%s) earned no extra turn, but the chain %q goes on", ErrIllegalMove, g.Len(), s, tok)
				}
				return fmt.Errorf("%w: move %d (%s) earned an extra turn; continue the chain with +", ErrSyntax, g.Len(), s)
			}
		}
	}
	return nil
}

func isTurnNumber(s string) bool {
	if !strings.HasSuffix(s, ".") || len(s) < 2 {
		return false
	}
	for _, c := range strings.TrimRight(s, ".") {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// stripComments drops {comments} and ;line comments.
func stripComments(s string) string {
	var b strings.Builder
	depth := 0
	line := false
	for _, c := range s {
		switch {
		case line:
			if c == '\n' {
				line = false
				b.WriteRune(c)
			}
		case c == '{':
			depth++
		case c == '}' && depth > 0:
			depth--
			b.WriteByte(' ')
		case depth > 0:
		case c == ';':
			line = true
		default:
			b.WriteRune(c)
		}
	}
	return b.String()
}

// splitTags parses the [Key "value"] lines at the top of a game text.
func splitTags(text string) (map[string]string, string, error) {
	tags := map[string]string{}
	rest := text
	for {
		rest = strings.TrimLeftFunc(rest, unicode.IsSpace)
		if !strings.HasPrefix(rest, "[") {
			return tags, rest, nil
		}
		end := strings.IndexByte(rest, '\n')
		line := rest
		if end >= 0 {
			line, rest = rest[:end], rest[end+1:]
		} else {
			rest = ""
		}
		line = strings.TrimSpace(line)
		if !strings.HasSuffix(line, "]") {
			return nil, "", fmt.Errorf("%w: tag line %q must end with ]", ErrSyntax, line)
		}
		inner := strings.TrimSpace(line[1 : len(line)-1])
		sp := strings.IndexFunc(inner, unicode.IsSpace)
		if sp <= 0 {
			return nil, "", fmt.Errorf("%w: tag line %q: want [Key \"value\"]", ErrSyntax, line)
		}
		key := inner[:sp]
		val, err := strconv.Unquote(strings.TrimSpace(inner[sp:]))
		if err != nil {
			return nil, "", fmt.Errorf("%w: tag %s: value must be a quoted string", ErrSyntax, key)
		}
		if _, dup := tags[key]; dup {
			return nil, "", fmt.Errorf("%w: tag %s given twice", ErrSyntax, key)
		}
		tags[key] = val
	}
}

// rulesFromTags builds rules from a preset tag and the switch tags that
// follow it; a switch tag always wins over the preset.
func rulesFromTags(tags map[string]string) (Rules, error) {
	r := Standard()
	r.Name = "" // a custom set unless the Rules tag names a preset
	if name := tags["Rules"]; name != "" {
		var err error
		if r, err = PresetRules(name); err != nil {
			return r, err
		}
	}
	num := func(k string, dst *int) error {
		if v, ok := tags[k]; ok {
			n, err := strconv.Atoi(v)
			if err != nil {
				return fmt.Errorf("%w: tag %s %q is not a number", ErrSyntax, k, v)
			}
			*dst = n
		}
		return nil
	}
	flag := func(k string, dst *bool) error {
		if v, ok := tags[k]; ok {
			switch v {
			case "yes":
				*dst = true
			case "no":
				*dst = false
			default:
				return fmt.Errorf("%w: tag %s %q (want yes or no)", ErrSyntax, k, v)
			}
		}
		return nil
	}
	if err := num("Houses", &r.Houses); err != nil {
		return r, err
	}
	if err := num("Seeds", &r.Seeds); err != nil {
		return r, err
	}
	if v, ok := tags["First"]; ok {
		s, err := ParseSide(v)
		if err != nil {
			return r, err
		}
		r.First = s
	}
	for k, dst := range map[string]*bool{"EmptyCapture": &r.EmptyCapture, "EarlyEnd": &r.EarlyEnd, "Pie": &r.Pie, "SowOpponentStore": &r.SowOpponentStore} {
		if err := flag(k, dst); err != nil {
			return r, err
		}
	}
	if v, ok := tags["End"]; ok {
		e, err := ParseEndRule(v)
		if err != nil {
			return r, err
		}
		r.End = e
	}
	r = r.Canonical()
	return r, r.Validate()
}
