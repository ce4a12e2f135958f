package main

// Players reached through other platforms' protocols register themselves
// here: mk:CMD runs a Manchester COMP34120 agent.
import (
	_ "kalah/protocol/mkp"
)
