package main

import (
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestServeTLSHandshakeFailures: with --tls-cert, clients that fail the
// TLS handshake (plain HTTP on the TLS port) are counted in
// kalah_tls_handshake_failures_total, one each, and the log has a line
// about their address once, not one a failure.
func TestServeTLSHandshakeFailures(t *testing.T) {
	const tries = 12
	cert, key, _ := testCert(t)
	s := startServe(t, "--tls-cert", cert, "--tls-key", key, "--metrics-addr", "127.0.0.1:0")
	metrics := readyAddr(t, "metrics")
	for range tries {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", s.httpPort))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		var b [512]byte
		for {
			if _, err := c.Read(b[:]); err != nil {
				break
			}
		}
		c.Close()
	}
	var counted float64
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		code, page := getBody(t, http.DefaultClient, "http://"+metrics+"/metrics")
		if code != http.StatusOK {
			t.Fatalf("/metrics: %d", code)
		}
		if counted = metricValue(page, "kalah_tls_handshake_failures_total"); counted >= tries || time.Now().After(deadline) {
			break
		}
	}
	if counted != tries {
		t.Errorf("kalah_tls_handshake_failures_total = %v after %d failed handshakes", counted, tries)
	}
	if n := strings.Count(s.log.String(), "TLS handshake"); n != 1 {
		t.Errorf("%d log lines about %d failed handshakes from one address, want 1:\n%s", n, tries, s.log.String())
	}
}
