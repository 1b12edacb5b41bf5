package bus

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/rote-agent/rote/schema"
	"github.com/vmihailenco/msgpack/v5"
)

// Errors of the playbook store.
var (
	// ErrPlaybookNotFound means no playbook (or no such version) exists.
	ErrPlaybookNotFound = errors.New("bus: playbook not found")
	// ErrAmbiguousPlaybook means a name exists under several fingerprints.
	ErrAmbiguousPlaybook = errors.New("bus: playbook name exists under several fingerprints")
)

// Unbound is the key prefix of playbooks without a fingerprint: they can
// be stored and replayed explicitly, and the matcher never chooses them.
const Unbound = "unbound"

// PlaybookStore is ROTE_PLAYBOOKS: playbooks by fingerprint and name,
// every version kept in the key's history (the newest PlaybookVersions).
type PlaybookStore struct {
	kv       jetstream.KeyValue
	patience patience // how long a write a failover interrupts is retried
	log      *slog.Logger
}

// PlaybookEntry is one stored version of a playbook under its key.
type PlaybookEntry struct {
	Fingerprint string // Unbound for a playbook without one
	Name        string
	Stored      schema.StoredPlaybook
}

// Decode parses the stored document.
func (e *PlaybookEntry) Decode() (*schema.Playbook, error) {
	return schema.DecodePlaybook(e.Stored.Document)
}

func playbookKey(fingerprint, name string) string {
	if fingerprint == "" {
		fingerprint = Unbound
	}
	return fingerprint + "." + name
}

// PutPlaybook validates p and stores it as the next version under its
// fingerprint and name: version 1 for a new playbook. origin says where
// it came from (import, promote, patch, rollback). Concurrent writers do
// not lose versions: a conflicting write is retried on the new latest.
func (s *PlaybookStore) Put(ctx context.Context, p *schema.Playbook, origin, note string) (*PlaybookEntry, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	doc, err := schema.EncodePlaybook(p)
	if err != nil {
		return nil, err
	}
	key := playbookKey(p.Fingerprint, p.Name)
	began := time.Now().UTC()
	retry := s.patience.backoff()
	lost := false // a write failed transiently: it may have landed unacknowledged
	for conflicts := 0; conflicts < 10; {
		entry, err := s.put(ctx, key, p.Name, doc, origin, note, began, lost)
		switch {
		case err == nil:
			return entry, nil
		case errors.Is(err, jetstream.ErrKeyExists) || strings.Contains(err.Error(), "wrong last sequence"):
			conflicts++
		case transient(err):
			lost = true
			if err := retry.again(ctx, err); err != nil {
				return nil, fmt.Errorf("bus: write playbook %s: %w", key, err)
			}
		default:
			return nil, fmt.Errorf("bus: write playbook %s: %w", key, err)
		}
	}
	return nil, fmt.Errorf("bus: write playbook %s: too many concurrent writers", key)
}

// put makes one try at storing doc as the next version under key. After
// a try whose acknowledgement was lost (lost), a latest version that is
// this very write (same document, origin and note, written since began)
// is returned instead of being written twice.
func (s *PlaybookStore) put(ctx context.Context, key, name string, doc []byte, origin, note string, began time.Time, lost bool) (*PlaybookEntry, error) {
	ctx, cancel := context.WithTimeout(ctx, attempt)
	defer cancel()
	stored := schema.StoredPlaybook{Version: 1, Document: doc, Origin: origin, Note: note, Time: time.Now().UTC()}
	var rev uint64
	latest, err := s.kv.Get(ctx, key)
	switch {
	case errors.Is(err, jetstream.ErrKeyNotFound):
		// New, or deleted: a deleted playbook's versions are kept, and
		// its numbering goes on.
		hist, _, err := s.history(ctx, fingerprintOf(key), name)
		if err != nil && !errors.Is(err, ErrPlaybookNotFound) {
			return nil, err
		}
		if len(hist) > 0 {
			stored.Version = hist[len(hist)-1].Stored.Version + 1
		}
	case err != nil:
		return nil, err
	default:
		prev, err := decodeStored(latest.Value())
		if err != nil {
			return nil, err
		}
		if lost && prev.Origin == origin && prev.Note == note && !prev.Time.Before(began) && bytes.Equal(prev.Document, doc) {
			return &PlaybookEntry{Fingerprint: fingerprintOf(key), Name: name, Stored: prev}, nil
		}
		stored.Version, rev = prev.Version+1, latest.Revision()
	}
	value, err := msgpack.Marshal(&stored)
	if err != nil {
		return nil, err
	}
	if rev == 0 {
		_, err = s.kv.Create(ctx, key, value)
	} else {
		_, err = s.kv.Update(ctx, key, value, rev)
	}
	if err != nil {
		return nil, err
	}
	return &PlaybookEntry{Fingerprint: fingerprintOf(key), Name: name, Stored: stored}, nil
}

