package engine

import (
	"time"

	"kalah"
	"kalah/book"
)

// bookMoves returns the exact value of every legal move of p from the
// engine's opening books, if p is in one (p must be in play, not over).
func (e *Engine) bookMoves(p *kalah.Position) ([]int8, bool) { return lookupBooks(e.books, p) }

func lookupBooks(books []*book.Book, p *kalah.Position) ([]int8, bool) {
	for _, b := range books {
		if vals, ok := b.Lookup(p); ok {
			return vals, true
		}
	}
	return nil, false
}

// BookAnswers reports whether an engine for rules r, with its books on,
// answers p from the built-in opening books without a search: Solve does
// whenever p is in a book, Analyze (everyMove) only where the book holds
// every move's value. A caller can then skip loading an endgame database.
func BookAnswers(r kalah.Rules, p *kalah.Position, everyMove bool) bool {
	if p.Over(&r) {
		return false
	}
	vals, ok := lookupBooks(book.For(r), p)
	return ok && (!everyMove || book.Complete(vals))
}

// bookAnalysis returns Analyze's answer for p from the books.
func (e *Engine) bookAnalysis(p *kalah.Position) ([]MoveValue, bool) {
	vals, ok := e.bookMoves(p)
	if !ok || !book.Complete(vals) {
		return nil, false
	}
	var out []MoveValue
	for i, v := range vals {
		if v != book.NoMove {
			out = append(out, MoveValue{Move: kalah.Move(i + 1), Value: int(v), Exact: true, Book: true})
		}
	}
	return out, true
}

// bookResult returns Solve's answer for p from the books: the value, every
// optimal move, and a principal variation followed through the books as
// far as they reach.
func (e *Engine) bookResult(p kalah.Position, start time.Time) (Result, bool) {
	vals, ok := e.bookMoves(&p)
	if !ok {
		return Result{}, false
	}
	res := Result{Value: book.Best(vals), Exact: true, Book: true}
	for i, v := range vals {
		if int(v) == res.Value {
			res.Best = append(res.Best, kalah.Move(i+1))
		}
	}
	// Like pv, prefer the optimal house nearest the store.
	for q := p; ok && len(res.PV) < 60; {
		m := kalah.Move(0)
		for i := len(vals) - 1; i >= 0 && m == 0; i-- {
			if int(vals[i]) == book.Best(vals) {
				m = kalah.Move(i + 1)
			}
		}
		res.PV = append(res.PV, m)
		if q.Play(&e.rules, int(m))&kalah.End != 0 {
			break
		}
		vals, ok = e.bookMoves(&q)
	}
	res.Time = time.Since(start)
	return res, true
}
