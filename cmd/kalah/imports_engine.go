package main

// The engine's players (engine, perfect) register themselves.
import (
	_ "kalah/engine"
)