func decodeStored(value []byte) (schema.StoredPlaybook, error) {
	var s schema.StoredPlaybook
	if err := schema.DecodeMsgpack(value, &s); err != nil {
		return s, fmt.Errorf("bus: undecodable stored playbook: %w", err)
	}
	s.Time = s.Time.UTC()
	return s, nil
}

func fingerprintOf(key string) string {
	fp, _, _ := strings.Cut(key, ".")
	return fp
}

// PlaybookHistory returns every kept version of a playbook, oldest first
// (the bucket keeps the newest 64), a deleted one's too, so that a
// rollback can bring it back. ErrPlaybookNotFound when there is none.
func (s *PlaybookStore) History(ctx context.Context, fingerprint, name string) ([]PlaybookEntry, error) {
	hist, _, err := s.history(ctx, fingerprint, name)
	return hist, err
}

// history is History, and whether the key's last operation deleted it.
func (s *PlaybookStore) history(ctx context.Context, fingerprint, name string) ([]PlaybookEntry, bool, error) {
	key := playbookKey(fingerprint, name)
	var hist []jetstream.KeyValueEntry
	err := s.patience.retry(ctx, func(ctx context.Context) (err error) {
		hist, err = s.kv.History(ctx, key)
		return err
	})
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return nil, false, fmt.Errorf("%w: %s", ErrPlaybookNotFound, key)
	}
	if err != nil {
		return nil, false, fmt.Errorf("bus: playbook history %s: %w", key, err)
	}
	out := make([]PlaybookEntry, 0, len(hist))
	deleted := false
	for _, h := range hist {
		deleted = h.Operation() != jetstream.KeyValuePut
		if deleted {
			continue
		}
		stored, err := decodeStored(h.Value())
		if err != nil {
			return nil, false, err
		}
		out = append(out, PlaybookEntry{Fingerprint: fingerprintOf(key), Name: name, Stored: stored})
	}
	if len(out) == 0 {
		return nil, deleted, fmt.Errorf("%w: %s", ErrPlaybookNotFound, key)
	}
	return out, deleted, nil
}

// GetPlaybook returns one version of a playbook; version 0 means the
// latest. ErrPlaybookNotFound when the playbook or version is not kept.
func (s *PlaybookStore) Get(ctx context.Context, fingerprint, name string, version uint64) (*PlaybookEntry, error) {
	hist, deleted, err := s.history(ctx, fingerprint, name)
	if err != nil {
		return nil, err
	}
	if version == 0 {
		if deleted {
			return nil, fmt.Errorf("%w: %s was deleted; its history keeps its versions", ErrPlaybookNotFound, playbookKey(fingerprint, name))
		}
		return &hist[len(hist)-1], nil
	}
	for i := range hist {
		if hist[i].Stored.Version == version {
			return &hist[i], nil
		}
	}
	return nil, fmt.Errorf("%w: %s has no version %d kept", ErrPlaybookNotFound, playbookKey(fingerprint, name), version)
}

