package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

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
	// Resume continues this game (from LoadUnfinished) instead of a new one.
	Resume *kalah.Game

	// Saved is set by Run to the file a game left unfinished was saved in,
	// for the caller to tell the person once the screen is theirs again.
	Saved string
	// SaveErr is set by Run if a save failed (w, or quitting a game in
	// progress), for the caller to say so and fail.
	SaveErr error
}

// Run plays until the person quits. It returns ctx's error if ctx ends
// first.
func (t *TUI) Run(ctx context.Context) error {
	m, err := t.model(ctx)
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
	_, err = tea.NewProgram(m, opts...).Run()
	t.finish(m)
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// model builds the program's model: the menu, a new game, or the game
// to resume.
func (t *TUI) model(ctx context.Context) (*model, error) {
	m, err := newModel(ctx, t.Config, t.Delay, t.Menu && t.Resume == nil)
	if err != nil {
		return nil, err
	}
	if t.Resume != nil {
		if err := m.s.Resume(t.Resume); err != nil {
			m.s.Close()
			return nil, err
		}
		m.resumed = true
		n := t.Resume.Len()
		m.setStatus(fmt.Sprintf("Resumed the unfinished game after %d %s.", n, plural(n, "move", "moves")), false)
	}
	return m, nil
}

// finish stops what the model left running once the program has ended.
func (t *TUI) finish(m *model) {
	if m.cancel != nil {
		m.cancel()
	}
	if m.s != nil {
		m.s.Close()
	}
	t.Saved, t.SaveErr = m.saved, m.saveErr
}

type screen int

const (
	screenGame screen = iota
	screenMenu
)

// pager is a scrolling page over the game: the help or the move list.
type pager struct {
	title string
	lines []string
	off   int      // the first line shown
	keys  []string // the keys that close it besides Esc and q
}

// replyMsg carries a computer's reply back to the UI goroutine.
type replyMsg struct{ rep Reply }

// backgroundMsg is Config.Background's latest note.
type backgroundMsg string

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
	digits string // a house number being typed, on boards of ten houses or more
	bgCh   <-chan string
	bg     string // Config.Background's latest note
	last   *Event

	thinking *Request // the request out, at most one at a time
	cancel   context.CancelFunc
	stopped  bool // the request out was cancelled: drop its reply
	quitting bool

	details  bool   // show the search's details (depth, units, line)
	lastInfo string // the details of the last computer move or hint
	page     *pager // the help or the move list, over the game
	confirm  bool   // asking whether to quit a game in progress
	resumed  bool   // the game came from the unfinished-game file
	saved    string // where a game left unfinished was saved
	// saveErr is the last save that failed, if any.
	saveErr error
	// saveFailed: saving the unfinished game failed once; the next quit
	// goes without saving.
	saveFailed bool
}

// Smallest terminal the game is drawn in; below it a notice says so.
const (
	minWidth  = 36
	minHeight = 10
)

func newModel(ctx context.Context, cfg Config, delay time.Duration, showMenu bool) (*model, error) {
	m := &model{ctx: ctx, delay: delay, menu: newMenu(cfg), bgCh: cfg.Background}
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

// Init starts the computer if it moves first, and the wait for the
// first background note.
func (m *model) Init() tea.Cmd { return tea.Batch(m.kick(), m.background()) }

// background waits for Config.Background's next note.
func (m *model) background() tea.Cmd {
	ch := m.bgCh
	if ch == nil {
		return nil
	}
	return func() tea.Msg {
		s, ok := <-ch
		if !ok {
			return nil
		}
		return backgroundMsg(s)
	}
}

// Update handles keys, replies and resizes.
func (m *model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
	case replyMsg:
		return m, m.reply(msg.rep)
	case backgroundMsg:
		m.bg = string(msg)
		return m, m.background()
	case tea.KeyPressMsg:
		key := msg.String()
		switch {
		case key == "ctrl+c":
			// At once, without asking: a game in progress is saved.
			return m, m.quit(true)
		case m.tooSmall():
			if key == "q" {
				return m, m.quit(true)
			}
			return m, nil
		case m.confirm:
			return m, m.confirmKey(key)
		case m.page != nil:
			m.pageKey(key)
			return m, nil
		case m.scr == screenMenu:
			return m, m.menuKey(msg)
		}
		return m, m.gameKey(msg)
	}
	return m, nil
}

