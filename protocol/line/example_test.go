package line_test

import (
	"fmt"

	"kalah"
	"kalah/protocol/line"
)

// A bot's side of one exchange: read the server's "go", answer a move.
func ExampleParseTurn() {
	m, _ := line.Parse("go 5000 0 4,4,4,4,4,4/4,4,4,4,4,4 0-0 S")
	turn, _ := line.ParseTurn(m)
	fmt.Println(turn.PerMove, turn.Position.ToMove(), turn.Position.Moves())
	fmt.Println(line.MoveMsg(kalah.Move(3)))
	// Output:
	// 5s South [1 2 3 4 5 6]
	// move 3
}

func ExampleRulesToken() {
	r, _ := kalah.PresetRules("gamelink")
	fmt.Println(line.RulesToken(r))
	r.First = kalah.North
	fmt.Println(line.RulesToken(r))
	// Output:
	// gamelink
	// gamelink,houses=6,seeds=3,first=N,empty-capture=0,end=either-empty,early-end=0,pie=0,sow-opponent-store=1
}
