// Package dist solves a position exactly on many machines with NATS
// JetStream, the server the tournaments use (package tournament/dist starts
// an embedded one).
//
// # The proof
//
// The coordinator expands the game tree from the root a fixed number of
// moves (Plies), sharing transpositions; the positions at the bottom are the
// leaves. Like MTD(f) it then tests the root at a gamma ("is the value at
// least gamma?") until a test succeeds at the value and one fails just above
// it. A root test becomes tests of leaves, each at its own gamma (an extra
// turn keeps the side, so gamma moves by the store change; a passed turn
// negates it). Where a shallow estimate says the test succeeds, one move is
// followed (one proof suffices; more when workers would idle); where it
// says it fails, all. Each leaf test is a job: a null-window search without
// a depth limit (engine.Engine.Test) whose fail-soft bound often decides
// other tests too. After every result the bounds are backed up to the root
// and the set of needed jobs recomputed: jobs that are no longer needed are
// withdrawn from the queue.
//
// # NATS
//
// Jobs are published on the work-queue stream KALAH_SOLVE_JOBS (subject
// kalah.solve.jobs.<id>, the id a hash of the rules, position and plies)
// and taken by the durable consumer "solvers": by Worker slots in "kalah
// worker" processes beside their tournament games, or in the coordinator's
// own process. A worker tells the server it is still working every
// AckWait/3; one that dies stops, and after AckWait the job goes to another
// worker. Results are put in the key-value bucket KALAH_SOLVE under
// <id>.<leaf>.<gamma> before the job is acknowledged; the coordinator
// watches the bucket. The bucket (file storage) is the coordinator's whole
// state: a coordinator that stops and starts again on the same problem
// reads every finished result back and publishes only what is still
// needed, so no finished job is done twice.
package dist

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"kalah"
)

// Stream, consumer, bucket and subject names.
const (
	JobsStream     = "KALAH_SOLVE_JOBS"
	SolverConsumer = "solvers"
	Bucket         = "KALAH_SOLVE"
	jobsSubject    = "kalah.solve.jobs."
)

// DefaultAckWait is how long a job may go without a sign of life from its
// worker before it is given to another.
const DefaultAckWait = 30 * time.Second

// job is a leaf test on the wire.
type job struct {
	Solve    string      `json:"solve"`
	Key      string      `json:"key"` // where the result goes in the bucket
	Rules    kalah.Rules `json:"rules"`
	Position string      `json:"position"`
	Gamma    int         `json:"gamma"`
}

// result is a leaf test's answer in the bucket.
type result struct {
	Value  int    `json:"value"`
	Lower  bool   `json:"lower"`
	Exact  bool   `json:"exact,omitempty"`
	Nodes  uint64 `json:"nodes"`
	Millis int64  `json:"ms"`
	Worker string `json:"worker"`
}

// setup creates the stream, the workers' consumer and the bucket if they
// are missing. Both keep their data on disk, so that a NATS server with a
// store directory survives its own restart with the solve's state.
func setup(ctx context.Context, js jetstream.JetStream, ackWait time.Duration) (jetstream.KeyValue, error) {
	if _, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name: JobsStream, Subjects: []string{jobsSubject + ">"}, Retention: jetstream.WorkQueuePolicy, Storage: jetstream.FileStorage,
	}); err != nil {
		return nil, fmt.Errorf("nats stream %s: %w", JobsStream, err)
	}
	if _, err := js.CreateOrUpdateConsumer(ctx, JobsStream, jetstream.ConsumerConfig{
		Durable:       SolverConsumer,
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       ackWait,
		MaxDeliver:    -1,
		MaxAckPending: 100000,
	}); err != nil {
		return nil, fmt.Errorf("nats consumer %s: %w", SolverConsumer, err)
	}
	kv, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: Bucket, Storage: jetstream.FileStorage, History: 1})
	if err != nil {
		return nil, fmt.Errorf("nats bucket %s: %w", Bucket, err)
	}
	return kv, nil
}

// ID returns the name of the solve of p under rules r split at plies moves:
// the same problem always gets the same id, so a coordinator started again
// finds its results.
func ID(r kalah.Rules, p kalah.Position, plies int) string {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s|%s|%d", r, canonical(&r, p), plies)
	return fmt.Sprintf("%016x", h.Sum64())
}

// Clear deletes every stored result of the solve id (to measure a solve
// again from scratch).
func Clear(ctx context.Context, js jetstream.JetStream, id string) error {
	kv, err := js.KeyValue(ctx, Bucket)
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	keys, err := kv.ListKeysFiltered(ctx, id+".>")
	if err != nil {
		return err
	}
	for k := range keys.Keys() {
		if err := kv.Purge(ctx, k); err != nil {
			return err
		}
	}
	return nil
}

func decodeJob(data []byte) (job, error) {
	var j job
	if err := json.Unmarshal(data, &j); err != nil {
		return j, err
	}
	if j.Key == "" || j.Solve == "" || len(j.Key) <= len(j.Solve) || j.Key[:len(j.Solve)] != j.Solve {
		return j, fmt.Errorf("job without a proper key (%q for solve %q)", j.Key, j.Solve)
	}
	if err := j.Rules.Validate(); err != nil {
		return j, err
	}
	return j, nil
}
