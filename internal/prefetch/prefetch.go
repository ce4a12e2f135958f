// Package prefetch asks the processor to start loading a cache line it will
// need soon, without waiting for it. The solver's time goes to cache misses
// (transposition table probes and endgame database lookups in memory far
// larger than the caches); issuing the loads of all a position's children
// before searching the first lets their misses overlap instead of following
// one another.
//
// On amd64 it is one PREFETCHT0 instruction; elsewhere it does nothing. A
// prefetch never faults, whatever the address.
package prefetch
