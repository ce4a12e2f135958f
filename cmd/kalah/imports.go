package main

// The players available to every command register themselves here.
import (
	_ "kalah/heuristic"
)
