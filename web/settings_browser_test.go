package web

import (
	"context"
	"fmt"
	"strconv"
	"testing"

	"github.com/chromedp/chromedp"
)

// fill sets the inputs of the page by CSS selector: text values, or a
// checkbox's state for "true".
func fill(t *testing.T, ctx context.Context, fields map[string]string) {
	t.Helper()
	for css, v := range fields {
		js := fmt.Sprintf(`(el => { if (el.type === "checkbox") el.checked = %q === "true"; else el.value = %s; return true })(document.querySelector(%q))`, v, strconv.Quote(v), css)
		eval[bool](t, ctx, js)
	}
}

// signInPage signs the page in as name from the account view.
func signInPage(t *testing.T, ctx context.Context, base, name, password string) {
	t.Helper()
	open(t, ctx, base+"/#/account")
	waitJS(t, ctx, `document.querySelector("#acctname")`)
	fill(t, ctx, map[string]string{"#acctname": name, "#acctpass": password})
	click(t, ctx, "#signin")
	waitJS(t, ctx, fmt.Sprintf(`document.querySelector("#acct").textContent === %q`, name))
	// Back to the settings, wherever signing in led.
	open(t, ctx, base+"/#/account")
	waitJS(t, ctx, `document.querySelector("#settings")`)
}

// reload loads the page anew.
func reload(t *testing.T, ctx context.Context) {
	t.Helper()
	if _, err := chromedp.Run(ctx, chromedp.Reload()); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "document.body.dataset.ready")
}

// apiName is the name the server says the page is signed in as.
const apiName = `fetch("/api/account").then(r => r.json()).then(v => v.name || "")`

// TestBrowserAccountSettings: in two browsers (a laptop and a phone), a
// guest sees their own name in the header; the laptop signs up and changes
// its password (a wrong current one refused in words beside the form); the
// phone signs in with the new one; the phone signs out and the laptop stays
// signed in; "Sign out everywhere" on the laptop ends the phone's session
// too; the account, deleted from the settings (its password needed), is
// gone.
func TestBrowserAccountSettings(t *testing.T) {
	srv := servedLikeServe(t)
	laptop, phone := browser(t, 900, 1000), browser(t, 900, 1000)

	// A guest (one game against the computer) sees their name.
	open(t, phone, srv.URL+"/#/lobby")
	if code := evalAwait[float64](t, phone, `fetch("/api/games", {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify({south: "human", north: "random"})}).then(r => r.status)`); code != 201 {
		t.Fatalf("a guest's game: %v", code)
	}
	reload(t, phone) // the page reads who it is as it starts
	guest := evalAwait[string](t, phone, `fetch("/api/account").then(r => r.json()).then(v => v.guest || "")`)
	if guest == "" {
		t.Fatal("no guest name from the server")
	}
	waitJS(t, phone, fmt.Sprintf(`!document.querySelector("#whoami").hidden && document.querySelector("#whoami").textContent === %q`, "You: "+guest+" (guest)"))
	// On a 360 px phone the name fits the header: nothing runs off the side.
	if err := chromedp.Do(phone, chromedp.EmulateViewport(360, 740)); err != nil {
		t.Fatal(err)
	}
	if w := eval[float64](t, phone, `document.documentElement.scrollWidth`); w > 360 {
		t.Errorf("the guest's header is %v px wide on a 360 px phone", w)
	}
	if err := chromedp.Do(phone, chromedp.EmulateViewport(900, 1000)); err != nil {
		t.Fatal(err)
	}

	// Sign up, then a new password: the current one is needed.
	open(t, laptop, srv.URL+"/#/account")
	fill(t, laptop, map[string]string{"#acctname": "Ann", "#acctpass": "correct horse"})
	click(t, laptop, "#signup")
	waitJS(t, laptop, `document.querySelector("#acct").textContent === "Ann" && document.querySelector("#pwform")`)
	if eval[bool](t, laptop, `!document.querySelector("#whoami").hidden`) {
		t.Error("a signed-in person's header shows a guest's name")
	}
	fill(t, laptop, map[string]string{"#pwcur": "wrong horse", "#pwnew": "battery staple"})
	click(t, laptop, "#pwbtn")
	waitJS(t, laptop, `document.querySelector("#pwmsg").textContent.startsWith("Not changed: ")`)
	fill(t, laptop, map[string]string{"#pwcur": "correct horse", "#pwnew": "battery staple"})
	click(t, laptop, "#pwbtn")
	waitJS(t, laptop, `document.querySelector("#pwmsg").textContent.startsWith("Password changed.")`)
	shot(t, laptop, "account-settings")
	signInPage(t, phone, srv.URL, "Ann", "battery staple")
	if eval[bool](t, phone, `!document.querySelector("#whoami").hidden`) {
		t.Error("signed in, the header still shows the guest's name")
	}

	// The phone signs out: the laptop stays signed in.
	click(t, phone, "#signout")
	waitJS(t, phone, `document.querySelector("#acct").textContent === "Sign in"`)
	if got := evalAwait[string](t, phone, apiName); got != "" {
		t.Fatalf("the phone, signed out, is %q", got)
	}
	reload(t, laptop)
	waitJS(t, laptop, `document.querySelector("#acct").textContent === "Ann"`)
	if got := evalAwait[string](t, laptop, apiName); got != "Ann" {
		t.Fatalf("the laptop, after the phone signed out, is %q", got)
	}

	// Sign out everywhere, from the laptop: the phone is signed out too.
	signInPage(t, phone, srv.URL, "Ann", "battery staple")
	open(t, laptop, srv.URL+"/#/account")
	click(t, laptop, "#signouteverywhere")
	waitJS(t, laptop, `document.querySelector("#acct").textContent === "Sign in"`)
	reload(t, phone) // the phone's page learns it as it starts
	waitJS(t, phone, `document.querySelector("#acct").textContent === "Sign in"`)
	if got := evalAwait[string](t, phone, apiName); got != "" {
		t.Fatalf("the phone, after signing out everywhere, is %q", got)
	}

	// Delete the account: the password is needed; then it is gone.
	signInPage(t, laptop, srv.URL, "Ann", "battery staple")
	waitJS(t, laptop, `document.querySelector("#delform")`)
	fill(t, laptop, map[string]string{"#delpass": "wrong horse", "#delsure": "true"})
	click(t, laptop, "#delbtn")
	waitJS(t, laptop, `document.querySelector("#delmsg").textContent.startsWith("Not deleted: ")`)
	fill(t, laptop, map[string]string{"#delpass": "battery staple", "#delsure": "true"})
	click(t, laptop, "#delbtn")
	waitJS(t, laptop, `location.hash === "#/lobby" && document.querySelector("#acct").textContent === "Sign in"`)
	signIn := `fetch("/api/account/login", {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify({name: "Ann", password: "battery staple"})}).then(r => r.status)`
	if code := evalAwait[float64](t, phone, signIn); code != 401 {
		t.Fatalf("signing in to the deleted account: %v", code)
	}
	if errs := eval[string](t, laptop, `JSON.stringify(window.kalahErrors)`); errs != "[]" {
		t.Errorf("page errors: %s", errs)
	}
}
