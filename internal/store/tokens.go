package store

import (
	"context"
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
)

// A bot's token is kept as a credential: a salt of its own and a hash,
// in one of two formats told apart by the hash's length.
//
//   - v1, 32 bytes: PBKDF2-HMAC-SHA256 of the token, 4,096 rounds. Stores
//     written before the v2 format hold it; a login that checks one
//     rewrites it as v2.
//   - v2, 33 bytes: the byte 2, then HMAC-SHA256 of the token keyed by
//     the salt. Every credential written now is v2.
//
// Why v2 is one hash, not 4,096: a bot that has logged in also has its
// token's lookup (tokenLookup, one unsalted SHA-256, by which a token
// alone finds its bot: KGP's auth:token, HTTP's bearer). Whoever holds
// the database guesses tokens against the lookup at one hash a guess, so
// a credential 4,096 times dearer protected nothing more, and it cost a
// millisecond of a core a first login: 1,500 new bots a second took 1.7
// of a 2-core server's cores, and the games in play waited behind them.
// A token is a program's secret, not a word a person remembers: those the
// server makes are 24 random bytes, and docs/PROTOCOL.md asks authors who
// pick their own for as many. People's passwords keep a slow hash (argon2id).
const (
	tokenV1Len  = 32
	tokenV2     = 2
	tokenV2Len  = 1 + sha256.Size
	tokenV1Iter = 4096
)

// newCredential returns a fresh salt and token's v2 hash.
func newCredential(token string) (salt, hash []byte) {
	salt = make([]byte, 16)
	rand.Read(salt)
	return salt, tokenHash(token, salt)
}

// tokenHash is a token's v2 hash under salt.
func tokenHash(token string, salt []byte) []byte {
	m := hmac.New(sha256.New, salt)
	m.Write([]byte(token))
	return m.Sum([]byte{tokenV2})
}

// tokenHashV1 is a token's v1 hash under salt (PBKDF2).
func tokenHashV1(token string, salt []byte) []byte {
	h, err := pbkdf2.Key(sha256.New, token, salt, tokenV1Iter, tokenV1Len)
	if err != nil {
		panic(err) // only for impossible parameters
	}
	return h
}

// checkToken reports whether token is the one of the credential (salt,
// stored), and whether that credential is v1, to be rewritten as v2. A
// v1 credential is checked in one of the store's token hashers, waiting
// as long as ctx allows (ErrHashBusy then); a credential of neither
// format is an error, never a match.
func (s *Store) checkToken(ctx context.Context, token string, salt, stored []byte) (ok, old bool, err error) {
	switch {
	case len(stored) == tokenV2Len && stored[0] == tokenV2:
		return hmac.Equal(tokenHash(token, salt), stored), false, nil
	case len(stored) == tokenV1Len:
		h, err := hashIn(ctx, s.tokenHashers, func() []byte { return tokenHashV1(token, salt) })
		if err != nil {
			return false, true, err
		}
		return subtle.ConstantTimeCompare(h, stored) == 1, true, nil
	}
	return false, false, fmt.Errorf("a token credential of %d bytes is of no format this release knows", len(stored))
}
