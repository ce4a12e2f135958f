package netx

import (
	"crypto/tls"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

func TestClientOnlyFromTrustedProxies(t *testing.T) {
	p, err := ParseProxies("10.0.0.0/8", "192.168.1.5", "fd00::/8")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, peer, xff, proto string
		tls                    bool
		want                   string
		https                  bool
	}{
		{"a stranger's word is ignored", "203.0.113.7:5000", "198.51.100.1", "https", false, "203.0.113.7", false},
		{"a stranger on TLS", "203.0.113.7:5000", "", "", true, "203.0.113.7", true},
		{"the proxy names the client", "10.1.2.3:80", "198.51.100.1", "https", false, "198.51.100.1", true},
		{"a single trusted address", "192.168.1.5:80", "198.51.100.1", "http", false, "198.51.100.1", false},
		{"an untrusted neighbour of the single address", "192.168.1.6:80", "198.51.100.1", "https", false, "192.168.1.6", false},
		{"a forged left end is skipped", "10.1.2.3:80", "6.6.6.6, 198.51.100.1", "", false, "198.51.100.1", false},
		{"a chain of proxies", "10.1.2.3:80", "198.51.100.1, 10.9.9.9", "https", false, "198.51.100.1", true},
		{"all trusted: the left end", "10.1.2.3:80", "10.7.7.7, 10.9.9.9", "", false, "10.7.7.7", false},
		{"no header: the proxy itself", "10.1.2.3:80", "", "", false, "10.1.2.3", false},
		{"garbage stops the walk", "10.1.2.3:80", "198.51.100.1, junk", "", false, "10.1.2.3", false},
		{"IPv6 proxy", "[fd00::1]:80", "2001:db8::5", "https", false, "2001:db8::5", true},
		{"IPv4 mapped peer", "[::ffff:10.1.2.3]:80", "198.51.100.1", "", false, "198.51.100.1", false},
		{"the nearest proxy's proto wins", "10.1.2.3:80", "198.51.100.1", "http, https", false, "198.51.100.1", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/", nil)
			r.RemoteAddr = tc.peer
			if tc.xff != "" {
				r.Header.Set("X-Forwarded-For", tc.xff)
			}
			if tc.proto != "" {
				r.Header.Set("X-Forwarded-Proto", tc.proto)
			}
			if tc.tls {
				r.TLS = &tls.ConnectionState{}
			}
			got, https := p.Client(r)
			if got != tc.want || https != tc.https {
				t.Errorf("Client = %s, https %v; want %s, %v", got, https, tc.want, tc.https)
			}
			var seen string
			var seenHTTPS bool
			h := p.RealClients(p.RealClients(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				seen, seenHTTPS = Host(r), HTTPS(r)
			})))
			h.ServeHTTP(httptest.NewRecorder(), r)
			if seen != tc.want || seenHTTPS != tc.https {
				t.Errorf("through RealClients (twice): %s, https %v; want %s, %v", seen, seenHTTPS, tc.want, tc.https)
			}
		})
	}
}

func TestParseProxiesRefusesGarbage(t *testing.T) {
	for _, bad := range []string{"10.0.0.0/33", "example.com", "10.0.0"} {
		if _, err := ParseProxies(bad); err == nil {
			t.Errorf("ParseProxies(%q) accepted", bad)
		}
	}
}

func TestAddrKeyGroupsIPv6By64(t *testing.T) {
	for in, want := range map[string]string{
		"198.51.100.1:443":           "198.51.100.1",
		"[2001:db8:1:2:3:4:5:6]:443": "2001:db8:1:2::/64",
		"2001:db8:1:2:ffff::1":       "2001:db8:1:2::/64",
		"[::ffff:198.51.100.1]:1":    "198.51.100.1",
		"not an address":             "not an address",
	} {
		if got := AddrKey(in); got != want {
			t.Errorf("AddrKey(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestLimiterPerKeyAndForgetsIdleKeys(t *testing.T) {
	l := NewLimiter(2, 3) // 2 a second, bursts of 3: full again after 1.5 s
	now := time.Unix(1000, 0)
	for i := range 3 {
		if !l.AllowAt("a", now) {
			t.Fatalf("token %d of the burst refused", i+1)
		}
	}
	if l.AllowAt("a", now) {
		t.Fatal("a fourth at once allowed beyond the burst of 3")
	}
	if !l.AllowAt("b", now) {
		t.Fatal("another key shares the first one's bucket")
	}
	if !l.AllowAt("a", now.Add(500*time.Millisecond)) {
		t.Fatal("no token back after half a second at 2 a second")
	}
	for i := range 1000 {
		l.AllowAt(net.IPv4(10, 0, byte(i>>8), byte(i)).String(), now.Add(time.Second))
	}
	if n := l.Len(); n < 1000 {
		t.Fatalf("%d keys held while they are active, want all 1002", n)
	}
	l.AllowAt("late", now.Add(10*time.Second))
	if n := l.Len(); n != 1 {
		t.Fatalf("%d keys held after every other key idled past its refill time, want 1", n)
	}
	if !NewLimiter(0, 0).Allow("x") {
		t.Fatal("a limiter of rate 0 (no limit) refused")
	}
}

// dialFrom connects to addr from the loopback address from (127.0.0.x):
// another client, as far as the server can tell.
func dialFrom(t *testing.T, from, addr string) (net.Conn, error) {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Timeout: 2 * time.Second}
	return d.Dial("tcp", addr)
}

func TestGuardCapsEachAddress(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	exempt, _ := ParseProxies("127.0.0.3")
	g := GuardWith(l, Caps{Max: 100, PerAddr: 3, Exempt: exempt}, nil, "test")
	defer g.Close()
	accepted := make(chan net.Conn, 100)
	go func() {
		for {
			c, err := g.Accept()
			if err != nil {
				close(accepted)
				return
			}
			accepted <- c
		}
	}()
	var held []net.Conn
	defer func() {
		for _, c := range held {
			c.Close()
		}
	}()
	take := func(from string) net.Conn {
		c, err := dialFrom(t, from, l.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
		return c
	}
	// An address at its cap has its next connection closed at once.
	for range 3 {
		take("127.0.0.1")
		<-accepted
	}
	over := take("127.0.0.1")
	over.SetReadDeadline(time.Now().Add(2 * time.Second))
	if _, err := over.Read(make([]byte, 1)); err == nil {
		t.Fatal("a fourth connection from one address stayed open over a cap of 3")
	} else if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatal("a fourth connection from one address was left open (read timed out) over a cap of 3")
	}
	// Another address still gets in, and so does the exempt proxy, past 3.
	take("127.0.0.2")
	select {
	case <-accepted:
	case <-time.After(2 * time.Second):
		t.Fatal("another address was not accepted while the first was at its cap")
	}
	for range 5 {
		take("127.0.0.3")
		select {
		case <-accepted:
		case <-time.After(2 * time.Second):
			t.Fatal("the exempt proxy was held to the per-address cap")
		}
	}
	if g.Refused() != 1 || g.Open() != 3+1+5 {
		t.Fatalf("refused %d, open %d; want 1 and 9", g.Refused(), g.Open())
	}
}
