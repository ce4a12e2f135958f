package main

// exec:CMD runs a bot program speaking kalah's line protocol on its stdin
// and stdout.
import (
	_ "kalah/remote"
)
