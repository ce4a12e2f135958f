// Package kalah implements the rules of Kalah (mancala) in every variant
// our sources play, as data: a fast value type for positions (Position), a
// friendly game type with history and undo (Game), the text and JSON
// notations (docs/NOTATION.md), importers for the Manchester, KGP and
// OpenSpiel formats, and Perft, the move-path count that checks a rules
// engine against another.
//
// Rules are a plain struct (Rules) with named presets (Presets,
// PresetRules), each citing its source; Validate rejects nonsense. Engines
// copy a Position and call Play, which never allocates; everything else
// uses Game, which checks every move and records how the game ended,
// forfeits included.
//
// Nothing here knows about search, networks or storage; every other package
// of the project stands on this one.
package kalah
