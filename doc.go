// Package kalah implements the rules of Kalah (mancala) in every variant
// our sources play, as data: a fast value type for positions (Position), a
// friendly game type with history and undo (Game), the text and JSON
// notations, and importers for the Manchester, KGP and OpenSpiel formats.
//
// Nothing here knows about search, networks or storage; every other package
// of the project stands on this one.
package kalah
