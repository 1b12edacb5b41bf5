package bus

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/rote-agent/rote/schema"
	"github.com/vmihailenco/msgpack/v5"
)

// ErrMemoryNotFound means a site holds no such memory item.
var ErrMemoryNotFound = errors.New("bus: site memory item not found")

// SiteStore is ROTE_SITES, site memory (tier 2): routines, facts and the
// brief of each site by <fingerprint>.<kind>.<name>, every version kept
// in the key's history. The distiller role writes it; the planner reads.
type SiteStore struct {
	kv       jetstream.KeyValue
	js       jetstream.JetStream // reads the bucket's stream: no watcher, whose consumer a role could not delete
	patience patience
}

// SiteMemory is everything a site's memory holds now.
type SiteMemory struct {
	Fingerprint string           `json:"fingerprint"`
	Routines    []schema.Routine `json:"routines"`
	Facts       []schema.Fact    `json:"facts"`
	Brief       *schema.Brief    `json:"brief,omitempty"`
}

// Empty reports whether the site holds nothing.
func (m *SiteMemory) Empty() bool {
	return len(m.Routines) == 0 && len(m.Facts) == 0 && m.Brief == nil
}

// Routine returns the routine called name, or nil.
func (m *SiteMemory) Routine(name string) *schema.Routine {
	i := slices.IndexFunc(m.Routines, func(r schema.Routine) bool { return r.Name == name })
	if i < 0 {
		return nil
	}
	return &m.Routines[i]
}

// Fact returns the fact called name, or nil.
func (m *SiteMemory) Fact(name string) *schema.Fact {
	i := slices.IndexFunc(m.Facts, func(f schema.Fact) bool { return f.Name == name })
	if i < 0 {
		return nil
	}
	return &m.Facts[i]
}

// Distrust is the trust gate: it marks suspect every item of m that a
// check of checks found not to hold after the item was learned (a
// routine whose values the page refused is not found wanting). A
// suspect routine is never run, and no suspect item is in the brief,
// until runs newer than the failure show it anew.
func (m *SiteMemory) Distrust(checks []*schema.MemoryChecked) {
	for _, c := range checks {
		if c.Held || c.Refused || c.Fingerprint != m.Fingerprint {
			continue
		}
		why := &schema.Suspicion{RunID: c.RunID, Why: c.Why, Time: c.Time.UTC()}
		switch c.Kind {
		case schema.MemoryRoutine:
			if r := m.Routine(c.Name); r != nil && c.Time.After(r.Learned) {
				r.Suspect = why
			}
		case schema.MemoryFact:
			if f := m.Fact(c.Name); f != nil && c.Time.After(f.Learned) {
				f.Suspect = why
			}
		}
	}
}

// PutRoutine validates r and stores it as its key's next version.
func (s *SiteStore) PutRoutine(ctx context.Context, r *schema.Routine) error {
	if err := r.Validate(); err != nil {
		return err
	}
	return s.put(ctx, schema.SiteKey(r.Fingerprint, schema.MemoryRoutine, r.Name), r)
}

// PutFact validates f and stores it as its key's next version.
func (s *SiteStore) PutFact(ctx context.Context, f *schema.Fact) error {
	if err := f.Validate(); err != nil {
		return err
	}
	return s.put(ctx, schema.SiteKey(f.Fingerprint, schema.MemoryFact, f.Name), f)
}

// PutBrief stores the site's brief, refusing one over MaxBriefBytes.
func (s *SiteStore) PutBrief(ctx context.Context, b *schema.Brief) error {
	if err := schema.ValidateFingerprint(b.Fingerprint); err != nil {
		return err
	}
	if len(b.Text) > schema.MaxBriefBytes {
		return schema.Errorf(schema.CodeInvalid, "site brief of %d bytes, over %d", len(b.Text), schema.MaxBriefBytes)
	}
	return s.put(ctx, schema.SiteKey(b.Fingerprint, schema.MemoryBrief, "site"), b)
}

func (s *SiteStore) put(ctx context.Context, key string, v any) error {
	value, err := msgpack.Marshal(v)
	if err != nil {
		return err
	}
	return s.patience.retry(ctx, func(ctx context.Context) error {
		_, err := s.kv.Put(ctx, key, value)
		return err
	})
}

// Forget deletes an item; its versions stay in the key's history.
// ErrMemoryNotFound when the site holds no such item.
func (s *SiteStore) Forget(ctx context.Context, fingerprint string, kind schema.MemoryKind, name string) error {
	key := schema.SiteKey(fingerprint, kind, name)
	if _, err := s.kv.Get(ctx, key); errors.Is(err, jetstream.ErrKeyNotFound) {
		return fmt.Errorf("%w: %s", ErrMemoryNotFound, key)
	} else if err != nil {
		return err
	}
	return s.kv.Delete(ctx, key)
}

