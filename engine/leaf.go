package engine

import "math/bits"

// Most nodes of an exact search lie a few seeds above the endgame
// database: 25 of the 29.5 million that Kalah(6,4)'s solve with the
// 20-seed database searches have 21 to 27 seeds. Below the enhanced
// transposition cut-off and the busy marks (searcher.leafMax) a node
// needs no record of its children for those, so leaf searches it with
// a few arrays on its stack instead of the general search's node and
// child records: the same steps, moves, order and nodes (leafOK says when
// its switches are the search's), for fewer instructions a node.

// leafOK reports whether leaf may stand in for searchSeeds below leafMax:
// the switches are those leaf follows (the standard board's prediction
// and sowing, a child's seeds from its parent's, lazy children, the
// database children valued first, the rest sown once the first has not
// refuted).
func (s *searcher) leafOK() bool {
	t := s.tune
	return t.Leaf && s.db != nil && s.onlyMine && s.g.Six() && t.Lazy && t.DBChildren && t.AllAhead
}

// leaf is searchSeeds of an exact search of b (not the root), which holds
// seeds (fewer than leafMax) in its houses; all is node.all. Its steps
// are numbered as searchSeeds's; it has no step 4 (no horizon) nor 6 (no
// cut-off).
func (s *searcher) leaf(b *board, seeds, alpha, beta int, all bool) int {
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

	// Step 3 begins: the table's bucket, from ttMin seeds, is read while
	// the children are predicted, and probed after them (Tuning.ProbeLate):
	// the miss overlaps the predictions and the database's prefetches.
	useTT := seeds >= s.ttMin
	lateProbe := s.tune.ProbeLate
	var (
		key    uint64
		prior  entry
		found  bool
		nodes0 = s.nodes
	)
	if useTT {
		key = s.key(b)
		if lateProbe {
			s.tt.prefetch(key)
		} else if prior, found = s.tt.probe(key); found && settles(prior, alpha, beta) {
			return settled(prior, alpha, beta)
		}
	}

	// Step 5: the children in order: the table's move, extra turns
	// nearest the store first, then by what the move takes, nearest the
	// store first (the quiet ones by exposure from exposureMin seeds). A
	// child whose gain takes it into the database is sown now and its
	// entry prefetched; one that ends the game is valued.
	g := s.g
	dbGain := seeds - s.dbK
	var (
		order        [8]uint8 // eight, not six: indices masked by 7 need no bounds checks
		scores       [8]int
		d            [8]int // the gain, predicted or sown
		v            [8]int // the value of a known child
		at           [8]uint64
		c            [6]board // the children sown, by house
		known, ended uint32   // children in the database, children that end the game
		extra, sown  uint32
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
			sown |= 1 << i
			var over bool
			di, ex, over = g.PlayFrom(&c[i], b, i)
			if over {
				ended |= 1 << i
				v[i] = di
			} else if cs := seeds - di; cs <= s.dbK {
				known |= 1 << i
				at[i] = s.db.Index(c[i].H[:12], cs)
				s.db.PrefetchIndex(at[i])
			}
		}
		d[i] = di
		var score int
		switch {
		case !lateProbe && found && i == prior.move:
			score = 1 << 30
		case ex:
			score = 1<<29 + i
		case s.fewest && !all:
			score = di*64 + awayKey(int(h), i, 6)
		default:
			score = di*64 + i
		}
		if ex {
			extra |= 1 << i
		}
		j := cnt
		for ; j > 0 && scores[(j-1)&7] < score; j-- {
			scores[j&7], order[j&7] = scores[(j-1)&7], order[(j-1)&7]
		}
		scores[j&7], order[j&7] = score, uint8(i)
		cnt++
	}
	if seeds >= s.exposureMin {
		first := cnt
		for first > 0 && scores[(first-1)&7] < 64 {
			first--
		}
		if cnt-first > 1 {
			s.orderQuiet(b, order[first:cnt])
		}
	}

	// Step 3 ends: a proven bound that settles the window ends the
	// search, else the table's move is tried first (the others keep their
	// order).
	if useTT && lateProbe {
		if prior, found = s.tt.probe(key); found {
			if settles(prior, alpha, beta) {
				return settled(prior, alpha, beta)
			}
			for j := 1; j < cnt; j++ {
				if int(order[j&7]) == prior.move {
					m := order[j&7]
					copy(order[1:j+1], order[:j])
					order[0] = m
					break
				}
			}
		}
	}

	// Step 7: the database children's values, read together, and the
	// moves that end the game: one that refutes ends the search.
	if known|ended != 0 {
		for j := 0; j < cnt; j++ {
			i := order[j&7] & 7
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
				if useTT {
					s.leafSave(key, prior, found, seeds, alpha, beta, v[i&7], int(i), nodes0)
				}
				return v[i&7]
			}
		}
	}

	// Step 8: search the others in order; once the first has not refuted,
	// sow the rest and prefetch their table buckets.
	best, bestMove, a := -1<<20, -1, alpha
	for j := 0; j < cnt; j++ {
		i := int(order[j&7] & 7)
		if j == 1 && useTT {
			for l := 1; l < cnt; l++ {
				if m := order[l&7] & 7; sown&(1<<m) == 0 {
					s.leafSow(b, &c[m], int(m), &d[m], &v[m], &sown, &extra, &ended)
					if ended&(1<<m) == 0 && seeds-d[m] >= s.ttMin {
						s.tt.prefetch(s.key(&c[m]))
					}
				}
			}
		}
		if sown&(1<<i) == 0 {
			s.leafSow(b, &c[i&7], i, &d[i&7], &v[i&7], &sown, &extra, &ended)
		}
		var vi int
		switch di := d[i&7]; {
		case (known|ended)&(1<<i) != 0:
			vi = v[i&7]
		case extra&(1<<i) != 0:
			vi = di + s.leaf(&c[i&7], seeds-di, a-di, beta-di, all)
		default:
			vi = di - s.leaf(&c[i&7], seeds-di, di-beta, di-a, !all)
		}
		if s.aborted {
			return 0
		}
		if vi > best {
			best, bestMove = vi, i
			if vi >= beta {
				break
			}
			a = max(a, vi)
		}
	}
	if useTT {
		s.leafSave(key, prior, found, seeds, alpha, beta, best, bestMove, nodes0)
	}
	return best
}

