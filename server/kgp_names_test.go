package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"kalah/protocol/kgp"
)

// TestKGPTokenNames: a KGP bot with a token and no valid name plays as
// kgp- and 8 hex digits of its token's hash, as docs/protocols/kgp.md
// says (it was refused as a reserved name), and comes back under it; a
// name that belongs to a bot with another token is refused in words
// that name that bot (they named nobody).
func TestKGPTokenNames(t *testing.T) {
	e := newKGPEnv(t, time.Second, &kgp.Server{})
	ctx := context.Background()
	const token = "made-name-token-0123"
	sum := sha256.Sum256([]byte(token))
	made := "kgp-" + hex.EncodeToString(sum[:4])
	for _, name := range []string{`"no good!"`, "x", `"kgp-mine"`} {
		c := e.dial("tcp")
		c.hello("set info:name "+name, `set auth:token "`+token+`"`)
		e.waitQueue(1)
		seated := e.ts.srv.bots.Queued()[0].Seat().St.Name
		if seated != made {
			t.Errorf("info:name %s with a token: queued as %q, want %q", name, seated, made)
		}
		c.close()
		e.waitQueue(0)
	}
	if got, err := e.ts.st.BotByToken(ctx, token); err != nil || got != made {
		t.Errorf("the token finds %q, %v; want %q", got, err, made)
	}

	// alpha is a bot; another token under its name is refused, naming it.
	a := e.dial("tcp")
	a.hello("set info:name alpha", `set auth:token "alpha-token-0123"`)
	a.close()
	e.waitQueue(0)
	for _, name := range []string{"alpha", "ALPHA"} {
		c := e.dial("tcp")
		c.lenient = true
		c.next()
		c.send("21 set info:name "+name, `23 set auth:token "not-alphas-token-99"`, "25 mode freeplay")
		er := c.expect("error")
		text := er.Args[0].Text
		if !strings.Contains(text, "the name alpha belongs to a bot with another token") || !strings.Contains(text, "the token of alpha") {
			t.Errorf("info:name %s with another token: %q", name, text)
		}
		if bye := c.next(); bye.Name != "goodbye" {
			t.Errorf("after the refusal: %v", bye)
		}
		c.closed()
	}
}
