package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/pprof"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"kalah/internal/netx"
	"kalah/server"
)

// operatorMux serves what an operator needs, on kalah serve's
// --metrics-addr only (never the public address): Prometheus /metrics (the
// server's, the Go runtime's, the process's), /healthz, and the profiles
// of net/http/pprof under /debug/pprof/.
func operatorMux(srv *server.Server) http.Handler {
	reg := srv.Metrics()
	// The scheduler's metrics too: go_sched_latencies_seconds, how long
	// goroutines wait to run once runnable, is the part of a move's time
	// that kalah_move_confirm_seconds cannot see (a bot's reader waiting
	// for a core after the network woke it).
	reg.MustRegister(collectors.NewGoCollector(collectors.WithGoCollectorRuntimeMetrics(collectors.MetricsScheduler)),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg}))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		if err := srv.Healthy(ctx); err != nil {
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprintf(w, "unhealthy: %v\n", err)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	// Registered here by hand: importing net/http/pprof also registers
	// them on http.DefaultServeMux, which nothing of ours serves.
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return mux
}

// watchListener adds a listener's open connections and its refusals over
// the per-address cap to the server's metrics.
func watchListener(reg *prometheus.Registry, what string, g *netx.Guarded) {
	labels := prometheus.Labels{"listener": what}
	reg.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "kalah_connections_open", ConstLabels: labels,
			Help: "Connections open on a listener (http: the page, the API, WebSockets; bots: our line protocol; kgp: KGP over TCP)."},
			func() float64 { return float64(g.Open()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "kalah_connections_refused_total", ConstLabels: labels,
			Help: "Connections closed at once for being over the cap of one client address."},
			func() float64 { return float64(g.Refused()) }),
	)
}