// inProgress reports whether quitting would leave a game unfinished: one
// with moves made and no end.
func (m *model) inProgress() bool {
	return m.s != nil && m.s.Game().Len() > 0 && !m.s.Game().Over()
}

// askQuit quits at once when no game is in progress, else asks first.
func (m *model) askQuit() tea.Cmd {
	if !m.inProgress() {
		return m.quit(false)
	}
	m.stop()
	m.confirm, m.scr = true, screenGame
	return nil
}

func (m *model) confirmKey(key string) tea.Cmd {
	switch key {
	case "y", "Y", "q", "enter":
		return m.quit(true)
	case "n", "N", "esc":
		m.confirm = false
		m.setStatus("Quit cancelled.", false)
		return m.kick()
	}
	return nil
}

// quit ends the program. With save, a game in progress is written to the
// data directory for "kalah play --resume"; a resumed game that has ended
// is removed from it.
func (m *model) quit(save bool) tea.Cmd {
	dir := ""
	if m.s != nil {
		dir = m.s.Config().DataDir
	}
	switch {
	case dir == "":
	case save && m.inProgress() && !m.saveFailed:
		path, err := m.s.SaveUnfinished(dir)
		if err != nil {
			// Stay, so the game is not lost without a word.
			m.confirm, m.saveFailed, m.saveErr = false, true, err
			m.setStatus("The game could not be saved: "+SaveCause(err)+" (q or Ctrl+C again quits without saving).", true)
			return nil
		}
		m.saved = path
	case m.resumed && m.s.Game().Over():
		if err := RemoveUnfinished(dir); err != nil {
			slog.Warn("the finished game's unfinished file stays", "err", err)
		}
	}
	m.quitting = true
	if m.cancel != nil {
		m.cancel()
	}
	return tea.Quit
}

// pageKey scrolls the page shown, or closes it.
func (m *model) pageKey(key string) {
	pg := m.page
	room := m.pageRoom()
	last := max(0, len(pg.lines)-room)
	switch key {
	case "up", "k":
		pg.off--
	case "down", "j":
		pg.off++
	case "pgup", "b":
		pg.off -= room
	case "pgdown", "space", "f":
		pg.off += room
	case "home", "g":
		pg.off = 0
	case "end", "G":
		pg.off = last
	case "esc", "q":
		m.page = nil
		return
	default:
		for _, k := range pg.keys {
			if key == k {
				m.page = nil
				return
			}
		}
	}
	pg.off = clampInt(pg.off, 0, last)
}

// pageRoom is how many of a page's lines fit under its title and above
// its footer.
func (m *model) pageRoom() int {
	if m.height <= 0 {
		return 1 << 20
	}
	return max(1, m.height-3)
}

func (m *model) openPage(title string, lines []string, atEnd bool, keys ...string) {
	m.page = &pager{title: title, lines: lines, keys: keys}
	if atEnd {
		m.page.off = max(0, len(lines)-m.pageRoom())
	}
}

func (m *model) tooSmall() bool {
	return m.width > 0 && m.height > 0 && (m.width < m.minWidth() || m.height < minHeight)
}

