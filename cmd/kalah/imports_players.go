package main

// The searching players of the thesis register themselves here.
import (
	_ "kalah/search"
)
