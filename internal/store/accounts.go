package store

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/crypto/argon2"

	"kalah/internal/cores"
	"kalah/internal/identity"
)

// Errors of accounts, matched with errors.Is.
var (
	ErrNameTaken   = errors.New("name taken")
	ErrBadPassword = errors.New("wrong name or password")
	ErrNoSession   = errors.New("not signed in")
	ErrBadAccount  = errors.New("invalid account")
)

// Password hashing: argon2id with OWASP's suggested cost (19 MiB, two
// passes), a 16-byte salt a user.
const (
	argonTime   = 2
	argonMemory = 19 * 1024
	argonKey    = 32
)

// DefaultHashers is how many password hashes a Store computes at once
// unless SetHashers says otherwise. Each takes argonMemory (19 MiB) while
// it runs: a flood of sign-ups waits its turn instead of taking the
// machine's memory (48 at once took 0.9 GB of live heap, and the garbage
// collector let it grow to several times that).
var DefaultHashers = min(max(cores.N(), 2), 4)

// ErrHashBusy is returned when a sign-up, a sign-in or a bot's token
// (a login, a new bot, a new token) waited for a free hasher until its
// context ended.
var ErrHashBusy = errors.New("too many sign-ins at once; try again in a moment")

// SetHashers sets how many password hashes the store computes at once
// (n < 1: DefaultHashers). Call it before the store is used.
func (s *Store) SetHashers(n int) {
	if n < 1 {
		n = DefaultHashers
	}
	s.hashers = make(chan struct{}, n)
}

// hashPassword derives a password's hash in one of the store's hashers,
// waiting for one as long as ctx allows.
func (s *Store) hashPassword(ctx context.Context, password string, salt []byte) ([]byte, error) {
	return hashIn(ctx, s.hashers, func() []byte {
		return argon2.IDKey([]byte(password), salt, argonTime, argonMemory, 1, argonKey)
	})
}

// hashIn runs hash once one of the places of sem is free, waiting as
// long as ctx allows (ErrHashBusy, wrapping ctx's error, then).
func hashIn(ctx context.Context, sem chan struct{}, hash func() []byte) ([]byte, error) {
	select {
	case sem <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("%w (%w)", ErrHashBusy, ctx.Err())
	}
	defer func() { <-sem }()
	return hash(), nil
}

// ValidUserName reports whether name may name a new account or bot:
// identity.CheckName (2 to 32 letters, digits, '-', '_' or '.', starting
// with a letter or digit, not reserved).
func ValidUserName(name string) error {
	if err := identity.CheckName(name); err != nil {
		return fmt.Errorf("%w: %w", ErrBadAccount, err)
	}
	return nil
}

// claimName takes name for a new person or bot in the one name space of
// both, or fails with ErrNameTaken if it, or a name a reader could take
// for it (identity.Skeleton), belongs to someone.
func claimName(tx *Tx, name string, kind identity.Kind) error {
	var owner string
	err := tx.QueryRow(`SELECT name FROM names WHERE skeleton=?`, identity.Skeleton(name)).Scan(&owner)
	switch {
	case err == nil:
		if strings.EqualFold(owner, name) {
			return fmt.Errorf("%w: %s", ErrNameTaken, name)
		}
		return fmt.Errorf("%w: %s is too like %s, which is taken", ErrNameTaken, name, owner)
	case !errors.Is(err, sql.ErrNoRows):
		return err
	}
	_, err = tx.Exec(`INSERT INTO names(skeleton, kind, name) VALUES(?,?,?)`, identity.Skeleton(name), string(kind), name)
	return err
}

// Identity returns the person or bot whose name this is, whatever its
// case, or ErrNotFound.
func (s *Store) Identity(ctx context.Context, name string) (identity.ID, error) {
	var kind, canon string
	// A name kept from before skeletons dropped the punctuation at their
	// ends, too like another (migrateSkeletons), is under its old one.
	err := s.queryRow(ctx, `SELECT kind, name FROM names WHERE skeleton IN (?, ?) AND name=? COLLATE NOCASE`,
		identity.Skeleton(name), untrimmedSkeleton(name), name).Scan(&kind, &canon)
	if errors.Is(err, sql.ErrNoRows) {
		return identity.ID{}, fmt.Errorf("%w: no player %q", ErrNotFound, name)
	}
	if err != nil {
		return identity.ID{}, fmt.Errorf("store: player %q: %w", name, err)
	}
	return identity.Of(identity.Kind(kind), canon), nil
}

// BotOwner returns the account that owns bot name, or "" for a bot that
// registered itself by its first login.
func (s *Store) BotOwner(ctx context.Context, name string) (string, error) {
	cached, ok, gen := s.owners.get(name)
	if ok {
		return cached, nil
	}
	var owner sql.NullString
	err := s.queryRow(ctx, `SELECT owner FROM bots WHERE name=? COLLATE NOCASE`, name).Scan(&owner)
	if errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("%w: no bot %q", ErrNotFound, name)
	}
	if err != nil {
		return "", fmt.Errorf("store: bot %q: %w", name, err)
	}
	s.owners.put(name, owner.String, gen)
	return owner.String, nil
}

