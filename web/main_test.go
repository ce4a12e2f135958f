package web

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks that no test leaves a goroutine behind: games, event
// streams and tournaments all end with their owner.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
