package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"kalah"
	"kalah/player"
)

// Choice is an opponent the game offers.
type Choice struct {
	Spec        string // what --opponent takes
	Description string
}

// Opponents lists every opponent on offer: the difficulty levels with
// their friendly names, easiest first, then a second person, then every
// registered kind of player that can play at a terminal: one whose spec
// needs no argument (a bot:NAME, exec:CMD or mk:CMD player needs a server
// or a program named, which a menu cannot offer).
func Opponents() []Choice {
	var cs []Choice
	listed := map[string]bool{}
	for _, l := range player.Levels() {
		cs = append(cs, Choice{l.Name, l.Spec + ": " + l.Description})
		listed[strings.ToLower(l.Name)] = true
	}
	cs = append(cs, Choice{Human, "another person at this keyboard; as in 1961, the computer moves only when space asks it to"})
	for _, k := range player.List() {
		// A kind a level already names (perfect) is offered once.
		if k.Raw || needsArgument(k) || listed[strings.ToLower(k.Name)] {
			continue
		}
		cs = append(cs, Choice{k.Name, k.Summary})
	}
	return cs
}

// needsArgument reports whether a kind's usage, such as "bot:NAME", has an
// argument that is not optional (optional ones are in brackets).
func needsArgument(k player.Info) bool {
	rest := strings.TrimPrefix(k.Usage, k.Name)
	return rest != "" && !strings.HasPrefix(rest, "[")
}

// menu chooses the opponent, who starts and the person's side.
type menu struct {
	base     Config
	items    []Choice
	cursor   int
	youFirst bool
	you      kalah.Side
	err      string
}

func newMenu(cfg Config) menu {
	m := menu{base: cfg, items: Opponents(), you: cfg.You, youFirst: cfg.Rules.First == cfg.You}
	m.cursor = -1
	for i, c := range m.items {
		if strings.EqualFold(c.Spec, cfg.Opponent) || (IsHuman(cfg.Opponent) && c.Spec == Human) {
			m.cursor = i
		}
	}
	if m.cursor < 0 {
		// A spec with arguments, from the command line: offer it first.
		m.items = append([]Choice{{cfg.Opponent, "as given with --opponent"}}, m.items...)
		m.cursor = 0
	}
	return m
}

func (mn *menu) config() Config {
	cfg := mn.base
	cfg.Opponent = mn.items[mn.cursor].Spec
	cfg.You = mn.you
	cfg.Rules.First = mn.you
	if !mn.youFirst {
		cfg.Rules.First = mn.you.Other()
	}
	return cfg
}

func (m *model) menuKey(k tea.KeyPressMsg) tea.Cmd {
	mn := &m.menu
	mn.err = ""
	switch k.String() {
	case "up", "k":
		mn.cursor = (mn.cursor + len(mn.items) - 1) % len(mn.items)
	case "down", "j":
		mn.cursor = (mn.cursor + 1) % len(mn.items)
	case "left", "right", "tab", "f":
		mn.youFirst = !mn.youFirst
	case "s":
		mn.you = mn.you.Other()
	case "enter", "space":
		cfg := mn.config()
		s, err := NewSession(cfg)
		if err != nil {
			mn.err = err.Error()
			return nil
		}
		if m.s != nil {
			m.s.Close()
		}
		m.s, m.scr = s, screenGame
		m.changed("")
		return m.kick()
	case "esc":
		if m.s != nil {
			m.scr = screenGame
			return m.kick()
		}
	case "q":
		return m.askQuit()
	default:
		mn.err = fmt.Sprintf("%s: not a key here (↑/↓ choose, ←/→ who starts, s side, Enter play, q quit)", k.String())
	}
	return nil
}

// view draws the menu in height rows (zero: as many as it needs); a long
// list of opponents scrolls with the cursor. Below 20 rows it leaves out
// the blank lines and the rules' line, so the keys stay in sight.
func (mn *menu) view(height int) string {
	compact := height > 0 && height < 20
	gap := "\n"
	if compact {
		gap = ""
	}
	var b strings.Builder
	b.WriteString(styleTitle.Render("Kalah") + "  " + styleFaint.Render("choose your game") + "\n" + gap)
	b.WriteString("  Opponent (↑/↓):\n")
	fixed := 13 // the lines besides the list, its "more" marks included
	if compact {
		fixed = 7
	}
	if mn.err != "" {
		fixed += 2
	}
	from, to := 0, len(mn.items)
	if room := height - fixed; height > 0 && room < len(mn.items) {
		room = max(room, 1)
		from = clampInt(mn.cursor-room/2, 0, len(mn.items)-room)
		to = from + room
	}
	if from > 0 {
		b.WriteString(styleFaint.Render("      ↑ more") + "\n")
	}
	for i := from; i < to; i++ {
		c := mn.items[i]
		cur := "   "
		name := c.Spec
		if i == mn.cursor {
			cur = " ▸ "
			name = styleTitle.Render(name)
		}
		pad := max(0, 14-len(c.Spec))
		b.WriteString("  " + cur + name + strings.Repeat(" ", pad) + styleFaint.Render(truncate(c.Description, 60)) + "\n")
	}
	if to < len(mn.items) {
		b.WriteString(styleFaint.Render("      ↓ more") + "\n")
	}
	first := "you"
	if !mn.youFirst {
		first = "your opponent"
	}
	fmt.Fprintf(&b, "%s  Who starts (←/→): %s\n", gap, styleTitle.Render(first))
	fmt.Fprintf(&b, "  Your side (s):    %s (drawn at the bottom)\n", styleTitle.Render(mn.you.String()))
	if !compact {
		r := mn.base.Rules
		fmt.Fprintf(&b, "  Rules:            %s, %d houses, %d seeds (set with kalah play --rules ...)\n\n", rulesName(r), r.Houses, r.Seeds)
	}
	if mn.err != "" {
		b.WriteString("  " + styleBad.Render(mn.err) + "\n" + gap)
	}
	b.WriteString(styleFaint.Render("Enter: play · Esc: back · q: quit") + "\n")
	return b.String()
}

func clampInt(v, lo, hi int) int { return max(lo, min(v, hi)) }

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
