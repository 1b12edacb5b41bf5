package bus

import (
	"context"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/rote-agent/rote/schema"
)

// Names of Rote's JetStream assets. Do not rename them.
const (
	StreamTasks     = "ROTE_TASKS"
	StreamRuns      = "ROTE_RUNS"
	BucketPlaybooks = "ROTE_PLAYBOOKS"
	BucketBlobs     = "ROTE_BLOBS"
)

// Settings of those assets.
const (
	DedupWindow      = 2 * time.Minute // how long a Nats-Msg-Id is remembered
	PlaybookVersions = 64              // KV history depth: the newest 64 versions of a playbook
)

// streamConfigs returns the stream configurations Rote needs, replicated
// replicas times; runsMeta is ROTE_RUNS's metadata (see signedFrom).
func streamConfigs(replicas int, runsMeta map[string]string) []jetstream.StreamConfig {
	return []jetstream.StreamConfig{
		{
			Name:        StreamTasks,
			Description: "Rote task requests: a work queue consumed by planners",
			Subjects:    []string{schema.SubjectTasks},
			Retention:   jetstream.WorkQueuePolicy,
			Storage:     jetstream.FileStorage,
			Duplicates:  DedupWindow,
			Replicas:    replicas,
		},
		{
			Name:        StreamRuns,
			Description: "Rote run log: every event of every run, append-only",
			Subjects:    []string{schema.SubjectAllRun},
			Retention:   jetstream.LimitsPolicy,
			Storage:     jetstream.FileStorage,
			Duplicates:  DedupWindow,
			DenyDelete:  true,
			DenyPurge:   true,
			AllowDirect: true,
			Replicas:    replicas,
			Metadata:    runsMeta,
		},
	}
}

func playbooksConfig(replicas int) jetstream.KeyValueConfig {
	return jetstream.KeyValueConfig{
		Bucket:      BucketPlaybooks,
		Description: "Rote playbooks by <fingerprint>.<name>; versions are the key's history",
		History:     PlaybookVersions,
		Storage:     jetstream.FileStorage,
		Replicas:    replicas,
	}
}

func blobsConfig(replicas int) jetstream.ObjectStoreConfig {
	return jetstream.ObjectStoreConfig{
		Bucket:      BucketBlobs,
		Description: "Rote payloads over 64 KiB, named by sha256 digest",
		Storage:     jetstream.FileStorage,
		Replicas:    replicas,
	}
}

// ensureTopology creates Rote's streams, bucket and object store, or
// updates them to the current configuration, and the role clients over
// them, which sign events with key (none when nil).
func (b *Bus) ensureTopology(ctx context.Context, replicas int, p patience, key []byte) error {
	runsMeta, from, err := signedFrom(ctx, b.js, key != nil)
	if err != nil {
		return err
	}
	for _, cfg := range streamConfigs(replicas, runsMeta) {
		if _, err := b.js.CreateOrUpdateStream(ctx, cfg); err != nil {
			return fmt.Errorf("bus: create stream %s: %w", cfg.Name, err)
		}
	}
	kv, err := b.js.CreateOrUpdateKeyValue(ctx, playbooksConfig(replicas))
	if err != nil {
		return fmt.Errorf("bus: create bucket %s: %w", BucketPlaybooks, err)
	}
	obj, err := b.js.CreateOrUpdateObjectStore(ctx, blobsConfig(replicas))
	if err != nil {
		return fmt.Errorf("bus: create object store %s: %w", BucketBlobs, err)
	}
	pub := &publisher{conn: b.conn, js: b.js, patience: p, log: b.log, key: key}
	b.runs = &RunLog{publisher: pub, blobs: obj, signedFrom: from}
	b.tasks = &TaskQueue{publisher: pub}
	b.playbooks = &PlaybookStore{kv: kv, patience: p}
	b.rpc = &RPC{conn: b.conn, log: b.log}
	b.browsers = &Browsers{rpc: b.rpc}
	return nil
}
