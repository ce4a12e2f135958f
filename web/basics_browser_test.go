package web

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"kalah"
	"kalah/server"
)

// TestBrowserBasics: a board flips by a button and stays flipped for
// that game when the page is opened again (another game is not); a game
// against the computer offers no chat with the opponent; the profile's
// archive gives each score from its owner's side (a game played as North
// reads North's store first); the tab's title names each view: a player,
// a player who is not there, a game.
func TestBrowserBasics(t *testing.T) {
	browserParallel(t)
	srv, h := browserServer(t)
	msrv := h.opts.Server.(*server.Server)
	// Ann plays North against "first" to the end, by her seat's token.
	g := startAs(t, srv.URL, "ann", NewGame{Rules: kalah.Rules{Houses: 4, Seeds: 3}, South: "first", North: "human"})
	id, _ := strconv.ParseInt(g.ID, 10, 64)
	deadline := time.Now().Add(20 * time.Second)
	var b State
	for {
		var err error
		if b, err = boardOf(h, g.ID); err != nil {
			t.Fatal(err)
		}
		if b.Over {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the game does not end")
		}
		if b.ToMoveSeat == 1 && len(b.Legal) > 0 {
			m, _ := strconv.Atoi(b.Legal[0])
			msrv.Move(context.Background(), id, server.Actor{Token: g.Tokens[1]}, kalah.Move(m))
			continue
		}
		time.Sleep(20 * time.Millisecond)
	}
	south, north := b.Score[0], b.Score[1]
	if south == north {
		t.Fatalf("the game ended level (%d-%d): its archive row cannot show from which side it reads", south, north)
	}

	ctx := browser(t, 900, 900)
	open(t, ctx, srv.URL+"/#/player/ann")
	waitJS(t, ctx, `document.querySelector('#playergames tr[data-game="`+g.ID+`"]')`)
	score := eval[string](t, ctx, `document.querySelector('#playergames tr[data-game="`+g.ID+`"] td:nth-child(4)').textContent`)
	if want := strconv.Itoa(north) + "–" + strconv.Itoa(south); score != want {
		t.Errorf("ann played North, the stores ended S %d N %d: her archive reads %q, want %q", south, north, score, want)
	}
	if title := eval[string](t, ctx, `document.title`); title != "ann — Kalah" {
		t.Errorf("the player's page is titled %q", title)
	}
	open(t, ctx, srv.URL+"/?x#/player/nobody-here")
	waitJS(t, ctx, `document.querySelector("#noplayer")`)
	if title := eval[string](t, ctx, `document.title`); title != "No such player — Kalah" {
		t.Errorf("the page of nobody is titled %q", title)
	}

	// A game against the computer, from the lobby: no chat; the flip.
	open(t, ctx, srv.URL+"/#/lobby")
	click(t, ctx, `#levels button[data-level="easy"]`)
	waitJS(t, ctx, `location.hash.startsWith("#/game/") && document.querySelector("button.pit:not(:disabled)")`)
	game := strings.TrimPrefix(eval[string](t, ctx, `location.hash`), "#/game/")
	if title := eval[string](t, ctx, `document.title`); !strings.Contains(title, " vs easy — Kalah") {
		t.Errorf("the game is titled %q", title)
	}
	if eval[bool](t, ctx, `(c => !!c && c.getBoundingClientRect().height > 0)(document.querySelector("#chat"))`) {
		t.Error("a game against the computer offers a chat")
	}
	bottom := `document.querySelector("#bottomlabel").textContent`
	if got := eval[string](t, ctx, bottom); !strings.HasSuffix(got, "(South)") {
		t.Fatalf("before the flip the bottom reads %q", got)
	}
	firstBottom := `document.querySelector(".board .pit:last-of-type") && document.querySelector(".board button.pit:nth-last-child(2)").dataset.side`
	click(t, ctx, "#flip")
	waitJS(t, ctx, bottom+`.endsWith("(North)") && document.querySelector("#flip").getAttribute("aria-pressed") === "true"`)
	if side := eval[string](t, ctx, firstBottom); side != "N" {
		t.Errorf("flipped, the bottom row's houses are %q's", side)
	}
	// Your houses stay yours, wherever they are drawn.
	if name := eval[string](t, ctx, accessibleName(`button.pit[data-side="S"][data-house="1"]`)); !strings.HasPrefix(name, "Your house 1") {
		t.Errorf("flipped, South's house 1 is called %q", name)
	}
	open(t, ctx, srv.URL+"/?again#/game/"+game)
	waitJS(t, ctx, `document.querySelector("button.pit:not(:disabled)")`)
	if got := eval[string](t, ctx, bottom); !strings.HasSuffix(got, "(North)") {
		t.Errorf("opened again, the flipped game's bottom reads %q", got)
	}
	click(t, ctx, "#abort")
	open(t, ctx, srv.URL+"/?third#/lobby")
	click(t, ctx, `#levels button[data-level="easy"]`)
	waitJS(t, ctx, `location.hash.startsWith("#/game/") && location.hash !== "#/game/`+game+`" && document.querySelector("button.pit:not(:disabled)")`)
	if got := eval[string](t, ctx, bottom); !strings.HasSuffix(got, "(South)") {
		t.Errorf("another game starts flipped: the bottom reads %q", got)
	}
}
