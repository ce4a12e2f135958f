// Package egdb builds, stores and reads endgame databases for Kalah: the
// exact value of every configuration with up to K seeds left in the houses.
//
// # Values
//
// A value is from the view of the side to move: the difference between its
// final store and its opponent's that it can force from here with best play
// by both, counting only seeds still in the houses (the stores so far do not
// change future play under any rule but KGP's early end, which this package
// refuses). A configuration is written from the mover's view: the mover's n
// houses from its left, then the opponent's n houses from the opponent's
// left (both in sowing order).
//
// # Index
//
// Configurations of exactly k seeds in m = 2n houses are numbered by the
// colex rank of their stars-and-bars bar positions (Rank), from 0 to
// C(k+m-1, m-1)-1; the values of k seeds follow those of k-1 seeds.
//
// # File format (version 1, little-endian)
//
//	offset  size      field
//	0       8         magic "KALAHEGD"
//	8       4         format version (1)
//	12      1         houses a side, n
//	13      1         empty capture (0 or 1)
//	14      1         end rule (0 either-empty, 1 mover-stuck, 2 mover-empty)
//	15      1         sow into the opponent's store (0 or 1)
//	16      4         K, the most seeds on the board covered
//	20      4         CRC-32C (Castagnoli) of the payload
//	24      8         number of entries, C(K+2n, 2n)
//	32      8*(K+2)   offsets: index of the first entry of j seeds, j = 0..K+1
//	32+8(K+2) 4       CRC-32C of every header byte before it
//	then    entries   payload: one int8 value per configuration
//
// Open maps the file read-only (syscall.Mmap), shared with every process
// that maps it; Load reads it into the process's own memory, in transparent
// huge pages, for a solve that probes it at random (7% faster). Both
// refuse a file, with an error wrapping ErrCorrupt, if the magic, version,
// header checksum, offsets or size are wrong, and (unless asked not to) if
// the payload checksum is wrong; DB.Check refuses rules that the database
// does not cover (ErrMismatch).
//
// The seeds a house at the start, the first side and the pie rule are not in
// the header because they do not change the value of a configuration.
//
// # Checkpoints (a build's part files, version 1, little-endian)
//
// A build given BuildOptions.Checkpoints writes, for each seed count j, the
// file PartPath(prefix, j) (PREFIX.sJJ.part), whole or not at all:
//
//	offset  size      field
//	0       8         magic "KALAHEGP"
//	8       4         format version (1)
//	12      4         the rules' four bytes, as the database's 12-15
//	16      4         j, the seed count
//	20      4         levels of potential done, 1 to j*n+1 (all: the count done)
//	24      8         entries of j seeds, C(j+2n-1, 2n-1)
//	32      8         entries of them done (the levels')
//	40      4         CRC-32C of the payload
//	44      4         CRC-32C of every header byte before it
//	48      entries   the values of j seeds, those of the levels not done
//	                  meaningless
//
// A build resumes from the parts of counts 0, 1, ... that are whole and
// check out, and from the levels done of the first that is not.
package egdb
