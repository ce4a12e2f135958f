package server

import (
	"strings"
	"testing"
	"time"

	"kalah"
	"kalah/protocol/line"
)

// A bot's illegal move is named in an error before the end it brings.
func TestIllegalMoveIsNamed(t *testing.T) {
	for _, tc := range []struct {
		move, want string
	}{
		{"7", "illegal move 7: there is no house 7 (houses 1 to 6); the game is lost"},
		{"swap", "illegal move swap: the pie rule's swap is not open now; the game is lost"},
	} {
		ts := newTestServer(t, "", Config{PerMove: time.Second})
		a, b := dial(t, ts.addr), dial(t, ts.addr)
		a.login("ann", "ann-token-1")
		b.login("bob", "bob-token-1")
		a.send("queue")
		a.expect("ok")
		b.send("queue")
		b.expect("ok")
		a.expect("go") // ann waited first: South, to move
		a.send("move " + tc.move)
		er := a.expect("error")
		if er.Arg(0) != line.CodeIllegal || er.Rest(1) != tc.want {
			t.Errorf("move %s: %s, want error %s %s", tc.move, er, line.CodeIllegal, tc.want)
		}
		end, err := line.ParseEnd(a.expect("end"))
		if err != nil || end.Termination != kalah.IllegalMove {
			t.Errorf("move %s: end %+v, %v", tc.move, end, err)
		}
	}
	// An empty house.
	ts := newTestServer(t, "", Config{PerMove: time.Second, Rules: kalah.Standard()})
	a, b := dial(t, ts.addr), dial(t, ts.addr)
	a.login("cat", "cat-token-1")
	b.login("dan", "dan-token-1")
	a.send("queue")
	a.expect("ok")
	b.send("queue")
	b.expect("ok")
	a.expect("go")
	a.send("move 1") // 4 seeds from house 1: North moves next
	b.expect("go")
	b.send("move 1")
	a.expect("go")
	a.send("move 1")
	er := a.expect("error")
	if !strings.Contains(er.Rest(1), "house 1 is empty") {
		t.Errorf("empty house: %s", er)
	}
}
