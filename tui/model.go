package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"kalah"
)

// TUI runs the game full-screen.
type TUI struct {
	// Config is the game first offered; the menu changes the opponent, who
	// starts and the side.
	Config Config
	// Menu starts in the menu instead of straight in the game.
	Menu bool
	// Delay pauses before each of the computer's own moves so people can
	// follow a chain of them.
	Delay time.Duration
	// In and Out are the terminal; nil means the process's own.
	In  io.Reader
	Out io.Writer
}

// Run plays until the person quits. It returns ctx's error if ctx ends
// first.
func (t *TUI) Run(ctx context.Context) error {
	m, err := newModel(ctx, t.Config, t.Delay, t.Menu)
	if err != nil {
		return err
	}
	opts := []tea.ProgramOption{tea.WithContext(ctx)}
	if t.In != nil {
		opts = append(opts, tea.WithInput(t.In))
	}
	if t.Out != nil {
		opts = append(opts, tea.WithOutput(t.Out))
	}
	final, err := tea.NewProgram(m, opts...).Run()
	if fm, ok := final.(*model); ok {
		if fm.cancel != nil {
			fm.cancel()
		}
		if fm.s != nil {
			fm.s.Close()
		}
	}
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

type screen int

const (
	screenGame screen = iota
	screenMenu
)

// replyMsg carries a computer's reply back to the UI goroutine.
type replyMsg struct{ rep Reply }

// model is the Bubble Tea model: a session, the menu, and what the screen
// says besides the board.
type model struct {
	ctx    context.Context
	delay  time.Duration
	scr    screen
	menu   menu
	s      *Session
	width  int
	height int
	log    []string // recent moves, newest last
	status string   // the last notice, or why a key was rejected
	bad    bool     // status is an error
	struck string   // the rejected key, crossed out on screen
	hint   string
	help   bool
	digits string // a house number being typed, on boards of ten houses or more
	last   *Event

	thinking *Request // the request out, at most one at a time
	cancel   context.CancelFunc
	stopped  bool // the request out was cancelled: drop its reply
	quitting bool
}

func newModel(ctx context.Context, cfg Config, delay time.Duration, showMenu bool) (*model, error) {
	m := &model{ctx: ctx, delay: delay, menu: newMenu(cfg)}
	if showMenu {
		m.scr = screenMenu
		return m, nil
	}
	s, err := NewSession(cfg)
	if err != nil {
		return nil, err
	}
	m.s = s
	return m, nil
}

// Init starts the computer if it moves first.
func (m *model) Init() tea.Cmd { return m.kick() }

// Update handles keys, replies and resizes.
func (m *model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
	case replyMsg:
		return m, m.reply(msg.rep)
	case tea.KeyPressMsg:
		if msg.String() == "ctrl+c" {
			return m, m.quit()
		}
		if m.scr == screenMenu {
			return m, m.menuKey(msg)
		}
		return m, m.gameKey(msg)
	}
	return m, nil
}

func (m *model) quit() tea.Cmd {
	m.quitting = true
	if m.cancel != nil {
		m.cancel()
	}
	return tea.Quit
}

// kick starts the computer's own move when it is due and nothing else is
// out; a reply to a cancelled request must come back first, so a player is
// never asked twice at once.
func (m *model) kick() tea.Cmd {
	if m.s == nil || m.thinking != nil || m.scr != screenGame || !m.s.NeedsComputer() {
		return nil
	}
	req, err := m.s.Ask()
	if err != nil {
		return nil
	}
	req.Delay = m.delay
	return m.start(req)
}

func (m *model) start(req *Request) tea.Cmd {
	ctx, cancel := context.WithCancel(m.ctx)
	m.thinking, m.cancel, m.stopped = req, cancel, false
	return func() tea.Msg { return replyMsg{req.Run(ctx)} }
}

// stop cancels the request out, if any; its reply will be stale.
func (m *model) stop() {
	if m.thinking != nil {
		m.cancel()
		m.stopped = true
	}
}

func (m *model) reply(rep Reply) tea.Cmd {
	if rep.Req != m.thinking {
		return m.kick()
	}
	m.thinking = nil
	m.cancel()
	if m.stopped {
		return m.kick()
	}
	ev, err := m.s.Finish(rep)
	switch {
	case errors.Is(err, ErrStale), errors.Is(err, context.Canceled):
	case err != nil:
		m.setStatus(err.Error(), true)
	case rep.Req.Hint || rep.Req.Analysis:
		m.hint = ev.Text
	default:
		m.moved(ev)
	}
	return m.kick()
}