// ForgottenAt says when the item under key was last forgotten (rote
// memory forget), ok false when it is not forgotten now.
func (s *SiteStore) ForgottenAt(ctx context.Context, key string) (at time.Time, ok bool, err error) {
	stream, err := s.js.Stream(ctx, "KV_"+BucketSites)
	if err != nil {
		return time.Time{}, false, err
	}
	m, err := stream.GetLastMsgForSubject(ctx, "$KV."+BucketSites+"."+key)
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return time.Time{}, false, nil
	}
	if err != nil {
		return time.Time{}, false, err
	}
	switch m.Header.Get("KV-Operation") {
	case "DEL", "PURGE":
		return m.Time, true, nil
	}
	return time.Time{}, false, nil
}

// Site reads everything the site with fingerprint holds now, routines
// and facts sorted by name. An item that does not decode or validate is
// an error: memory that might be wrong is worse than none.
func (s *SiteStore) Site(ctx context.Context, fingerprint string) (*SiteMemory, error) {
	if err := schema.ValidateFingerprint(fingerprint); err != nil {
		return nil, err
	}
	m := &SiteMemory{Fingerprint: fingerprint}
	keys, err := s.keys(ctx, fingerprint+".>")
	if err != nil {
		return nil, err
	}
	for _, key := range keys {
		e, err := s.kv.Get(ctx, key)
		if errors.Is(err, jetstream.ErrKeyNotFound) {
			continue // forgotten since it was listed
		}
		if err != nil {
			return nil, err
		}
		if err := m.add(key, e.Value()); err != nil {
			return nil, err
		}
	}
	slices.SortFunc(m.Routines, func(a, b schema.Routine) int { return strings.Compare(a.Name, b.Name) })
	slices.SortFunc(m.Facts, func(a, b schema.Fact) int { return strings.Compare(a.Name, b.Name) })
	return m, nil
}

// add decodes one stored item into m, checking it belongs under key.
func (m *SiteMemory) add(key string, value []byte) error {
	parts := strings.Split(key, ".")
	if len(parts) != 3 {
		return fmt.Errorf("bus: site memory key %q: want <fingerprint>.<kind>.<name>", key)
	}
	var err error
	switch schema.MemoryKind(parts[1]) {
	case schema.MemoryRoutine:
		var r schema.Routine
		if err = decodeItem(value, &r, key, func() string { return schema.SiteKey(r.Fingerprint, schema.MemoryRoutine, r.Name) }); err == nil {
			m.Routines = append(m.Routines, r)
		}
	case schema.MemoryFact:
		var f schema.Fact
		if err = decodeItem(value, &f, key, func() string { return schema.SiteKey(f.Fingerprint, schema.MemoryFact, f.Name) }); err == nil {
			m.Facts = append(m.Facts, f)
		}
	case schema.MemoryBrief:
		var b schema.Brief
		if err = schema.DecodeMsgpack(value, &b); err == nil && (b.Fingerprint != m.Fingerprint || len(b.Text) > schema.MaxBriefBytes) {
			err = errors.New("a brief of another site, or over its size")
		}
		m.Brief = &b
	default:
		err = fmt.Errorf("kind %q: want routine, fact or brief", parts[1])
	}
	if err != nil {
		return fmt.Errorf("bus: site memory %s: %w", key, err)
	}
	return nil
}

// decodeItem decodes value into item, validates it, and checks that the
// key it names (keyOf, once decoded) is the key it was read under.
func decodeItem(value []byte, item interface{ Validate() error }, key string, keyOf func() string) error {
	if err := schema.DecodeMsgpack(value, item); err != nil {
		return err
	}
	if err := item.Validate(); err != nil {
		return err
	}
	if keyOf() != key {
		return errors.New("the item names another key")
	}
	return nil
}

// Sites returns the fingerprints that hold memory, sorted.
func (s *SiteStore) Sites(ctx context.Context) ([]string, error) {
	keys, err := s.keys(ctx, ">")
	if err != nil {
		return nil, err
	}
	var out []string
	for _, k := range keys {
		if fp := fingerprintOf(k); !slices.Contains(out, fp) {
			if _, err := s.kv.Get(ctx, k); err == nil {
				out = append(out, fp)
			}
		}
	}
	slices.Sort(out)
	return out, nil
}

// keys lists the keys matching filter that the bucket's stream holds,
// forgotten ones too (their last message is the forgetting, and Get
// finds none); none is an empty list.
func (s *SiteStore) keys(ctx context.Context, filter string) ([]string, error) {
	stream, err := s.js.Stream(ctx, "KV_"+BucketSites)
	if err != nil {
		return nil, err
	}
	prefix := "$KV." + BucketSites + "."
	info, err := stream.Info(ctx, jetstream.WithSubjectFilter(prefix+filter))
	if err != nil {
		return nil, err
	}
	var keys []string
	for subject := range info.State.Subjects {
		keys = append(keys, strings.TrimPrefix(subject, prefix))
	}
	slices.Sort(keys)
	return keys, nil
}