// minWidth is the narrowest terminal the game is drawn in: the board
// without the players' names, or minWidth, whichever is wider.
func (m *model) minWidth() int {
	if m.s == nil {
		return minWidth
	}
	bv := m.s.BoardView()
	bv.Names = [2]string{}
	w := 0
	for _, l := range strings.Split(bv.String(), "\n") {
		w = max(w, ansi.StringWidth(l))
	}
	return max(minWidth, w+1)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// kick starts the computer's own move when it is due and nothing else is
// out; a reply to a cancelled request must come back first, so a player is
// never asked twice at once.
func (m *model) kick() tea.Cmd {
	if m.s == nil || m.thinking != nil || m.scr != screenGame || m.confirm || !m.s.NeedsComputer() {
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
		m.lastInfo = ev.Details
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
	if ev.Computer {
		m.lastInfo = ev.Details
	}
	m.setStatus("", false)
}

func (m *model) setStatus(s string, bad bool) { m.status, m.bad, m.struck = s, bad, "" }

// reject shows a refused key crossed out, and why, as the 1961 program
// crossed out a key it rejected.
func (m *model) reject(text string, err error) {
	m.setStatus("rejected: "+strings.TrimPrefix(err.Error(), ErrRejected.Error()+": "), true)
	m.struck = text
}

// changed clears what belonged to the position before an undo or restart.
func (m *model) changed(note string) {
	m.stop()
	m.log, m.last, m.hint, m.digits, m.lastInfo = nil, nil, "", "", ""
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
		m.openPage("Help", m.helpLines(), false, "?")
		return nil
	case "l":
		m.openPage(fmt.Sprintf("Moves (%d)", m.s.Game().Len()), m.s.MoveList(), true, "l")
		return nil
	case "d":
		m.details = !m.details
		switch {
		case m.details && m.lastInfo == "":
			m.setStatus("Search details will show after the next computer move or hint (d hides them).", false)
		case m.details:
			m.setStatus("", false)
		default:
			m.setStatus("Search details hidden.", false)
		}
		return nil
	case "w":
		dir := m.s.Config().DataDir
		if dir == "" {
			m.reject("w", errors.New("no data directory to save in (kalah play --data DIR)"))
			return nil
		}
		path, err := m.s.SaveGame(dir, time.Now())
		if err != nil {
			m.saveErr = err
			m.setStatus("The game could not be saved: "+SaveCause(err), true)
			return nil
		}
		m.setStatus("Saved the game to "+path, false)
		return nil
	case "q":
		return m.askQuit()
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

// View draws the menu, the game, a page over it, or the notice that the
// terminal is too small.
func (m *model) View() tea.View {
	var v tea.View
	v.AltScreen = true
	v.WindowTitle = "kalah"
	switch {
	case m.quitting:
	case m.tooSmall():
		v.SetContent(m.smallView())
	case m.page != nil:
		v.SetContent(m.pageView())
	case m.scr == screenMenu:
		lines := strings.Split(m.menu.view(m.height), "\n")
		for i, l := range lines {
			lines[i] = m.cut(l)
		}
		v.SetContent(strings.Join(lines, "\n"))
	default:
		v.SetContent(m.gameView())
	}
	return v
}

// smallView says the terminal is too small, in as little room as it has.
func (m *model) smallView() string {
	text := fmt.Sprintf("Terminal too small: %d×%d. Kalah needs at least %d×%d; make the window larger. q quits", m.width, m.height, m.minWidth(), minHeight)
	if m.inProgress() {
		text += " (the game is saved)"
	}
	text += "."
	lines := strings.Split(wrap(text, max(1, m.width)), "\n")
	if len(lines) > m.height {
		lines = lines[:m.height]
	}
	for i, l := range lines {
		lines[i] = truncate(l, max(1, m.width))
	}
	return strings.Join(lines, "\n")
}

// pageView draws the page: its title, the lines in view, and how to move.
func (m *model) pageView() string {
	pg := m.page
	room := m.pageRoom()
	to := min(len(pg.lines), pg.off+room)
	var b strings.Builder
	b.WriteString(m.cut(styleTitle.Render(pg.title)) + "\n")
	for _, l := range pg.lines[pg.off:to] {
		b.WriteString(m.cut(l) + "\n")
	}
	for i := to - pg.off; i < room && m.height > 0; i++ {
		b.WriteString("\n")
	}
	where := "all shown"
	if len(pg.lines) > room {
		where = fmt.Sprintf("lines %d-%d of %d", pg.off+1, to, len(pg.lines))
	}
	closeKeys := "Esc"
	for _, k := range pg.keys {
		closeKeys += " or " + k
	}
	foot := fmt.Sprintf("%s · ↑/↓ PgUp/PgDn Home/End scroll · %s closes", where, closeKeys)
	b.WriteString(styleFaint.Render(m.cut(foot)))
	return b.String()
}

// cut truncates a line, styled or not, to the terminal's width.
func (m *model) cut(s string) string {
	if m.width <= 0 {
		return s
	}
	return ansi.Truncate(s, m.width, "…")
}

// helpLines is the help page: the keys, the board, and how to play under
// the rules in play (kalah.HowToPlay), as written when they fit the
// terminal, else rewrapped to its width.
func (m *model) helpLines() []string {
	w := m.width
	if w <= 0 {
		w = 100
	}
	var lines []string
	rules := strings.TrimRight(kalah.HowToPlay(m.s.Game().Rules()), "\n")
	for _, block := range []string{KeysHelp, BoardHelp, rules} {
		lines = append(lines, helpBlock(block, w)...)
		lines = append(lines, "")
	}
	return lines[:len(lines)-1]
}

// helpBlock lays out one block of help text in w columns. A block that
// fits is kept as written. Otherwise its paragraphs are rewrapped and its
// table rows ("  key   what it does", continued on lines indented further)
// become "  key: what it does", wrapped under a hanging indent.
func helpBlock(block string, w int) []string {
	src := strings.Split(block, "\n")
	fits := true
	for _, l := range src {
		fits = fits && len([]rune(l)) < w
	}
	if fits {
		return src
	}
	type entry struct {
		key, text string
		indent    int
	}
	var es []entry
	for _, l := range src {
		t := strings.TrimSpace(l)
		ind := len(l) - len(strings.TrimLeft(l, " "))
		key, rest, table := strings.Cut(t, "   ")
		var prev *entry
		if len(es) > 0 {
			prev = &es[len(es)-1]
		}
		switch {
		case t == "" || prev != nil && prev.text == "":
			es = append(es, entry{text: t, indent: ind}) // paragraphs stay apart
		case table && ind == 2:
			es = append(es, entry{key: key, text: strings.TrimSpace(rest), indent: ind})
		case prev != nil && prev.key != "" && ind > 2,
			prev != nil && prev.key == "" && ind == prev.indent && !strings.HasSuffix(prev.text, ":"):
			// The row or paragraph above goes on.
			prev.text += " " + t
		default:
			es = append(es, entry{text: t, indent: ind})
		}
	}
	var out []string
	for _, e := range es {
		lead, hang := strings.Repeat(" ", e.indent), strings.Repeat(" ", e.indent+2)
		t := e.text
		if e.key != "" {
			t = e.key + ": " + t
		}
		for i, l := range strings.Split(wrap(t, max(10, w-1-len(hang))), "\n") {
			if i == 0 {
				out = append(out, lead+l)
			} else {
				out = append(out, hang+l)
			}
		}
	}
	return out
}

func faint(s string) string { return styleFaint.Render(s) }
func bold(s string) string  { return styleTitle.Render(s) }

// section is a block of the game screen; when the screen is short, the
// sections of lowest priority go first.
type section struct {
	lines []string
	prio  int
}

// The priorities of the game screen's sections.
const (
	prioSpace   = iota // blank lines
	prioOldLog         // earlier moves
	prioMoves          // the move list's line
	prioTitle          // the title
	prioLastLog        // the last move
	prioKeys           // the key bar
	prioDetails        // the search's details, when asked for
	prioNote           // hints and status
	prioPrompt         // whose turn it is, or the game's end
	prioBoard          // the board
)

func (m *model) gameView() string {
	s := m.s
	g := s.Game()
	r := g.Rules()
	w := m.width
	if w <= 0 {
		w = 100
	}
	var secs []section
	add := func(prio int, lines ...string) { secs = append(secs, section{lines, prio}) }
	text := func(prio int, styled func(string) string, t string) {
		lines := strings.Split(wrap(t, max(10, w-3)), "\n")
		for i, l := range lines {
			if styled != nil {
				l = styled(l)
			}
			lines[i] = "  " + l
		}
		add(prio, lines...)
	}

	title := "Kalah"
	if s.TwoHumans() {
		title += " · two players"
	} else {
		title += fmt.Sprintf(" · you (%s) against %s", s.Bottom(), s.OpponentTitle())
	}
	add(prioTitle, m.cut(styleTitle.Render(title)+"  "+styleFaint.Render(fmt.Sprintf("%s rules, %d×%d", rulesName(r), r.Houses, r.Seeds))))
	add(prioSpace, "")

	bv := s.BoardView()
	bv.Style = boardStyle
	if m.last != nil && m.last.Played.Move > 0 {
		bv.Last, bv.LastSide = m.last.Played.Move, m.last.Played.Side
	}
	board := strings.Split(strings.TrimSuffix(bv.String(), "\n"), "\n")
	for _, l := range board {
		if ansi.StringWidth(l) > w {
			// Too narrow for the players' names: the stores and the prompt
			// still say whose side is whose.
			bv.Names = [2]string{}
			board = strings.Split(strings.TrimSuffix(bv.String(), "\n"), "\n")
			break
		}
	}
	add(prioBoard, board...)

	if mt := g.MoveText(); mt != "" {
		line := "  moves (l lists them): "
		if rs := []rune(mt); len(rs) > w-len(line)-1 {
			mt = "…" + string(rs[len(rs)-max(1, w-len(line)-2):])
		}
		add(prioSpace, "")
		add(prioMoves, styleFaint.Render(line+mt))
	} else {
		add(prioSpace, "")
	}
	for i, l := range m.log {
		if i == len(m.log)-1 {
			text(prioLastLog, nil, l)
		} else {
			add(prioOldLog, "  "+m.fit(l))
		}
	}
	if m.details && m.lastInfo != "" {
		text(prioDetails, faint, m.lastInfo)
	}
	add(prioSpace, "")
	switch {
	case m.confirm:
		text(prioPrompt, bold, "Quit? The game is saved, and kalah play --resume continues it. y: quit · n or Esc: keep playing")
	case g.Over():
		foot := "Enter: play again · u: take back · o: other opponent · q: quit"
		if m.height <= 0 || m.height >= 20 {
			add(prioPrompt, strings.Split(styleBox.Render(wrap(s.Summary(), min(70, w-6))+"\n"+styleFaint.Render(wrap(foot, min(70, w-6)))), "\n")...)
		} else {
			text(prioPrompt, nil, s.Summary())
			text(prioPrompt, faint, "Enter: new game · u: undo · q: quit")
		}
	case m.thinking != nil && !m.thinking.Hint && !m.thinking.Analysis:
		text(prioPrompt, nil, s.Label(g.ToMove())+" is thinking…")
	default:
		swap := ""
		if p := g.Position(); p.CanSwap() {
			swap = ", s to swap sides"
		}
		prompt := fmt.Sprintf("%s to move: type a house 1-%d%s, or space for the computer to move.", s.Label(g.ToMove()), r.Houses, swap)
		if w < 60 {
			prompt = fmt.Sprintf("%s to move: house 1-%d%s", s.Label(g.ToMove()), r.Houses, swap)
		}
		text(prioPrompt, nil, prompt)
	}
	if m.hint != "" {
		text(prioNote, nil, m.hint)
	}
	if m.bg != "" {
		text(prioNote, func(s string) string { return styleFaint.Render(s) }, m.bg)
	}
	if m.status != "" {
		// A rejected key is crossed out before the reason.
		lead := ""
		if m.struck != "" {
			lead = styleBad.Strikethrough(true).Render(m.struck) + " "
		}
		lines := strings.Split(wrap(m.status, max(10, w-3-ansi.StringWidth(lead))), "\n")
		for i, l := range lines {
			if m.bad {
				l = styleBad.Render(l)
			}
			if i == 0 {
				l = lead + l
			}
			lines[i] = "  " + l
		}
		add(prioNote, lines...)
	}
	add(prioSpace, "")
	keys := fmt.Sprintf("1-%d sow · space computer · u undo · h hint · a analyse · d details · l moves · w save · Enter new game · o/Esc menu · ? help · q quit · + marks the side to move", r.Houses)
	if w < 80 {
		keys = "? keys · q quit · + = side to move"
	}
	text(prioKeys, faint, keys)
	return fitSections(secs, m.height)
}

// fitSections joins the sections, dropping those of lowest priority (the
// earliest first among equals) until they fit in height rows (zero: no
// limit).
func fitSections(secs []section, height int) string {
	total := func() int {
		n := 0
		for _, s := range secs {
			n += len(s.lines)
		}
		return n
	}
	for height > 0 && total() > height {
		drop := -1
		for i, s := range secs {
			if drop < 0 || s.prio < secs[drop].prio {
				drop = i
			}
		}
		if secs[drop].prio == prioBoard || secs[drop].prio == prioPrompt {
			break // the smallest size keeps these on screen
		}
		secs = append(secs[:drop], secs[drop+1:]...)
	}
	var lines []string
	for _, s := range secs {
		lines = append(lines, s.lines...)
	}
	if height > 0 && len(lines) > height {
		lines = lines[:height]
	}
	return strings.Join(lines, "\n")
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
