package main

import (
	"fmt"
	"strings"
)

// count says n of a thing in words, the plural from the second on: "1
// game", "2 games", "0 plies" (a word ending in y after a consonant takes
// -ies).
func count(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, word)
	}
	if l := len(word); l > 1 && word[l-1] == 'y' && !strings.ContainsRune("aeiou", rune(word[l-2])) {
		return fmt.Sprintf("%d %sies", n, word[:l-1])
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// sayingError is an error told in words of its own, still matching the
// error it stands for (errors.Is).
type sayingError struct {
	say string
	err error
}

func (s sayingError) Error() string { return s.say }
func (s sayingError) Unwrap() error { return s.err }
