package web

import (
	"fmt"
	"net/http"
	"strings"

	"kalah"

	"kalah/internal/httpapi"
)

// presetLeads are a sentence for each preset a person meets in the
// lobby, in plain words: where it comes from and why one would choose it.
var presetLeads = map[string]string{
	"kalah":      "Standard Kalah, the game most people know and the one solved in 2000.",
	"dec1961":    "The rules of the first Kalah program (1961): a shorter game of 3 seeds a house.",
	"gamelink":   "The GameLink students' rules: 3 seeds a house, sown through both stores.",
	"pekar":      "Standard Kalah as Pekař's study plays it; either side may start.",
	"thesis":     "A longer, richer game of 6 seeds a house, from a study of search algorithms.",
	"egyptian":   "The Princeton course's \"Egyptian\" rules: captures come easier.",
	"manchester": "The Manchester tournament game: 7 houses of 7, and the second player may swap sides.",
	"kgp":        "The bots' game of the Kalah Game Protocol: a big board of 8 houses of 8.",
	"ludii":      "Ludii's Kalah: a side left empty can be fed again.",
}

// describeRules says what rules are in a sentence: the board, and every
// switch that makes them differ from standard Kalah.
func describeRules(r kalah.Rules) string {
	parts := []string{fmt.Sprintf("%d houses of %d seeds", r.Houses, r.Seeds)}
	if r.EmptyCapture {
		parts = append(parts, "a last seed in your own empty house captures even with nothing opposite")
	}
	if r.SowOpponentStore {
		parts = append(parts, "seeds are sown into the opponent's store too")
	}
	if r.Pie {
		parts = append(parts, "after the first move the other player may swap sides")
	}
	switch r.End {
	case kalah.MoverStuck:
		parts = append(parts, "the game ends only when the player to move has no seed")
	case kalah.MoverEmpty:
		parts = append(parts, "the game ends when the mover's own houses are empty")
	default:
		parts = append(parts, "the game ends when either side's houses are empty")
	}
	if r.EarlyEnd {
		parts = append(parts, "or once a store holds more than half the seeds")
	}
	s := strings.Join(parts, "; ")
	return strings.ToUpper(s[:1]) + s[1:] + "."
}

// presetSummary is a preset's lead, if it has one, and its rules in words.
func presetSummary(r kalah.Rules) string {
	if lead := presetLeads[r.Name]; lead != "" {
		return lead + " " + describeRules(r)
	}
	return describeRules(r)
}

// notFound answers a path the page does not have with a page of its own
// (404), in the page's look, with the way back. It does not repeat the
// path: nothing a stranger sends comes back in a page.
func (h *Handler) notFound(w http.ResponseWriter, r *http.Request) {
	httpapi.WriteHTML(w, http.StatusNotFound, `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Not found — Kalah</title>
<link rel="icon" href="/favicon.ico" type="image/svg+xml">
<link rel="stylesheet" href="/web/static/app.css">
</head>
<body>
<header><h1><a href="/#/lobby">Kalah</a></h1></header>
<main id="main">
<h2>No such page</h2>
<p>There is nothing at this address on this server: the link may be wrong or cut short.</p>
<p><a href="/#/lobby">Go to the lobby</a>, or <a href="/#/watch">watch the games being played</a>.</p>
</main>
</body>
</html>
`)
}
