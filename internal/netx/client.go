package netx

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// Proxies are the peers trusted to say who the client is: a reverse proxy
// in front of the server, whose X-Forwarded-For and X-Forwarded-Proto
// headers are read. From any other peer those headers are ignored, so a
// client cannot pose as another address to slip past a limit. The zero
// value trusts no one.
type Proxies struct {
	nets []netip.Prefix
}

// ParseProxies reads CIDR ranges ("10.0.0.0/8", "::1/128") or single
// addresses ("192.168.1.5").
func ParseProxies(cidrs ...string) (Proxies, error) {
	var p Proxies
	for _, c := range cidrs {
		c = strings.TrimSpace(c)
		if c == "" {
			continue
		}
		if !strings.Contains(c, "/") {
			a, err := netip.ParseAddr(c)
			if err != nil {
				return Proxies{}, fmt.Errorf("trusted proxy %q: want an address or a CIDR range such as 10.0.0.0/8", c)
			}
			a = a.Unmap()
			p.nets = append(p.nets, netip.PrefixFrom(a, a.BitLen()))
			continue
		}
		n, err := netip.ParsePrefix(c)
		if err != nil {
			return Proxies{}, fmt.Errorf("trusted proxy %q: want a CIDR range such as 10.0.0.0/8: %v", c, err)
		}
		if n.Addr().Is4In6() {
			n = netip.PrefixFrom(n.Addr().Unmap(), max(n.Bits()-96, 0))
		}
		p.nets = append(p.nets, n.Masked())
	}
	return p, nil
}

// Trusted reports whether a is one of the proxies.
func (p Proxies) Trusted(a netip.Addr) bool {
	a = a.Unmap()
	for _, n := range p.nets {
		if n.Contains(a) {
			return true
		}
	}
	return false
}

// Len returns how many ranges are trusted.
func (p Proxies) Len() int { return len(p.nets) }

// Client returns r's client address (without a port) and whether the
// client's request came over HTTPS. A request from a trusted proxy is the
// client the proxy names: X-Forwarded-For is read from its right end, past
// every trusted proxy, to the first address that is not one (the left end,
// if all are); X-Forwarded-Proto's last value is the nearest proxy's word
// on the scheme. From any other peer, the peer is the client.
func (p Proxies) Client(r *http.Request) (addr string, https bool) {
	host := r.RemoteAddr
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	https = r.TLS != nil
	peer, err := netip.ParseAddr(host)
	if err != nil || !p.Trusted(peer) {
		return host, https
	}
	peer = peer.Unmap()
	client := peer
	var hops []string
	for _, v := range r.Header.Values("X-Forwarded-For") {
		hops = append(hops, strings.Split(v, ",")...)
	}
	for i := len(hops) - 1; i >= 0; i-- {
		a, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			break // a garbled hop: believe nothing beyond it
		}
		client = a.Unmap()
		if !p.Trusted(client) {
			break
		}
	}
	if protos := r.Header.Values("X-Forwarded-Proto"); len(protos) > 0 {
		parts := strings.Split(protos[len(protos)-1], ",")
		https = strings.EqualFold(strings.TrimSpace(parts[len(parts)-1]), "https")
	}
	return client.String(), https
}

type clientKey struct{}

// RealClients rewrites each request's RemoteAddr to its client's address
// (Client), so every limit keyed by address, and every log, sees the
// client rather than a proxy in front of the server, and remembers whether
// the client used HTTPS (HTTPS). A request it has seen already passes
// through unchanged, so handlers nested in one another may each apply it.
func (p Proxies) RealClients(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, done := r.Context().Value(clientKey{}).(bool); done {
			h.ServeHTTP(w, r)
			return
		}
		addr, https := p.Client(r)
		r2 := r.WithContext(context.WithValue(r.Context(), clientKey{}, https))
		if addr != hostOnly(r.RemoteAddr) {
			r2.RemoteAddr = net.JoinHostPort(addr, "0")
		}
		h.ServeHTTP(w, r2)
	})
}

// HTTPS reports whether r's client used HTTPS: the request came over TLS,
// or a trusted proxy said so (RealClients).
func HTTPS(r *http.Request) bool {
	if r.TLS != nil {
		return true
	}
	https, _ := r.Context().Value(clientKey{}).(bool)
	return https
}

// Host returns r's client address without the port: after RealClients,
// the real client's. Every limit keyed by address uses it (or Key).
func Host(r *http.Request) string { return hostOnly(r.RemoteAddr) }

// Key is the address a limit counts a client under: its address, or for
// IPv6 its /64 network, which one subscriber usually holds whole (a client
// could otherwise take a fresh address for every request).
func Key(r *http.Request) string { return AddrKey(Host(r)) }

// AddrKey is Key for an address given as text ("host" or "host:port").
func AddrKey(addr string) string {
	host := hostOnly(addr)
	a, err := netip.ParseAddr(host)
	if err != nil {
		return host
	}
	a = a.Unmap()
	if a.Is4() {
		return a.String()
	}
	return netip.PrefixFrom(a, 64).Masked().String()
}

func hostOnly(addr string) string {
	if h, _, err := net.SplitHostPort(addr); err == nil {
		return h
	}
	return addr
}
