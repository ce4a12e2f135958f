// Package identity says who plays. Every seat of every game belongs to an
// identity: a person's account, a bot (owned by a person, or registered by
// its first login), a guest (a browser or API client without an account,
// numbered by the server, which alone can sign its cookie), or a program
// the server runs (an engine spec). Records, lists and ratings name
// identities; a page says "you" by comparing an identity with its
// viewer's, never by storing the word.
//
// People and bots share one name space: a new name may not equal, or
// differ only in case or in characters a reader could take for one
// another (0 and o, 1, l and I, rn and m, ...), a name that belongs to
// someone else (Skeleton). Text that travels over a protocol carries no
// control characters (CleanText).
package identity

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// Kind is what an identity is.
type Kind string

// The kinds of identity.
const (
	Person  Kind = "user"    // a person with an account
	Bot     Kind = "bot"     // a program with a name and a token
	Guest   Kind = "guest"   // someone without an account, known by a secret
	Program Kind = "program" // a player the server runs from its spec
)

// ID names an identity: "user:alice", "bot:Deep-Kalah", "guest:guest-17"
// (an older release's "guest:guest-4f2a9c1b7d3e0a55"), "program:expert". The name keeps the case
// it was registered with, for display; Key compares.
type ID struct {
	Kind Kind
	Name string
}

// Errors of names, matched with errors.Is.
var (
	ErrBadName  = errors.New("invalid name")
	ErrReserved = errors.New("reserved name")
	ErrBadID    = errors.New("invalid identity")
)

// Of returns the identity of a person or a bot by name, a guest by its
// name ("guest-..."), or a program by its spec.
func Of(kind Kind, name string) ID { return ID{Kind: kind, Name: name} }

// IsZero reports whether id names nobody (a seat of an older release
// whose player had no identity).
func (id ID) IsZero() bool { return id.Kind == "" }

// String returns "kind:name", or "" for the zero ID.
func (id ID) String() string {
	if id.IsZero() {
		return ""
	}
	return string(id.Kind) + ":" + id.Name
}

// Key returns the form under which two IDs are the same identity: names
// of people, bots and guests compare without case; a program's spec is
// kept as it is.
func (id ID) Key() string {
	if id.IsZero() {
		return ""
	}
	if id.Kind == Program {
		return id.String()
	}
	return string(id.Kind) + ":" + strings.ToLower(id.Name)
}

// Is reports whether id and o are the same identity.
func (id ID) Is(o ID) bool { return !id.IsZero() && id.Key() == o.Key() }

// Rated reports whether the identity can hold a rating: people and bots.
func (id ID) Rated() bool { return id.Kind == Person || id.Kind == Bot }

// Parse reads "kind:name".
func Parse(s string) (ID, error) {
	if s == "" {
		return ID{}, nil
	}
	k, name, ok := strings.Cut(s, ":")
	id := ID{Kind: Kind(k), Name: name}
	switch {
	case !ok || name == "":
		return ID{}, fmt.Errorf("%w: %q: want kind:name", ErrBadID, s)
	case id.Kind == Person || id.Kind == Bot || id.Kind == Guest || id.Kind == Program:
		return id, nil
	}
	return ID{}, fmt.Errorf("%w: %q: kind %q is none of user, bot, guest, program", ErrBadID, s, k)
}

// MarshalText writes the ID as String does.
func (id ID) MarshalText() ([]byte, error) { return []byte(id.String()), nil }

// UnmarshalText reads the ID as Parse does.
func (id *ID) UnmarshalText(b []byte) error {
	v, err := Parse(string(b))
	if err != nil {
		return err
	}
	*id = v
	return nil
}

// GuestPrefix starts every guest's name; no account or bot may take it.
const GuestPrefix = "guest-"

// GuestOf returns the guest of an older release's secret: its name was
// derived from the secret (64 bits of its hash). Such guests' games keep
// their names; new guests are numbered by the server (GuestNumbered).
func GuestOf(secret string) ID {
	sum := sha256.Sum256([]byte("kalah guest\x00" + secret))
	return ID{Kind: Guest, Name: GuestPrefix + hex.EncodeToString(sum[:8])}
}

