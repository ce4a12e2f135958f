package web

import (
	"testing"
	"time"
)

// TestBrowserTournamentOfBots starts, from the page, a tournament of the
// two bots waiting on the server and a built-in player, and follows one
// of the bots' games to the server's game page.
func TestBrowserTournamentOfBots(t *testing.T) {
	w := newBotWorld(t, 5*time.Second)
	w.connect(t, "alice", "greedy")
	w.connect(t, "bob", "first")
	ctx := browser(t, 900, 1100)
	open(t, ctx, w.web.URL+"/#/tournaments")
	// The waiting bots are offered beside the built-in players.
	waitJS(t, ctx, `[...document.querySelectorAll(".tplayer")].some(b => b.value === "bot:bob")`)
	if eval[bool](t, ctx, `[...document.querySelectorAll(".tplayer")].some(b => b.value === "bot")`) {
		t.Error("the bare bot kind is offered")
	}
	eval[bool](t, ctx, `(() => {
		for (const b of document.querySelectorAll(".tplayer")) b.checked = ["bot:alice", "bot:bob", "random"].includes(b.value);
		document.querySelector("#preset").value = "dec1961";
		document.querySelector("#preset").dispatchEvent(new Event("change"));
		document.querySelector("#tname").value = "Class";
		return true })()`)
	click(t, ctx, "#tstart")
	waitJS(t, ctx, `location.hash.startsWith("#/tournament/") && document.querySelector("#standings")`)
	waitJS(t, ctx, `document.querySelector("#tournament").textContent.includes("6 of 6 games played")`)
	if rows := eval[int](t, ctx, `document.querySelectorAll("#standings tr").length`); rows != 4 {
		t.Errorf("standings rows %d", rows)
	}
	// Every game has a bot, so each links to a server game.
	if n := eval[int](t, ctx, `document.querySelectorAll('#tournament .games a[href^="#/game/"]').length`); n != 6 {
		t.Errorf("%d links to server games", n)
	}
	click(t, ctx, `#tournament .games a[href^="#/game/"]`)
	waitJS(t, ctx, `document.querySelector("main").innerText.includes("alice")`)
}