// leafSow sows leaf's child i of b into c, noting its gain d, whether
// it is an extra turn and whether it ends the game (its value v then).
func (s *searcher) leafSow(b, c *board, i int, d, v *int, sown, extra, ended *uint32) {
	di, ex, over := s.g.PlayFrom(c, b, i)
	*d = di
	*sown |= 1 << i
	switch {
	case over:
		*ended |= 1 << i
		*v = di
	case ex:
		*extra |= 1 << i
	default:
		*extra &^= 1 << i
	}
}

// leafSave is save for leaf's node of key: prior is the table's entry if
// found, nodes0 the node count at the node.
func (s *searcher) leafSave(key uint64, prior entry, found bool, seeds, alpha, beta, best, move int, nodes0 uint64) {
	e := merge(prior, found && prior.depth == exactDepth, seeds, exactDepth, alpha, beta, best)
	e.move = move
	s.tt.store(key, e, bits.Len64(s.nodes-nodes0))
}

// settles reports whether the table's entry e, found for a node, settles
// its window (alpha, beta): a proven bound on the side of the window, or
// the exact value; settled is then the value to return.
func settles(e entry, alpha, beta int) bool {
	return e.depth == exactDepth && (e.lo >= beta || e.hi <= alpha || e.lo == e.hi)
}

func settled(e entry, alpha, beta int) int {
	switch {
	case e.lo >= beta:
		return e.lo
	case e.hi <= alpha:
		return e.hi
	}
	return e.lo
}
