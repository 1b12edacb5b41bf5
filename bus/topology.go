package bus

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/rote-agent/rote/schema"
)

// Names of Rote's JetStream assets. Do not rename them.
const (
	StreamTasks     = "ROTE_TASKS"
	StreamRuns      = "ROTE_RUNS"
	BucketPlaybooks = "ROTE_PLAYBOOKS"
	BucketSites     = "ROTE_SITES"
	BucketBlobs     = "ROTE_BLOBS"
)

// Settings of those assets.
const (
	DedupWindow      = 2 * time.Minute // how long a Nats-Msg-Id is remembered
	PlaybookVersions = 64              // KV history depth: the newest 64 versions of a playbook
	SiteVersions     = 16              // KV history depth of a site memory item
)

// streamConfigs returns the stream configurations Rote needs, replicated
// replicas times; runsMeta is ROTE_RUNS's metadata (see runsMetadata),
// to which it adds the limits it sets (limits.go). Both refuse what they
// have no room for (discard new): nothing stored is ever dropped.
func streamConfigs(replicas int, runsMeta map[string]string, sizes storeSizes) []jetstream.StreamConfig {
	runs := jetstream.StreamConfig{
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
		MaxMsgs:     -1, MaxMsgsPerSubject: -1, MaxBytes: sizes.runs, MaxMsgSize: MaxEventBytes, Discard: jetstream.DiscardNew,
		Metadata: runsMeta,
	}
	runsMeta[limitsKey] = limitsOf(runs)
	return []jetstream.StreamConfig{
		{
			Name:        StreamTasks,
			Description: "Rote task requests: a work queue consumed by planners",
			Subjects:    []string{schema.SubjectTasks},
			Retention:   jetstream.WorkQueuePolicy,
			Storage:     jetstream.FileStorage,
			Duplicates:  DedupWindow,
			Replicas:    replicas,
			MaxMsgs:     -1, MaxBytes: sizes.tasks, MaxMsgSize: MaxTaskBytes, Discard: jetstream.DiscardNew,
		},
		runs,
	}
}

// bucketConfig is a key-value store of Rote's: file-backed, replicated
// replicas times, at most maxBytes, each key's history depth versions.
func bucketConfig(bucket, description string, history uint8, replicas int, maxBytes int64) jetstream.KeyValueConfig {
	return jetstream.KeyValueConfig{
		Bucket:       bucket,
		Description:  description,
		History:      history,
		Storage:      jetstream.FileStorage,
		Replicas:     replicas,
		MaxBytes:     maxBytes,
		MaxValueSize: MaxPlaybookBytes,
	}
}

func blobsConfig(replicas int, maxBytes int64) jetstream.ObjectStoreConfig {
	return jetstream.ObjectStoreConfig{
		Bucket:      BucketBlobs,
		Description: "Rote payloads over 64 KiB, named by sha256 digest",
		Storage:     jetstream.FileStorage,
		Replicas:    replicas,
		MaxBytes:    maxBytes,
	}
}

// ensureTopology creates Rote's streams, bucket and object store, or
// updates them to the current configuration, and the role clients over
// them, which sign and check events with k. A role user, which may not
// change a stream, binds to them as they are (bindTopology).
func (b *Bus) ensureTopology(ctx context.Context, cfg Config, p patience, k *keyring, role bool) error {
	if role {
		return b.bindTopology(ctx, p, k)
	}
	replicas := cfg.Replicas
	runsMeta, runs, err := runsMetadata(ctx, b.js, k)
	if err != nil {
		return err
	}
	if err := checkLog(runs, runsMeta, cfg.AcceptLogChanges); err != nil {
		return err
	}
	sizes := b.storeSizes(ctx, cfg, runs)
	for _, cfg := range streamConfigs(replicas, runsMeta, sizes) {
		if _, err := b.js.CreateOrUpdateStream(ctx, cfg); err != nil {
			return fmt.Errorf("bus: create stream %s: %w", cfg.Name, err)
		}
	}
	kv, err := b.bucket(ctx, bucketConfig(BucketPlaybooks, "Rote playbooks by <fingerprint>.<name>; versions are the key's history", PlaybookVersions, replicas, sizes.playbooks))
	if err != nil {
		return err
	}
	sites, err := b.bucket(ctx, bucketConfig(BucketSites, "Rote site memory by <fingerprint>.<kind>.<name>: routines, facts, briefs", SiteVersions, replicas, sizes.sites))
	if err != nil {
		return err
	}
	obj, err := b.js.CreateOrUpdateObjectStore(ctx, blobsConfig(replicas, sizes.blobs))
	if err != nil {
		return fmt.Errorf("bus: create object store %s: %w", BucketBlobs, err)
	}
	b.clients(p, k, kv, sites, obj)
	return nil
}

