package accounts

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"kalah/internal/identity"
	"kalah/internal/netx"
)

// serverKeys are the server's secret keys, each read from the store (made
// there at first use) the first time it is needed, so a store that fails
// at that moment is asked again next time. Its lock guards nothing else.
type serverKeys struct {
	mu   sync.Mutex
	keys map[string][]byte
}

// key returns the server's secret called name.
func (s *Service) key(ctx context.Context, name string) ([]byte, error) {
	s.keys.mu.Lock()
	defer s.keys.mu.Unlock()
	if k, ok := s.keys.keys[name]; ok {
		return k, nil
	}
	k, err := s.st.Secret(ctx, name)
	if err != nil {
		return nil, err
	}
	if s.keys.keys == nil {
		s.keys.keys = map[string][]byte{}
	}
	s.keys.keys[name] = k
	return k, nil
}

// sign returns the MAC of msg under the server's key called name: 128
// bits, hex.
func (s *Service) sign(ctx context.Context, name, msg string) (string, error) {
	k, err := s.key(ctx, name)
	if err != nil {
		return "", err
	}
	m := hmac.New(sha256.New, k)
	m.Write([]byte(msg))
	return hex.EncodeToString(m.Sum(nil)[:16]), nil
}

// signed reports whether mac is msg's under the server's key called name.
func (s *Service) signed(ctx context.Context, name, msg, mac string) bool {
	want, err := s.sign(ctx, name, msg)
	return err == nil && hmac.Equal([]byte(want), []byte(mac))
}

// guestKeyName names the key that signs guests' cookies.
const guestKeyName = "guest-cookie"

// guestCookie returns the cookie value of guest number n: "N.MAC", the
// number signed with the server's key, so only the server makes one.
func (s *Service) guestCookie(ctx context.Context, n int64) (string, error) {
	num := strconv.FormatInt(n, 10)
	mac, err := s.sign(ctx, guestKeyName, "guest\x00"+num)
	if err != nil {
		return "", err
	}
	return num + "." + mac, nil
}

// GuestOf returns the guest a cookie value names, if this server issued
// it; a value it did not sign (made up, an older release's, another
// server's) names nobody.
func (s *Service) GuestOf(ctx context.Context, v string) (identity.ID, bool) {
	num, mac, ok := strings.Cut(v, ".")
	if !ok || len(num) > 19 || len(mac) != 32 {
		return identity.ID{}, false
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n <= 0 || strconv.FormatInt(n, 10) != num {
		return identity.ID{}, false
	}
	if !s.signed(ctx, guestKeyName, "guest\x00"+num, mac) {
		return identity.ID{}, false
	}
	return identity.GuestNumbered(n), true
}

// NewGuest numbers a new guest in the store and sets its cookie on w.
func (s *Service) NewGuest(w http.ResponseWriter, r *http.Request) (identity.ID, error) {
	ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
	defer cancel()
	n, err := s.st.NewGuest(ctx)
	if err != nil {
		return identity.ID{}, err
	}
	v, err := s.guestCookie(ctx, n)
	if err != nil {
		return identity.ID{}, err
	}
	http.SetCookie(w, &http.Cookie{Name: GuestCookie, Value: v, Path: "/", MaxAge: int(guestTTL / time.Second),
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: netx.HTTPS(r)})
	return identity.GuestNumbered(n), nil
}

// errGuest wraps a failure to name a new guest.
func errGuest(err error) error { return fmt.Errorf("cannot make you a guest now: %w", err) }
