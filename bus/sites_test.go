package bus_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/bus/bustest"
	"github.com/rote-agent/rote/schema"
)

// signIn is a routine on the site with fingerprint fp.
func signIn(t *testing.T, fp string) *schema.Routine {
	t.Helper()
	doc := "name: sign-in\nintent: sign in as {{username}}\nfingerprint: " + fp + "\nparams: {username: {type: string}, password: {type: secret}}\n" +
		"steps:\n  - {id: user, kind: deterministic, tool: fill, target: {role: textbox, name: Username}, args: {value: '{{username}}'}}\n" +
		"  - {id: pass, kind: deterministic, tool: fill, target: {role: textbox, name: Password}, args: {value: '{{password}}'}}\n" +
		"  - {id: go, kind: deterministic, tool: click, target: {role: button, name: Sign in}}\n" +
		"verify: [{url_contains: /dashboard}]\n"
	return &schema.Routine{Fingerprint: fp, Name: "sign-in", Document: []byte(doc),
		Pre: []schema.Expect{{Op: schema.OpSelectorVisible, Arg: `textbox "Username"`}}, Said: "sign in as {{username}}", Classes: []string{"a", "b"}, Evidence: []string{"R1", "R2"}}
}

func TestSiteStoreKeepsEachSiteApart(t *testing.T) {
	b := bustest.Start(t)
	c := ctx(t)
	a, other := strings.Repeat("a", 64), strings.Repeat("b", 64)
	sites := b.Sites()
	if err := sites.PutRoutine(c, signIn(t, a)); err != nil {
		t.Fatal(err)
	}
	fact := &schema.Fact{Fingerprint: a, Name: "dashboard-reports", From: "/dashboard", Via: `link "Reports"`, To: "/reports", Evidence: []string{"R1"}}
	if err := sites.PutFact(c, fact); err != nil {
		t.Fatal(err)
	}
	if err := sites.PutBrief(c, &schema.Brief{Fingerprint: a, Text: fact.Text()}); err != nil {
		t.Fatal(err)
	}
	m, err := sites.Site(c, a)
	if err != nil || len(m.Routines) != 1 || len(m.Facts) != 1 || m.Brief == nil || m.Routine("sign-in") == nil {
		t.Fatalf("site a: %+v (%v)", m, err)
	}
	if p, err := m.Routine("sign-in").Fragment(); err != nil || len(p.Steps) != 3 {
		t.Fatalf("the routine's fragment: %v", err)
	}
	if m, err := sites.Site(c, other); err != nil || !m.Empty() {
		t.Fatalf("site b holds site a's memory: %+v (%v)", m, err)
	}
	if fps, err := sites.Sites(c); err != nil || len(fps) != 1 || fps[0] != a {
		t.Fatalf("sites %v (%v)", fps, err)
	}
	if _, forgotten, err := sites.ForgottenAt(c, schema.SiteKey(a, schema.MemoryFact, "dashboard-reports")); err != nil || forgotten {
		t.Fatalf("a fact never forgotten: %v %v", forgotten, err)
	}
	if err := sites.Forget(c, a, schema.MemoryFact, "dashboard-reports"); err != nil {
		t.Fatal(err)
	}
	if at, forgotten, err := sites.ForgottenAt(c, schema.SiteKey(a, schema.MemoryFact, "dashboard-reports")); err != nil || !forgotten || at.IsZero() {
		t.Fatalf("a fact forgotten: %v %v %v", at, forgotten, err)
	}
	if err := sites.Forget(c, a, schema.MemoryFact, "dashboard-reports"); !errors.Is(err, bus.ErrMemoryNotFound) {
		t.Fatalf("forgetting twice: %v", err)
	}
	if m, _ := sites.Site(c, a); len(m.Facts) != 0 || len(m.Routines) != 1 {
		t.Fatalf("after forgetting the fact: %+v", m)
	}
}

// Memory that might be wrong is worse than none: an item under a key it
// does not name, one that does not validate, or a routine with too little
// evidence or a model step is refused, when written and when read.
func TestSiteStoreRefusesWhatItCannotTrust(t *testing.T) {
	b := bustest.Start(t)
	c := ctx(t)
	fp := strings.Repeat("a", 64)
	weak := signIn(t, fp)
	weak.Evidence = []string{"R1", "R1"}
	noPre := signIn(t, fp)
	noPre.Pre = nil
	model := signIn(t, fp)
	model.Document = []byte(strings.Replace(string(model.Document), "kind: deterministic, tool: click", "kind: slot, prompt: which, tool: click", 1))
	otherSite := signIn(t, fp)
	otherSite.Document = []byte(strings.Replace(string(otherSite.Document), fp, strings.Repeat("c", 64), 1))
	for name, r := range map[string]*schema.Routine{"one run twice": weak, "no precondition": noPre, "a model step": model, "a fragment of another site": otherSite} {
		if err := b.Sites().PutRoutine(c, r); !errors.Is(err, schema.ErrInvalid) {
			t.Errorf("%s: stored (%v)", name, err)
		}
	}
	if err := b.Sites().PutBrief(c, &schema.Brief{Fingerprint: fp, Text: strings.Repeat("x", schema.MaxBriefBytes+1)}); !errors.Is(err, schema.ErrInvalid) {
		t.Errorf("an oversize brief: %v", err)
	}
	kv, err := b.JetStream().KeyValue(c, bus.BucketSites)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kv.Put(c, fp+".routine.sign-in", []byte("not msgpack")); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Sites().Site(c, fp); err == nil || !strings.Contains(err.Error(), "routine.sign-in") {
		t.Fatalf("a forged item read: %v", err)
	}
}

// TestDistrustSkipsRefusedValues: a routine that stopped because the page
// refused the values it ran with stays trusted; one that stopped
// otherwise after it was learned is suspect; one that stopped before it
// was learned (anew) is not.
func TestDistrustSkipsRefusedValues(t *testing.T) {
	fp := strings.Repeat("c", 64)
	r := signIn(t, fp)
	learned := r.Learned
	check := func(refused bool, after time.Duration) *schema.MemoryChecked {
		return &schema.MemoryChecked{Meta: schema.Meta{ID: "x", Time: learned.Add(after)}, RunID: "R", Fingerprint: fp, Kind: schema.MemoryRoutine, Name: r.Name, Why: "stopped", Refused: refused}
	}
	for name, c := range map[string]struct {
		check   *schema.MemoryChecked
		suspect bool
	}{
		"refused values": {check(true, time.Minute), false},
		"stopped":        {check(false, time.Minute), true},
		"before learned": {check(false, -time.Minute), false},
	} {
		m := &bus.SiteMemory{Fingerprint: fp, Routines: []schema.Routine{*r}}
		m.Distrust([]*schema.MemoryChecked{c.check})
		if (m.Routines[0].Suspect != nil) != c.suspect {
			t.Errorf("%s: suspect %+v, want %v", name, m.Routines[0].Suspect, c.suspect)
		}
	}
}
