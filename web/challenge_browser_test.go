package web

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"kalah"
	"kalah/player"
	"kalah/remote"
)

// TestBrowserChallengeBot: a bot online that takes challenges (kalah bot
// --accept) is listed in the lobby; a signed-in person challenges it from
// there and plays it.
func TestBrowserChallengeBot(t *testing.T) {
	srv := servedLikeServe(t)
	p, err := player.New("first", player.Options{Rules: kalah.Standard()})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	wg.Add(1)
	go func() {
		defer wg.Done()
		c := &remote.Client{Addr: "ws://" + strings.TrimPrefix(srv.URL, "http://") + "/ws/bot", Name: "robo", Token: "robo-token-1", Player: p, Accept: true}
		if err := c.Run(ctx); err != nil && !errors.Is(err, context.Canceled) {
			t.Errorf("the bot: %v", err)
		}
	}()
	b := browser(t, 900, 900)
	open(t, b, srv.URL+"/#/account")
	eval[bool](t, b, `(document.querySelector("#acctname").value = "ann", document.querySelector("#acctpass").value = "ann's long password", true)`)
	click(t, b, "#signup")
	waitJS(t, b, `document.querySelector("#acct").textContent === "ann"`)
	open(t, b, srv.URL+"/#/lobby")
	waitJS(t, b, `document.querySelector('#botsonline li[data-bot="robo"] button.challenge')`)
	click(t, b, `#botsonline li[data-bot="robo"] button.challenge`)
	waitJS(t, b, `location.hash.startsWith("#/game/") && document.querySelector('button.pit[data-side="S"]:not(:disabled)')`)
	if title := eval[string](t, b, `document.querySelector("#gametitle").textContent`); !strings.HasPrefix(title, "ann vs robo") {
		t.Errorf("title %q", title)
	}
	click(t, b, `button.pit[data-side="S"][data-house="1"]`)
	waitJS(t, b, `document.querySelector("#moves").textContent.startsWith("1. 1 ")`)
}
