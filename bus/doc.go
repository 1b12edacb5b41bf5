// Package bus is Rote's NATS plumbing: it starts an embedded nats-server
// with JetStream file storage (or connects to an external cluster),
// creates the streams, key-value bucket and object store that are Rote's
// system of record, and publishes and reads typed msgpack events.
//
// The names are a contract shared by every deployment:
//
//	ROTE_TASKS      stream  rote.tasks           work queue of task requests
//	ROTE_RUNS       stream  rote.runs.<run>.>    every event of every run; no delete, no purge
//	ROTE_PLAYBOOKS  KV      <fingerprint>.<name> playbook versions in the key's history
//	ROTE_SITES      KV      <fingerprint>.<kind>.<name> site memory: routines, facts, brief
//	ROTE_BLOBS      objects sha256:<hex>         payloads over 64 KiB
//
// Events travel with their type in the Rote-Event-Type header and their id
// in Nats-Msg-Id, so a retried publish is deduplicated by the server.
package bus