// GuestNumbered returns the guest the server numbered n ("guest-17"): the
// server never gives a number twice, so the name is that guest's alone,
// and no person or bot may take it (GuestPrefix is reserved).
func GuestNumbered(n int64) ID {
	return ID{Kind: Guest, Name: GuestPrefix + strconv.FormatInt(n, 10)}
}

// Display returns the name to show: the name itself, a guest's whole
// ("guest-17"; an older release's guest "guest-4f2a9c1b7d3e0a55": shown
// once as its first six digits, which numbered guests' names could equal).
func (id ID) Display() string { return id.Name }

// reservedWords are names nobody may register: the words the page and the
// protocols use for roles and for the server itself. (A bot may carry the
// name of the strategy it plays, such as "greedy": its seat says it is a
// bot, not the server's program.)
var reservedWords = []string{
	"admin", "administrator", "root", "system", "server", "kalah", "house", "moderator", "mod", "support",
	"you", "me", "guest", "guests", "anonymous", "anon", "nobody", "somebody", "someone", "human", "person", "people",
	"player", "opponent", "computer", "null", "none", "undefined",
}

// reservedPrefixes start names that belong to kinds of player, not to
// anyone who registers: guests, anonymous KGP clients, the house bots.
var reservedPrefixes = []string{GuestPrefix, "kgp-", "house-", "anon-"}

// Reserved reports whether name may not be registered by anyone.
func Reserved(name string) bool {
	sk := Skeleton(name)
	for _, w := range reservedWords {
		if sk == Skeleton(w) {
			return true
		}
	}
	for _, p := range reservedPrefixes {
		// A prefix keeps its '-': "kgp-" reserves kgp-x, not kgpx.
		if strings.HasPrefix(sk, fold(p)) || sk == Skeleton(p) {
			return true
		}
	}
	return false
}

// CheckName reports whether name may be registered for a person or a bot:
// 2 to 32 letters, digits, '-', '_' or '.', starting with a letter or a
// digit, and not reserved. Whether it is free is the store's to say.
func CheckName(name string) error {
	if len(name) < 2 || len(name) > 32 {
		return fmt.Errorf("%w: a name has 2 to 32 characters", ErrBadName)
	}
	for i, c := range name {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if !ok && (i == 0 || c != '-' && c != '_' && c != '.') {
			return fmt.Errorf("%w: a name is letters, digits, '-', '_' or '.', and starts with a letter or digit", ErrBadName)
		}
	}
	if Reserved(name) {
		return fmt.Errorf("%w: %q is kept for the server's own use; choose another", ErrReserved, name)
	}
	return nil
}

// Skeleton returns the form two names share when a reader could take one
// for the other: case is ignored, 0 reads as o, 1, i and | as l, '_' and
// '.' as '-', rn as m and vv as w, and punctuation at either end is not
// read at all ("alice." is alice). Two names with one skeleton cannot
// belong to two identities.
func Skeleton(name string) string {
	return strings.Trim(fold(name), "-")
}

// fold is Skeleton without the trimming of the ends.
func fold(name string) string {
	var b strings.Builder
	for _, c := range strings.ToLower(name) {
		switch c {
		case '0':
			c = 'o'
		case '1', 'i', '|':
			c = 'l'
		case '_', '.':
			c = '-'
		}
		b.WriteRune(c)
	}
	s := b.String()
	s = strings.ReplaceAll(s, "rn", "m")
	s = strings.ReplaceAll(s, "vv", "w")
	return s
}

// CleanText makes text safe to pass on to others, over any protocol: no
// control or formatting characters (line breaks, bidirectional overrides,
// zero-width characters), invalid UTF-8 replaced, runs of spaces made
// one, at most max runes (0: no limit).
func CleanText(s string, max int) string {
	var b strings.Builder
	space := false
	n := 0
	for _, c := range strings.ToValidUTF8(s, "\uFFFD") {
		switch {
		case unicode.IsSpace(c):
			space = true
			continue
		case unicode.IsControl(c), unicode.Is(unicode.Cf, c):
			continue
		}
		gap := space && b.Len() > 0
		if max > 0 && (n >= max || gap && n+2 > max) {
			break
		}
		if gap {
			b.WriteByte(' ')
			n++
		}
		space = false
		b.WriteRune(c)
		n++
	}
	return b.String()
}
