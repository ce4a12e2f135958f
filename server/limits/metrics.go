package limits

import (
	"math/bits"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are what an operator watches (Prometheus, on kalah serve's
// --metrics-addr only): the referee's time a move, games live,
// connections, store commits and WAL size, and refusals by reason. They
// live in a registry of the server's own, so servers in one process (tests)
// do not share counters.
type Metrics struct {
	Reg  *prometheus.Registry
	Move prometheus.Histogram
	// Confirm is a bot's move's whole time in the server (our line
	// protocol): from its line read to its confirmation written.
	Confirm  prometheus.Histogram
	refusals *prometheus.CounterVec
	tlsFails prometheus.Counter
}

// Sources are what the metrics read of the server, each when scraped: the
// games being played, the line protocol's connections, the store's
// commits, writes and WAL size, and the streams open of a kind.
type Sources struct {
	Live, Conns, Commits, Writes, WALSize func() float64
	// WriteWaits counts the writes to line-protocol connections that
	// waited for their client.
	WriteWaits func() float64
	Streams    func(kind string) int
}

// Refusal reasons counted in kalah_refusals_total.
var refusalReasons = []string{"streams", "streams-per-address", "streams-per-identity", "challenges", "login-rate",
	"open-games", "over-limits", "hashing-busy", "analysis-rate", "analysis-busy", "seeks", "chat-rate",
	"login-account", "signup-rate"}

// NewMetrics makes the metrics in a registry of their own, reading src.
func NewMetrics(src Sources) *Metrics {
	m := &Metrics{
		Reg: prometheus.NewRegistry(),
		Move: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "kalah_move_seconds",
			Help: "The referee's own time a move: from a move's arrival to the next player being asked (validating, storing, telling everyone).",
			// 50µs to about 6.5s, doubling.
			Buckets: prometheus.ExponentialBuckets(50e-6, 2, 18),
		}),
		Confirm: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "kalah_move_confirm_seconds",
			Help:    "A bot's move on our line protocol, from its line read off the connection to its confirmation written to the players: the server's whole share of what the bot waits, the wait for its round's loop included.",
			Buckets: prometheus.ExponentialBuckets(50e-6, 2, 18),
		}),
		refusals: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "kalah_refusals_total",
			Help: "Requests refused by a limit, by the limit's name.",
		}, []string{"reason"}),
		tlsFails: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "kalah_tls_handshake_failures_total",
			Help: "TLS handshakes that failed on the HTTP listener (scanners, plain HTTP on the TLS port); the log has at most a line a minute an address.",
		}),
	}
	for _, r := range refusalReasons {
		m.refusals.WithLabelValues(r) // every reason shows, at 0
	}
	gauge := func(name, help string, f func() float64) prometheus.Collector {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, f)
	}
	m.Reg.MustRegister(m.Move, m.Confirm, m.refusals, m.tlsFails,
		gauge("kalah_games_live", "Games being played.", src.Live),
		gauge("kalah_line_connections", "Connections on our line protocol, over TCP and WebSocket.", src.Conns),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "kalah_store_commits_total",
			Help: "Transactions the store committed (each a batch of writes)."}, src.Commits),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "kalah_store_writes_total",
			Help: "Writes the store committed (moves, games, sessions), in all batches."}, src.Writes),
		gauge("kalah_store_wal_bytes", "Size of the database's write-ahead log file.", src.WALSize),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "kalah_line_write_waits_total",
			Help: "Writes to line-protocol connections that waited for the client (a goroutine each): clients that fall behind, and WebSockets; TCP clients that read keep it still."}, src.WriteWaits),
	)
	for _, kind := range Kinds {
		m.Reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "kalah_streams_open",
			Help: "Long-lived requests open (event streams, WebSockets), by kind.", ConstLabels: prometheus.Labels{"kind": kind}},
			func() float64 { return float64(src.Streams(kind)) }))
	}
	return m
}

// Refused counts a refusal by reason.
func (m *Metrics) Refused(reason string) { m.refusals.WithLabelValues(reason).Inc() }

// TLSHandshakeFailed counts a failed TLS handshake.
func (m *Metrics) TLSHandshakeFailed() { m.tlsFails.Inc() }

// Stats counts the moves the referee timed and how long it took each,
// without a lock: a move adds to one atomic counter of a log-linear
// histogram (32 buckets a doubling, so a percentile is within 3%) and to
// the Prometheus histogram kalah_move_seconds.
type Stats struct {
	buckets [statBuckets]atomic.Uint64
	moves   atomic.Uint64
	prom    prometheus.Observer
}

// Log-linear buckets of nanoseconds: values below 2^statSub have a bucket
// each; above, each doubling is split into 2^statSub equal buckets. The
// last bucket holds 2^40 ns (18 minutes) and over.
const (
	statSub     = 5
	statMaxExp  = 40
	statBuckets = (statMaxExp-statSub+1)<<statSub + 1
)

func bucketOf(d time.Duration) int {
	v := uint64(max(d, 0))
	if v < 1<<statSub {
		return int(v)
	}
	e := bits.Len64(v) - 1 - statSub // v>>e is in [2^statSub, 2^(statSub+1))
	i := (e+1)<<statSub + int(v>>e) - 1<<statSub
	return min(i, statBuckets-1)
}

// bucketTime returns the least duration bucket i holds.
func bucketTime(i int) time.Duration {
	if i < 1<<statSub {
		return time.Duration(i)
	}
	e := i>>statSub - 1
	return time.Duration((uint64(1)<<statSub + uint64(i&(1<<statSub-1))) << e)
}

// SetProm makes every move added also observed by h.
func (st *Stats) SetProm(h prometheus.Observer) { st.prom = h }

// Add counts a move that took the referee d.
func (st *Stats) Add(d time.Duration) {
	st.buckets[bucketOf(d)].Add(1)
	st.moves.Add(1)
	if st.prom != nil {
		st.prom.Observe(d.Seconds())
	}
}

// Moves returns how many moves the referee was timed for: every move but
// the first of each game.
func (st *Stats) Moves() uint64 { return st.moves.Load() }

// Percentile returns the referee's own time a move at percentile q
// (0 < q <= 1): from a move's arrival to the next player being asked,
// including validating it, storing it and telling everyone; the least time
// of its bucket, within 3% of the true value.
func (st *Stats) Percentile(q float64) time.Duration {
	total := st.moves.Load()
	if total == 0 {
		return 0
	}
	want := uint64(q * float64(total))
	if want == 0 {
		want = 1
	}
	var n uint64
	for i := range st.buckets {
		n += st.buckets[i].Load()
		if n >= want {
			return bucketTime(i)
		}
	}
	return bucketTime(statBuckets - 1)
}

// Reset clears the counters (not the Prometheus histogram, which only
// grows).
func (st *Stats) Reset() {
	for i := range st.buckets {
		st.buckets[i].Store(0)
	}
	st.moves.Store(0)
}