// ValidPassword reports whether a password is acceptable: 8 to 256 bytes
// of text.
func ValidPassword(password string) error {
	switch {
	case len(password) < 8:
		return fmt.Errorf("%w: a password has at least 8 characters", ErrBadAccount)
	case len(password) > 256:
		return fmt.Errorf("%w: a password has at most 256 bytes", ErrBadAccount)
	case !utf8.ValidString(password):
		return fmt.Errorf("%w: a password is text (UTF-8)", ErrBadAccount)
	}
	return nil
}

// CreateUser makes an account. People and bots share one name space:
// a name is refused if it, or one a reader could take for it, is taken.
func (s *Store) CreateUser(ctx context.Context, name, password string) error {
	if err := ValidUserName(name); err != nil {
		return err
	}
	if err := ValidPassword(password); err != nil {
		return err
	}
	salt := make([]byte, 16)
	rand.Read(salt)
	hash, err := s.hashPassword(ctx, password, salt)
	if err != nil {
		return err
	}
	return s.write(ctx, func(tx *Tx) error {
		if err := claimName(tx, name, identity.Person); err != nil {
			return err
		}
		_, err := tx.Exec(`INSERT INTO users(name, salt, hash, created) VALUES(?,?,?,?)`, name, salt, hash, time.Now().UnixMilli())
		return err
	})
}

// CheckPassword returns the account's name as stored if the password is
// right, ErrBadPassword otherwise (for an unknown name too, after the same
// work, so the answer does not tell which names exist).
func (s *Store) CheckPassword(ctx context.Context, name, password string) (string, error) {
	var stored string
	var salt, hash []byte
	err := s.queryRow(ctx, `SELECT name, salt, hash FROM users WHERE name=?`, name).Scan(&stored, &salt, &hash)
	if errors.Is(err, sql.ErrNoRows) {
		if _, err := s.hashPassword(ctx, password, make([]byte, 16)); err != nil {
			return "", err
		}
		return "", ErrBadPassword
	}
	if err != nil {
		return "", fmt.Errorf("store: user: %w", err)
	}
	got, err := s.hashPassword(ctx, password, salt)
	if err != nil {
		return "", err
	}
	if subtle.ConstantTimeCompare(got, hash) != 1 {
		return "", ErrBadPassword
	}
	return stored, nil
}

func sessionID(token string) []byte {
	h := sha256.Sum256([]byte("kalah session\x00" + token))
	return h[:]
}

// NewSession starts a session for user that lasts ttl and returns its
// token (for a cookie); only its hash is stored.
func (s *Store) NewSession(ctx context.Context, user string, ttl time.Duration) (string, error) {
	b := make([]byte, 32)
	rand.Read(b)
	token := hex.EncodeToString(b)
	now := time.Now()
	err := s.write(ctx, func(tx *Tx) error {
		_, err := tx.Exec(`INSERT INTO sessions(id, user, created, expires) VALUES(?,?,?,?)`, sessionID(token), user, now.UnixMilli(), now.Add(ttl).UnixMilli())
		return err
	})
	return token, err
}

// SessionUser returns the user of a live session, or ErrNoSession.
func (s *Store) SessionUser(ctx context.Context, token string) (string, error) {
	if token == "" {
		return "", ErrNoSession
	}
	var user string
	var expires int64
	err := s.queryRow(ctx, `SELECT user, expires FROM sessions WHERE id=?`, sessionID(token)).Scan(&user, &expires)
	if errors.Is(err, sql.ErrNoRows) || err == nil && time.Now().UnixMilli() >= expires {
		return "", ErrNoSession
	}
	if err != nil {
		return "", fmt.Errorf("store: session: %w", err)
	}
	return user, nil
}

// EndSession signs a session out.
func (s *Store) EndSession(ctx context.Context, token string) error {
	return s.write(ctx, func(tx *Tx) error {
		_, err := tx.Exec(`DELETE FROM sessions WHERE id=? OR expires<?`, sessionID(token), time.Now().UnixMilli())
		return err
	})
}

// CreateBot makes a bot owned by user and returns its token, which is
// shown once: only its hashes are kept. The token logs the bot in on the
// line protocol (login NAME TOKEN), over KGP (set auth:token) and over HTTP
// (Authorization: Bearer).
func (s *Store) CreateBot(ctx context.Context, owner, name string) (string, error) {
	if err := ValidUserName(name); err != nil {
		return "", err
	}
	b := make([]byte, 24)
	rand.Read(b)
	token := hex.EncodeToString(b)
	salt, hash := newCredential(token)
	err := s.write(ctx, func(tx *Tx) error {
		if err := claimName(tx, name, identity.Bot); err != nil {
			return err
		}
		_, err := tx.Exec(`INSERT INTO bots(name, salt, hash, created, lookup, owner) VALUES(?,?,?,?,?,?)`, name, salt, hash, time.Now().UnixMilli(), tokenLookup(token), owner)
		return err
	})
	return token, err
}

// BotsOf returns the names of the bots user owns.
func (s *Store) BotsOf(ctx context.Context, user string) ([]string, error) {
	rows, err := s.query(ctx, `SELECT name FROM bots WHERE owner=? ORDER BY name`, user)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, rows.Err()
}

// BearerBot returns the bot an HTTP bearer token stands for.
func (s *Store) BearerBot(ctx context.Context, header string) (string, error) {
	token, ok := strings.CutPrefix(header, "Bearer ")
	if !ok || strings.TrimSpace(token) == "" {
		return "", ErrNoBot
	}
	return s.BotByToken(ctx, strings.TrimSpace(token))
}
