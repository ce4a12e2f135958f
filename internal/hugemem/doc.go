// Package hugemem allocates the large tables that are read at random (the
// engine's transposition table, an endgame database's values) in
// transparent huge pages where the system has them. A random read over
// hundreds of megabytes in 4 KiB pages misses the TLB nearly every time,
// and the page walk costs as much again as the read; with 2 MiB pages the
// whole table fits the TLB.
package hugemem

// MinSize is the least size Alloc puts in huge pages; smaller ones gain
// too little to be worth memory outside the Go heap.
const MinSize = 32 << 20
