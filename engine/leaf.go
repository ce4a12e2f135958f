package engine

// The nodes just above the endgame database, below the table's threshold
// (searcher.leafMax), are most of an exact search's: 17 of the 29.5 million
// searched nodes of Kalah(6,4)'s solve with the 20-seed database have 21 or
// 22 seeds. None of them probes the table, tries the enhanced
// transposition cut-off, orders its quiet moves by exposure or marks itself
// busy, so leaf searches them without the general search's node and child
// records: the same moves in the same order (the table's move aside, which
// such a node never has), the same database reads first, the same nodes
// counted; only fewer instructions a node.

// leafOK reports whether leaf may stand in for searchSeeds below leafMax:
// the search's switches are those leaf follows (the standard board's
// prediction and sowing, a child's seeds from its parent's, the database
// children valued first).
func (s *searcher) leafOK() bool {
	t := s.tune
	return t.Leaf && s.db != nil && s.onlyMine && s.g.Six() && t.Lazy && t.DBChildren
}

// leaf is searchSeeds of an exact search of b (not the root), which holds
// seeds (fewer than leafMax) in its houses.
func (s *searcher) leaf(b *board, seeds, alpha, beta int) int {
	// Step 1: the node, progress and the stop.
	s.nodes++
	if s.nodes&1023 == 0 {
		s.poll()
	}
	if s.aborted {
		return 0
	}
	// Step 2: the seeds' bounds and the database.
	switch {
	case seeds <= alpha:
		return seeds
	case -seeds >= beta:
		return -seeds
	case seeds <= s.dbK:
		v, _ := s.db.Value(b.H[:12], seeds)
		return v
	}

	// Step 5: the children in order (extra turns nearest the store first,
	// then by what the move takes, then nearest the store first); a child
	// whose gain takes it into the database is sown now and its entry
	// prefetched, one that ends the game valued.
	g := s.g
	dbGain := seeds - s.dbK
	var (
		order        [6]uint8
		scores       [6]int
		d            [6]int // the gain, predicted or sown
		v            [6]int // the value of a known child
		at           [6]uint64
		known, ended uint32 // children in the database, children that end the game
		extra        uint32
		c            board
		cnt          int
	)
	for i := 5; i >= 0; i-- {
		h := b.H[i]
		if h == 0 {
			continue
		}
		var di int
		var ex bool
		if dbGain == 1 && int(h) >= 6-i {
			di = 1 // one seed into the store takes it into the database
		} else if h < 13 {
			di, ex = g.Predict6(b, i)
		} else {
			di, ex = g.Predict(b, i)
		}
		if di >= dbGain {
			c = *b
			var over bool
			di, ex, over = g.Play(&c, i)
			if over {
				ended |= 1 << i
				v[i] = di
			} else if cs := seeds - di; cs <= s.dbK {
				known |= 1 << i
				at[i] = s.db.Index(c.H[:12], cs)
				s.db.PrefetchIndex(at[i])
			}
		}
		d[i] = di
		score := di*64 + i
		if ex {
			extra |= 1 << i
			score = 1<<29 + i
		}
		j := cnt
		for ; j > 0 && scores[j-1] < score; j-- {
			scores[j], order[j] = scores[j-1], order[j-1]
		}
		scores[j], order[j] = score, uint8(i)
		cnt++
	}

	// Step 7: the database children's values, read together, and the
	// moves that end the game: one that refutes ends the search.
	if known|ended != 0 {
		for j := 0; j < cnt; j++ {
			i := order[j] & 7
			if known&(1<<i) != 0 {
				s.nodes++
				dv := s.db.ValueIndex(at[i&7])
				if extra&(1<<i) != 0 {
					v[i&7] = d[i&7] + dv
				} else {
					v[i&7] = d[i&7] - dv
				}
			} else if ended&(1<<i) == 0 {
				continue
			}
			if v[i&7] >= beta {
				return v[i&7]
			}
		}
	}

	// Step 8: search the others in order.
	best, a := -1<<20, alpha
	for j := 0; j < cnt; j++ {
		i := int(order[j] & 7)
		var vi int
		if (known|ended)&(1<<i) != 0 {
			vi = v[i&7]
		} else {
			c = *b
			di, ex, over := g.Play(&c, i)
			switch {
			case over:
				vi = di
			case ex:
				vi = di + s.leaf(&c, seeds-di, a-di, beta-di)
			default:
				vi = di - s.leaf(&c, seeds-di, di-beta, di-a)
			}
			if s.aborted {
				return 0
			}
		}
		if vi > best {
			best = vi
			if vi >= beta {
				break
			}
			a = max(a, vi)
		}
	}
	return best
}