func (m *model) moved(ev Event) {
	m.log = append(m.log, ev.Text)
	if len(m.log) > 4 {
		m.log = m.log[len(m.log)-4:]
	}
	m.last = &ev
	m.hint = ""
	m.setStatus("", false)
}

func (m *model) setStatus(s string, bad bool) { m.status, m.bad, m.struck = s, bad, "" }

// reject shows a refused key crossed out, and why, as the 1961 program
// crossed out a key it rejected.
func (m *model) reject(text string, err error) {
	m.setStatus("rejected: "+strings.TrimPrefix(err.Error(), ErrRejected.Error()+": "), true)
	m.struck = text
}

// statusLine draws the status: a rejected key struck through, errors in red.
func (m *model) statusLine() string {
	switch {
	case m.struck != "":
		return styleBad.Strikethrough(true).Render(m.struck) + " " + styleBad.Render(m.status)
	case m.bad:
		return styleBad.Render(m.status)
	}
	return m.status
}

// changed clears what belonged to the position before an undo or restart.
func (m *model) changed(note string) {
	m.stop()
	m.log, m.last, m.hint, m.digits = nil, nil, "", ""
	m.setStatus(note, false)
}

func (m *model) gameKey(k tea.KeyPressMsg) tea.Cmd {
	key := k.String()
	if len(key) == 1 {
		key = strings.ToLower(key) // caps lock on
	}
	n := m.s.Game().Rules().Houses
	if len(key) == 1 && key[0] >= '0' && key[0] <= '9' {
		return m.digit(key, n)
	}
	if m.digits != "" && (key == "enter" || key == "space") {
		h, _ := strconv.Atoi(m.digits)
		m.digits = ""
		return m.play(kalah.Move(h), strconv.Itoa(h))
	}
	m.digits = ""
	switch key {
	case "space", "m":
		sym := "␣"
		if key == "m" {
			sym = key
		}
		if m.thinking != nil {
			m.reject(sym, fmt.Errorf("wait: %s is thinking", m.thinking.Who()))
			return nil
		}
		req, err := m.s.Ask()
		if err != nil {
			m.reject(sym, err)
			return nil
		}
		m.setStatus("", false)
		return m.start(req)
	case "enter", "r":
		m.s.Restart()
		m.changed("New game (u brings the old one back).")
		return m.kick()
	case "u":
		note, err := m.s.Undo()
		if err != nil {
			m.reject("u", err)
			return nil
		}
		m.changed(note)
		return m.kick()
	case "h", "a":
		if m.thinking != nil {
			m.reject(key, fmt.Errorf("wait: %s is thinking", m.thinking.Who()))
			return nil
		}
		ask, what := m.s.AskHint, "a hint"
		if key == "a" {
			ask, what = m.s.AskAnalysis, "every move"
		}
		req, err := ask()
		if err != nil {
			m.reject(key, err)
			return nil
		}
		m.hint = fmt.Sprintf("%s is thinking about %s…", req.Who(), what)
		return m.start(req)
	case "s":
		return m.play(kalah.Swap, "s")
	case "o", "esc":
		m.stop()
		m.menu = newMenu(m.s.Config())
		m.scr = screenMenu
		return nil
	case "?":
		m.help = !m.help
		return nil
	case "q":
		return m.quit()
	}
	text := k.Text
	if text == "" {
		text = key
	}
	m.reject(text, fmt.Errorf("not a key: houses are 1-%d; ? shows the keys", n))
	return nil
}

// digit handles a digit key: a move at once, unless the board has ten
// houses or more and the digit may begin a longer number.
func (m *model) digit(d string, n int) tea.Cmd {
	num := m.digits + d
	v, _ := strconv.Atoi(num)
	if v*10 <= n && v > 0 {
		m.digits = num
		m.setStatus(fmt.Sprintf("house %s… (another digit, or Enter to play %s)", num, num), false)
		return nil
	}
	m.digits = ""
	return m.play(kalah.Move(v), num)
}

func (m *model) play(mv kalah.Move, text string) tea.Cmd {
	if m.thinking != nil && !m.thinking.Hint && !m.thinking.Analysis {
		m.reject(text, fmt.Errorf("wait: %s is thinking", m.thinking.Who()))
		return nil
	}
	ev, err := m.s.Play(mv)
	if err != nil {
		m.reject(text, err)
		return nil
	}
	m.stop() // a hint still out no longer matters
	m.moved(ev)
	return m.kick()
}

