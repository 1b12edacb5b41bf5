package bus

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/nats-io/nats.go/jetstream"
)

// The run log is append-only: nobody may delete or purge from it. So
// what bounds it is what a stream refuses: a message over MaxEventBytes,
// and, once the log holds its max_bytes, every new one (discard new: the
// publisher is told the log is full, and nothing stored is dropped). The
// same holds for the task queue, the playbook store and the blobs, each
// with its own bound.
//
// Limits are also how an owner could erase history (a max_msgs of 5
// drops all but the last five events), so Rote records in ROTE_RUNS's
// metadata the limits it set and how many events the log had lost when
// it last looked (none), and each start of a process of user rote
// refuses a log whose limits or losses differ (ErrLogTampered), until an
// owner accepts what is there (Config.AcceptLogChanges, rote audit
// --store --accept).

// Message bounds.
const (
	MaxEventBytes    = 1 << 20 // one run event; larger payloads go to the blobs
	MaxTaskBytes     = 256 << 10
	MaxPlaybookBytes = 1 << 20 // as schema's playbook limit
)

// storeSizes are the max_bytes of Rote's streams. A new store takes its
// share of what the server may store (JetStream reserves each stream's
// max_bytes out of it): two fifths each for the run log and the blobs, a
// fiftieth (at most 256 MiB) each for tasks, playbooks and site memory. A store that
// has them keeps them; Config.RunsMaxBytes and BlobsMaxBytes set them.
type storeSizes struct {
	runs, blobs, tasks, playbooks, sites int64
}

// defaultSizes divides budget, the bytes the server may store.
func defaultSizes(budget int64) storeSizes {
	small := min(256<<20, budget/50)
	return storeSizes{runs: budget * 2 / 5, blobs: budget * 2 / 5, tasks: small, playbooks: small, sites: small}
}

// fallbackBudget is assumed of a server that says no limit of its own.
const fallbackBudget = 16 << 30

// sized is the max_bytes of a stream: the one configured, else the one
// it has (a positive one Rote set), else the default.
func sized(configured, existing, def int64) int64 {
	switch {
	case configured > 0:
		return configured
	case existing > 0:
		return existing
	}
	return def
}

// ErrLogTampered means ROTE_RUNS's limits were changed outside Rote, or
// it lost events, since Rote last set and checked them.
var ErrLogTampered = errors.New("bus: the run log was changed outside Rote")

// ErrStoreFull means a stream holds all it may: the event was refused.
var ErrStoreFull = errors.New("bus: the store is full")

// Metadata keys on ROTE_RUNS: the limits Rote set, and the first
// sequence and count of deleted messages it last accepted.
const (
	limitsKey  = "rote-limits"
	firstKey   = "rote-first-seq"
	deletedKey = "rote-deleted"
)

// legacyLimits are the limits of a log made before Rote set any.
const legacyLimits = "max_msgs=-1 max_bytes=-1 max_age=0s max_msg_size=-1 max_msgs_per_subject=-1 discard=old deny_delete=true deny_purge=true"

// limitsOf renders the limits of a stream configuration that bound or
// erase what it keeps.
func limitsOf(c jetstream.StreamConfig) string {
	return fmt.Sprintf("max_msgs=%d max_bytes=%d max_age=%s max_msg_size=%d max_msgs_per_subject=%d discard=%s deny_delete=%t deny_purge=%t",
		c.MaxMsgs, c.MaxBytes, c.MaxAge, c.MaxMsgSize, c.MaxMsgsPerSubject, discardName(c.Discard), c.DenyDelete, c.DenyPurge)
}

func discardName(d jetstream.DiscardPolicy) string {
	if d == jetstream.DiscardNew {
		return "new"
	}
	return "old"
}

// checkLog compares ROTE_RUNS as it is with what Rote last recorded of
// it (in meta, which it updates): the same limits, and no event lost
// since. With accept, what is there is recorded as accepted instead.
// Errors wrap ErrLogTampered and say what changed.
func checkLog(info *jetstream.StreamInfo, meta map[string]string, accept bool) error {
	if info == nil {
		return nil // a new log
	}
	first, deleted := info.State.FirstSeq, uint64(info.State.NumDeleted)
	if info.State.LastSeq == 0 {
		first = 1 // nothing was ever stored
	}
	var problems []string
	if want, have := cmp.Or(meta[limitsKey], legacyLimits), limitsOf(info.Config); want != have {
		problems = append(problems, fmt.Sprintf("its limits are %s, where Rote set %s", changed(have, want), changed(want, have)))
	}
	if accepted := parseSeq(meta[firstKey], 1); first > accepted {
		problems = append(problems, fmt.Sprintf("its events %d to %d are gone (it starts at %d)", accepted, first-1, first))
	}
	if accepted := parseSeq(meta[deletedKey], 0); deleted > accepted {
		problems = append(problems, fmt.Sprintf("%d events inside it were deleted", deleted-accepted))
	}
	if len(problems) > 0 && !accept {
		return fmt.Errorf("%w: in ROTE_RUNS %s. Runs read from it may miss events (rote audit RUN checks one); to go on with the log as it is, its owner runs rote audit --store --accept", ErrLogTampered, strings.Join(problems, "; "))
	}
	meta[firstKey] = strconv.FormatUint(first, 10)
	meta[deletedKey] = strconv.FormatUint(deleted, 10)
	return nil
}

// changed is the fields of a (a limitsOf string) that differ from b.
func changed(a, b string) string {
	other := strings.Fields(b)
	var out []string
	for _, f := range strings.Fields(a) {
		if !strings.Contains(" "+strings.Join(other, " ")+" ", " "+f+" ") {
			out = append(out, f)
		}
	}
	return strings.Join(out, " ")
}

func parseSeq(s string, def uint64) uint64 {
	if n, err := strconv.ParseUint(s, 10, 64); err == nil {
		return n
	}
	return def
}

// LogState is what ROTE_RUNS holds and how it is bounded.
type LogState struct {
	Events, Bytes, MaxBytes int64
	FirstSeq, LastSeq       uint64
	// Limits are its limits (as limitsOf renders them), AsSet whether they
	// are those Rote set.
	Limits string
	AsSet  bool
}

// LogState reads ROTE_RUNS's state and limits.
func (b *Bus) LogState(ctx context.Context) (LogState, error) {
	s, err := b.js.Stream(ctx, StreamRuns)
	if err != nil {
		return LogState{}, fmt.Errorf("bus: %s: %w", StreamRuns, err)
	}
	info := s.CachedInfo()
	limits := limitsOf(info.Config)
	return LogState{Events: int64(info.State.Msgs), Bytes: int64(info.State.Bytes), MaxBytes: info.Config.MaxBytes,
		FirstSeq: info.State.FirstSeq, LastSeq: info.State.LastSeq, Limits: limits, AsSet: info.Config.Metadata[limitsKey] == limits}, nil
}
