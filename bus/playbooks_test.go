package bus_test

import (
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/bus/bustest"
	"github.com/rote-agent/rote/schema"
	"github.com/vmihailenco/msgpack/v5"
)

func playbook(t *testing.T, fp, intent string) *schema.Playbook {
	t.Helper()
	doc := "name: file-report\nintent: " + intent + "\n"
	if fp != "" {
		doc += "fingerprint: " + fp + "\n"
	}
	doc += "steps:\n  - {id: go, kind: deterministic, tool: navigate, args: {url: /reports}}\nverify: [{url_contains: /reports}]\n"
	p, err := schema.DecodePlaybook([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestPlaybookStoreVersions(t *testing.T) {
	b := bustest.Start(t)
	c := ctx(t)
	fp := strings.Repeat("a", 64)
	v1, err := b.Playbooks().Put(c, playbook(t, fp, "file the report"), "import", "")
	if err != nil || v1.Stored.Version != 1 || v1.Fingerprint != fp {
		t.Fatalf("first put: %+v %v", v1, err)
	}
	v2, err := b.Playbooks().Put(c, playbook(t, fp, "file the monthly report"), "patch", "step go repaired")
	if err != nil || v2.Stored.Version != 2 {
		t.Fatalf("second put: %+v %v", v2, err)
	}
	got, err := b.Playbooks().Get(c, fp, "file-report", 1)
	if err != nil {
		t.Fatal(err)
	}
	if p, _ := got.Decode(); p.Intent != "file the report" {
		t.Fatalf("version 1 reads %q", p.Intent)
	}
	v3, err := b.Playbooks().Rollback(c, fp, "file-report", 1)
	if err != nil || v3.Stored.Version != 3 || v3.Stored.Origin != "rollback" {
		t.Fatalf("rollback: %+v %v", v3, err)
	}
	latest, _ := b.Playbooks().Get(c, fp, "file-report", 0)
	if p, _ := latest.Decode(); p.Intent != "file the report" || latest.Stored.Version != 3 {
		t.Fatalf("latest after rollback: %q v%d", p.Intent, latest.Stored.Version)
	}
	hist, err := b.Playbooks().History(c, fp, "file-report")
	if err != nil || len(hist) != 3 || hist[1].Stored.Note != "step go repaired" {
		t.Fatalf("history: %d %v", len(hist), err)
	}
	if _, err := b.Playbooks().Get(c, fp, "file-report", 9); !errors.Is(err, bus.ErrPlaybookNotFound) {
		t.Fatalf("missing version: %v", err)
	}
	if _, err := b.Playbooks().Get(c, fp, "nope", 0); !errors.Is(err, bus.ErrPlaybookNotFound) {
		t.Fatalf("missing playbook: %v", err)
	}

	// The same name unbound: listed separately, and a name lookup is then
	// ambiguous.
	if e, err := b.Playbooks().Put(c, playbook(t, "", "file the report by hand"), "import", ""); err != nil || e.Fingerprint != bus.Unbound {
		t.Fatalf("unbound put: %+v %v", e, err)
	}
	list, err := b.Playbooks().List(c)
	if err != nil || len(list) != 2 {
		t.Fatalf("list: %d %v", len(list), err)
	}
	if _, err := b.Playbooks().Find(c, "file-report"); !errors.Is(err, bus.ErrAmbiguousPlaybook) {
		t.Fatalf("ambiguous find: %v", err)
	}
	bad := playbook(t, fp, "x")
	bad.Verify = nil
	if _, err := b.Playbooks().Put(c, bad, "import", ""); !errors.Is(err, schema.ErrInvalid) {
		t.Fatalf("invalid playbook stored: %v", err)
	}
}

func TestConcurrentPutsLoseNoVersion(t *testing.T) {
	b := bustest.Start(t)
	c := ctx(t)
	fp := strings.Repeat("b", 64)
	var wg sync.WaitGroup
	for i := 0; i < 5; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := b.Playbooks().Put(c, playbook(t, fp, "concurrent"), "import", ""); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	hist, err := b.Playbooks().History(c, fp, "file-report")
	if err != nil || len(hist) != 5 {
		t.Fatalf("history %d (%v), want 5", len(hist), err)
	}
	for i, h := range hist {
		if h.Stored.Version != uint64(i+1) {
			t.Fatalf("versions %d at %d", h.Stored.Version, i)
		}
	}
}

func TestRebindMovesTheWholeHistory(t *testing.T) {
	b := bustest.Start(t)
	c := ctx(t)
	from, to := strings.Repeat("a", 64), strings.Repeat("b", 64)
	store := b.Playbooks()
	for _, intent := range []string{"file the report", "file the monthly report"} {
		if _, err := store.Put(c, playbook(t, from, intent), "import", intent); err != nil {
			t.Fatal(err)
		}
	}
	e, err := store.Rebind(c, from, to, "file-report", "rebound")
	if err != nil || e.Fingerprint != to || e.Stored.Version != 3 || e.Stored.Origin != "migrate" {
		t.Fatalf("rebind: %+v %v", e, err)
	}
	hist, err := store.History(c, to, "file-report")
	if err != nil || len(hist) != 3 || hist[0].Stored.Note != "file the report" || hist[1].Stored.Version != 2 {
		t.Fatalf("history under the new fingerprint: %+v %v", hist, err)
	}
	for _, h := range hist {
		if p, _ := h.Decode(); p.Fingerprint != to {
			t.Fatalf("version %d still names fingerprint %s", h.Stored.Version, p.Fingerprint)
		}
	}
	if _, err := store.Get(c, from, "file-report", 0); !errors.Is(err, bus.ErrPlaybookNotFound) {
		t.Fatalf("the old key after a rebind: %v", err)
	}
	if f, err := store.Find(c, "file-report"); err != nil || f.Fingerprint != to {
		t.Fatalf("find after a rebind: %+v %v", f, err)
	}
	if _, err := store.Put(c, playbook(t, from, "again"), "import", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Rebind(c, from, to, "file-report", "again"); !errors.Is(err, bus.ErrPlaybookExists) {
		t.Fatalf("a rebind onto a taken key: %v", err)
	}
}

// TestADeletedPlaybookCanBeRolledBack: a delete marker (which the
// distiller and the planner may write) takes a playbook out of the list,
// but its history keeps every version, a rollback brings it back with
// its numbering going on, and a stored value whose document does not
// decode hides no other playbook.
func TestADeletedPlaybookCanBeRolledBack(t *testing.T) {
	b := bustest.Start(t)
	c := ctx(t)
	fp := strings.Repeat("a", 64)
	store := b.Playbooks()
	for _, intent := range []string{"file the report", "file the monthly report"} {
		if _, err := store.Put(c, playbook(t, fp, intent), "import", intent); err != nil {
			t.Fatal(err)
		}
	}
	kv, err := b.JetStream().KeyValue(c, bus.BucketPlaybooks)
	if err != nil {
		t.Fatal(err)
	}
	if err := kv.Delete(c, fp+".file-report"); err != nil {
		t.Fatal(err)
	}
	bad, err := msgpack.Marshal(&schema.StoredPlaybook{Version: 1, Document: []byte("{{{ not yaml: ["), Origin: "import"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kv.Put(c, fp+".broken", bad); err != nil {
		t.Fatal(err)
	}
	if list, err := store.List(c); err != nil || len(list) != 0 {
		t.Fatalf("list after a delete and a broken document: %+v (%v)", list, err)
	}
	if _, err := store.Get(c, fp, "file-report", 0); !errors.Is(err, bus.ErrPlaybookNotFound) {
		t.Fatalf("the latest version of a deleted playbook: %v", err)
	}
	if hist, err := store.History(c, fp, "file-report"); err != nil || len(hist) != 2 {
		t.Fatalf("a deleted playbook's history: %d versions (%v)", len(hist), err)
	}
	e, err := store.Rollback(c, fp, "file-report", 1)
	if err != nil || e.Stored.Version != 3 {
		t.Fatalf("rollback of a deleted playbook: %+v %v", e, err)
	}
	if list, err := store.List(c); err != nil || len(list) != 1 || list[0].Stored.Version != 3 {
		t.Fatalf("list after the rollback: %+v (%v)", list, err)
	}
}