var (
	styleTitle  = lipgloss.NewStyle().Bold(true)
	styleBad    = lipgloss.NewStyle().Foreground(lipgloss.Color("9"))
	styleFaint  = lipgloss.NewStyle().Faint(true)
	styleCount  = lipgloss.NewStyle().Bold(true)
	styleLast   = lipgloss.NewStyle().Bold(true).Reverse(true)
	styleStore  = lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("11"))
	styleMarker = lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("10"))
	styleName   = lipgloss.NewStyle().Foreground(lipgloss.Color("14"))
	styleBox    = lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).Padding(0, 1)
)

func boardStyle(p Part, s string) string {
	switch p {
	case PartCount:
		return styleCount.Render(s)
	case PartLast:
		return styleLast.Render(s)
	case PartLabel:
		return styleFaint.Render(s)
	case PartStore:
		return styleStore.Render(s)
	case PartMarker:
		return styleMarker.Render(s)
	case PartName:
		return styleName.Render(s)
	}
	return s
}

// View draws the menu or the game.
func (m *model) View() tea.View {
	var v tea.View
	v.AltScreen = true
	v.WindowTitle = "kalah"
	if m.quitting {
		return v
	}
	if m.scr == screenMenu {
		v.SetContent(m.menu.view(m.height))
		return v
	}
	v.SetContent(m.gameView())
	return v
}

func (m *model) gameView() string {
	s := m.s
	g := s.Game()
	r := g.Rules()
	var b strings.Builder
	title := "Kalah"
	if s.TwoHumans() {
		title += " · two players"
	} else {
		title += fmt.Sprintf(" · you (%s) against %s", s.Bottom(), s.OpponentTitle())
	}
	fmt.Fprintf(&b, "%s  %s\n\n", styleTitle.Render(title), styleFaint.Render(fmt.Sprintf("%s rules, %d×%d", rulesName(r), r.Houses, r.Seeds)))
	bv := s.BoardView()
	bv.Style = boardStyle
	if m.last != nil && m.last.Played.Move > 0 {
		bv.Last, bv.LastSide = m.last.Played.Move, m.last.Played.Side
	}
	b.WriteString(bv.String())
	if mt := g.MoveText(); mt != "" {
		w := m.width
		if w <= 0 {
			w = 100
		}
		if r := []rune(mt); len(r) > w-10 {
			mt = "…" + string(r[len(r)-(w-11):])
		}
		b.WriteString("\n" + styleFaint.Render("  moves: "+mt) + "\n")
	} else {
		b.WriteString("\n")
	}
	for _, l := range m.log {
		b.WriteString("  " + m.fit(l) + "\n")
	}
	if len(m.log) == 0 {
		b.WriteString("\n")
	}
	b.WriteString("\n")
	switch {
	case g.Over():
		b.WriteString(styleBox.Render(wrap(s.Summary(), 70)+"\n"+styleFaint.Render("Enter: play again · u: take back · o: other opponent · q: quit")) + "\n")
	case m.thinking != nil && !m.thinking.Hint && !m.thinking.Analysis:
		fmt.Fprintf(&b, "  %s is thinking…\n", s.Label(g.ToMove()))
	default:
		swap := ""
		if p := g.Position(); p.CanSwap() {
			swap = ", s to swap sides"
		}
		fmt.Fprintf(&b, "  %s to move: type a house 1-%d%s, or space for the computer to move.\n", styleTitle.Render(s.Label(g.ToMove())), r.Houses, swap)
	}
	if m.hint != "" {
		b.WriteString("  " + m.fit(m.hint) + "\n")
	}
	if m.status != "" {
		b.WriteString("  " + m.statusLine() + "\n")
	}
	b.WriteString("\n")
	if m.help {
		b.WriteString(KeysHelp + "\n  o  choose another opponent, who starts and your side\n")
	} else {
		w := m.width
		if w <= 0 {
			w = 100
		}
		b.WriteString(styleFaint.Render(wrap(fmt.Sprintf("1-%d sow · space computer · u undo · h hint · a analyse · Enter new game · o opponent · ? help · q quit", r.Houses), w-1)) + "\n")
	}
	return b.String()
}

// fit cuts a line of plain text to the terminal's width.
func (m *model) fit(s string) string {
	if m.width <= 0 {
		return s
	}
	return truncate(s, max(20, m.width-3))
}

// wrap breaks s into lines of at most w columns at spaces.
func wrap(s string, w int) string {
	var out, line strings.Builder
	for _, word := range strings.Fields(s) {
		if line.Len() > 0 && line.Len()+1+len(word) > w {
			out.WriteString(line.String() + "\n")
			line.Reset()
		}
		if line.Len() > 0 {
			line.WriteByte(' ')
		}
		line.WriteString(word)
	}
	out.WriteString(line.String())
	return out.String()
}