// bucket creates a key-value store (the playbooks, site memory), or
// brings the one there to the current configuration, refusing a
// Nats-Rollup header: a rollup would let anyone who may write the store
// erase every version of every item but one. A key-value bucket is made
// allowing rollups, which only its purge needs, and Rote does not purge
// them; the one there is updated as a stream, so that it never allows
// them again on the way.
func (b *Bus) bucket(ctx context.Context, cfg jetstream.KeyValueConfig) (jetstream.KeyValue, error) {
	name := "KV_" + cfg.Bucket
	s, err := b.js.Stream(ctx, name)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		if _, err := b.js.CreateKeyValue(ctx, cfg); err != nil && !errors.Is(err, jetstream.ErrBucketExists) {
			return nil, fmt.Errorf("bus: create bucket %s: %w", cfg.Bucket, err)
		}
		s, err = b.js.Stream(ctx, name)
	}
	if err != nil {
		return nil, fmt.Errorf("bus: bucket %s: %w", cfg.Bucket, err)
	}
	have := s.CachedInfo().Config
	want := have
	want.Description, want.MaxMsgsPerSubject, want.Replicas, want.AllowRollup = cfg.Description, int64(cfg.History), cfg.Replicas, false
	want.MaxBytes, want.MaxMsgSize, want.Discard = cfg.MaxBytes, cfg.MaxValueSize, jetstream.DiscardNew
	if !reflect.DeepEqual(have, want) {
		if _, err := b.js.UpdateStream(ctx, want); err != nil {
			return nil, fmt.Errorf("bus: bucket %s: %w", cfg.Bucket, err)
		}
	}
	kv, err := b.js.KeyValue(ctx, cfg.Bucket)
	if err != nil {
		return nil, fmt.Errorf("bus: bucket %s: %w", cfg.Bucket, err)
	}
	return kv, nil
}

// storeSizes are the max_bytes Rote gives its streams (limits.go): the
// configured ones, those the streams have, or a share of what the server
// may store.
func (b *Bus) storeSizes(ctx context.Context, cfg Config, runs *jetstream.StreamInfo) storeSizes {
	budget := int64(fallbackBudget)
	if c := b.serverJetStream(); c != nil && c.MaxStore > 0 {
		budget = c.MaxStore
	} else if info, err := b.js.AccountInfo(ctx); err == nil && info.Limits.MaxStore > 0 {
		budget = info.Limits.MaxStore
	}
	def := defaultSizes(budget)
	existing := func(name string) int64 {
		if s, err := b.js.Stream(ctx, name); err == nil {
			return s.CachedInfo().Config.MaxBytes
		}
		return 0
	}
	var runsHave int64
	if runs != nil {
		runsHave = runs.Config.MaxBytes
	}
	return storeSizes{
		runs:      sized(cfg.RunsMaxBytes, runsHave, def.runs),
		blobs:     sized(cfg.BlobsMaxBytes, existing("OBJ_"+BucketBlobs), def.blobs),
		tasks:     sized(0, existing(StreamTasks), def.tasks),
		playbooks: sized(0, existing("KV_"+BucketPlaybooks), def.playbooks),
		sites:     sized(0, existing("KV_"+BucketSites), def.sites),
	}
}

// bindTopology opens the streams, bucket and object store that a process
// of user rote created, and reads the signers' keys from ROTE_RUNS.
func (b *Bus) bindTopology(ctx context.Context, p patience, k *keyring) error {
	stream, err := b.js.Stream(ctx, StreamRuns)
	if err != nil {
		return fmt.Errorf("bus: %s: %w (a role user binds to the streams a process of user rote created)", StreamRuns, err)
	}
	meta := stream.CachedInfo().Config.Metadata
	if err := k.markFrom(meta); err != nil {
		return err
	}
	if k.keys == nil {
		if err := k.keysFrom(meta); err != nil {
			return err
		}
	}
	kv, err := b.js.KeyValue(ctx, BucketPlaybooks)
	if err != nil {
		return fmt.Errorf("bus: bucket %s: %w", BucketPlaybooks, err)
	}
	sites, err := b.js.KeyValue(ctx, BucketSites)
	if err != nil {
		return fmt.Errorf("bus: bucket %s: %w", BucketSites, err)
	}
	obj, err := b.js.ObjectStore(ctx, BucketBlobs)
	if err != nil {
		return fmt.Errorf("bus: object store %s: %w", BucketBlobs, err)
	}
	b.clients(p, k, kv, sites, obj)
	return nil
}

// clients hands out the role clients over the assets.
func (b *Bus) clients(p patience, k *keyring, kv, sites jetstream.KeyValue, obj jetstream.ObjectStore) {
	pub := &publisher{conn: b.conn, js: b.js, patience: p, log: b.log, signer: k.own}
	if IsRole(b.user) {
		pub.via = APIPrefix(b.user)
	}
	b.runs = &RunLog{publisher: pub, blobs: obj, keys: k, live: b.live}
	b.tasks = &TaskQueue{publisher: pub}
	b.playbooks = &PlaybookStore{kv: kv, patience: p, log: b.log}
	b.sites = &SiteStore{kv: sites, js: b.js, patience: p}
	b.rpc = &RPC{conn: b.conn, log: b.log}
	b.browsers = &Browsers{rpc: b.rpc}
}