// ListPlaybooks returns the latest version of every playbook, sorted by
// name, then fingerprint.
func (s *PlaybookStore) List(ctx context.Context) ([]PlaybookEntry, error) {
	var keys []string
	err := s.patience.retry(ctx, func(ctx context.Context) error {
		lister, err := s.kv.ListKeys(ctx)
		if err != nil {
			return err
		}
		keys = keys[:0]
		for k := range lister.Keys() {
			keys = append(keys, k)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("bus: list playbooks: %w", err)
	}
	var out []PlaybookEntry
	for _, k := range keys {
		fp, name, ok := strings.Cut(k, ".")
		if !ok || fp == "" || name == "" {
			s.log.Warn("a key in the playbook store that names no playbook was skipped", "key", k)
			continue
		}
		e, err := s.Get(ctx, fp, name, 0)
		switch {
		case errors.Is(err, ErrPlaybookNotFound):
			continue // deleted meanwhile
		case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
			return nil, err
		case err != nil:
			// One bad entry must not hide every other playbook.
			s.log.Warn("a playbook that does not read was skipped", "key", k, "err", err)
			continue
		}
		if _, err := e.Decode(); err != nil {
			s.log.Warn("a playbook that does not decode was skipped", "key", k, "err", err)
			continue
		}
		out = append(out, *e)
	}
	slices.SortFunc(out, func(a, b PlaybookEntry) int {
		if c := strings.Compare(a.Name, b.Name); c != 0 {
			return c
		}
		return strings.Compare(a.Fingerprint, b.Fingerprint)
	})
	return out, nil
}

// FindPlaybook returns the latest entry of the playbook called name when
// exactly one fingerprint has it. Errors: ErrPlaybookNotFound,
// ErrAmbiguousPlaybook (give the fingerprint).
func (s *PlaybookStore) Find(ctx context.Context, name string) (*PlaybookEntry, error) {
	all, err := s.List(ctx)
	if err != nil {
		return nil, err
	}
	var found []PlaybookEntry
	for _, e := range all {
		if e.Name == name {
			found = append(found, e)
		}
	}
	switch len(found) {
	case 0:
		return nil, fmt.Errorf("%w: %s", ErrPlaybookNotFound, name)
	case 1:
		return &found[0], nil
	}
	var fps []string
	for _, e := range found {
		fps = append(fps, e.Fingerprint)
	}
	return nil, fmt.Errorf("%w: %s under %s", ErrAmbiguousPlaybook, name, strings.Join(fps, ", "))
}

// RollbackPlaybook stores version `to` again, as the new latest version:
// nothing is deleted, and the rollback itself is a version.
func (s *PlaybookStore) Rollback(ctx context.Context, fingerprint, name string, to uint64) (*PlaybookEntry, error) {
	old, err := s.Get(ctx, fingerprint, name, to)
	if err != nil {
		return nil, err
	}
	p, err := old.Decode()
	if err != nil {
		return nil, err
	}
	return s.Put(ctx, p, "rollback", fmt.Sprintf("rollback to version %d", to))
}

// ErrPlaybookExists means a rebind's destination already holds the
// playbook.
var ErrPlaybookExists = errors.New("bus: playbook already exists")

// Rebind moves a playbook from one fingerprint to another: every kept
// version is copied, in order and with its version number, its document
// rebound to the new fingerprint; a last version with origin "migrate"
// and note says why; and the old key is deleted (its history stays in the
// bucket behind a delete marker: the bucket allows no purge), so that the
// name is found under one fingerprint only. ErrPlaybookExists when the new key is taken.
func (s *PlaybookStore) Rebind(ctx context.Context, from, to, name, note string) (*PlaybookEntry, error) {
	if _, err := s.Get(ctx, from, name, 0); err != nil {
		return nil, err // none, or deleted
	}
	hist, err := s.History(ctx, from, name)
	if err != nil {
		return nil, err
	}
	key := playbookKey(to, name)
	if _, err := s.History(ctx, to, name); err == nil {
		return nil, fmt.Errorf("%w: %s", ErrPlaybookExists, key)
	} else if !errors.Is(err, ErrPlaybookNotFound) {
		return nil, err
	}
	var latest *schema.Playbook
	for _, h := range hist {
		p, err := h.Decode()
		if err != nil {
			return nil, err
		}
		p.Fingerprint = to
		doc, err := schema.EncodePlaybook(p)
		if err != nil {
			return nil, err
		}
		stored := h.Stored
		stored.Document = doc
		value, err := msgpack.Marshal(&stored)
		if err != nil {
			return nil, err
		}
		err = s.patience.retry(ctx, func(ctx context.Context) error {
			_, err := s.kv.Put(ctx, key, value)
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("bus: rebind playbook %s: %w", key, err)
		}
		latest = p
	}
	entry, err := s.Put(ctx, latest, "migrate", note)
	if err != nil {
		return nil, err
	}
	old := playbookKey(from, name)
	if err := s.patience.retry(ctx, func(ctx context.Context) error { return s.kv.Delete(ctx, old) }); err != nil {
		return nil, fmt.Errorf("bus: delete playbook %s: %w", old, err)
	}
	return entry, nil
}

// Watch returns a channel that receives after writes to the store (a
// promotion, a patch, a rollback, a deletion), coalesced: a reader that
// is busy sees one signal for several writes. It closes when ctx ends or
// the watch is lost.
func (s *PlaybookStore) Watch(ctx context.Context) (<-chan struct{}, error) {
	w, err := s.kv.WatchAll(ctx, jetstream.UpdatesOnly(), jetstream.MetaOnly())
	if err != nil {
		return nil, fmt.Errorf("bus: watch playbooks: %w", err)
	}
	changed := make(chan struct{}, 1)
	go func() {
		defer close(changed)
		defer w.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case e, ok := <-w.Updates():
				if !ok {
					return
				}
				if e == nil {
					continue
				}
				select {
				case changed <- struct{}{}:
				default:
				}
			}
		}
	}()
	return changed, nil
}

// Bound returns the latest version of every playbook bound to
// fingerprint, sorted by name.
func (s *PlaybookStore) Bound(ctx context.Context, fingerprint string) ([]PlaybookEntry, error) {
	all, err := s.List(ctx)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(all, func(e PlaybookEntry) bool { return e.Fingerprint != fingerprint }), nil
}
