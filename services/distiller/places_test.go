package distiller

import (
	"strings"
	"testing"
	"time"

	"github.com/rote-agent/rote/schema"
)

// TestPlacesAreTheWayToWhereTheWorkIs: past the sign-in its classes
// share, a playbook's way to where its work is done becomes a routine the
// model may call by name (no words: Rote never runs it by itself): the
// inbox, then the message the task names (a pick), checked by the control
// the work starts with; the search the catalog task sends, checked by the
// playbook's verify since only reading follows. A single click, and the
// link that downloads the report (the task's own act), are no places.
func TestPlacesAreTheWayToWhereTheWorkIs(t *testing.T) {
	fp := strings.Repeat("f", 64)
	triage := "  - {id: inbox, kind: deterministic, needs: [in], tool: click, target: {role: link, name: Inbox}, expect: [{url_contains: /inbox}]}\n" +
		"  - {id: msg, kind: deterministic, needs: [inbox], tool: click, target: {role: link, pick: {name: '*', rules: [{order: is, value: '{{subject}}'}]}}}\n" +
		"  - {id: which, kind: judgment, needs: [msg], prompt: 'Which category?', options: [Billing, Technical]}\n" +
		"  - {id: choose, kind: deterministic, needs: [which], tool: select, target: {role: combobox, name: Category}, args: {value: '{{steps.which}}'}}\n" +
		"  - {id: file, kind: deterministic, needs: [choose], tool: click, target: {role: button, name: File message}}\n"
	search := "  - {id: catalog, kind: deterministic, needs: [in], tool: click, target: {role: link, name: Catalog}, expect: [{url_contains: /catalog}]}\n" +
		"  - {id: q, kind: deterministic, needs: [catalog], tool: fill, target: {role: searchbox, name: Search catalog, contract: {tag: input, input_type: search, form_action: /catalog, form_method: get}}, args: {value: '{{query}}'}}\n" +
		"  - {id: go, kind: deterministic, needs: [q], tool: click, target: {role: button, name: Search, contract: {tag: button, input_type: submit, form_action: /catalog, form_method: get}}}\n" +
		"  - {id: read, kind: deterministic, needs: [go], tool: extract}\n"
	download := "  - {id: reports, kind: deterministic, needs: [in], tool: click, target: {role: link, name: Reports}, expect: [{url_contains: /reports}]}\n" +
		"  - {id: get, kind: deterministic, needs: [reports], tool: click, target: {role: link, pick: {name: '*', rules: [{order: newest, by: Published}]}}}\n"
	books := []SitePlaybook{
		sitePlaybook(t, "triage", "/", "username", "password", triage, "R1", "S1"),
		sitePlaybook(t, "catalog", "/", "username", "password", search, "R2", "S2"),
		sitePlaybook(t, "download", "/", "username", "password", download, "R3", "S3"),
		// Another class that goes the same way, checking more on the
		// way (so that the two share no longer opening): one routine,
		// both classes.
		sitePlaybook(t, "escalate", "/", "username", "password", strings.Replace(triage, "[{url_contains: /inbox}]", "[{url_contains: /inbox}, {text_visible: Inbox}]", 1), "R4", "S4"),
	}
	books[1].Playbook.Verify = []schema.Expect{{Op: schema.OpTextVisible, Arg: "results for “{{query}}”"}}
	shared := Routines(fp, books, time.Unix(0, 0))
	got := Places(fp, books, shared, time.Unix(0, 0))
	if len(shared) != 1 || len(got) != 2 {
		t.Fatalf("shared %d, places %+v", len(shared), got)
	}
	for _, c := range []struct{ name, does, pre, post string }{
		{"to-catalog-query", `click link "Catalog", fill searchbox "Search catalog", click button "Search"`, `link "Catalog"`, "results for “{{query}}”"},
		{"to-inbox-subject", `click link "Inbox", click link picked by {{subject}}`, `link "Inbox"`, `combobox "Category"`},
	} {
		i := 0
		for i < len(got) && got[i].Name != c.name {
			i++
		}
		if i == len(got) {
			t.Errorf("no place %s in %+v", c.name, got)
			continue
		}
		r := got[i]
		p, err := r.Fragment()
		if err != nil || r.Validate() != nil {
			t.Fatalf("%s: %v, %v", c.name, err, r.Validate())
		}
		if p.Intent != c.does || r.Said != "" || len(r.Pre) != 2 || r.Pre[0].Arg != "/dashboard" || r.Pre[1].Arg != c.pre || len(p.Verify) != 1 || p.Verify[0].Arg != c.post || len(r.Evidence) < 2 {
			t.Errorf("%s: does %q, said %q, pre %v, post %v, evidence %v", c.name, p.Intent, r.Said, r.Pre, p.Verify, r.Evidence)
		}
		if c.name == "to-inbox-subject" && (len(r.Classes) != 2 || len(r.Evidence) != 4) {
			t.Errorf("%s of %v, runs %v: want both classes that go that way", c.name, r.Classes, r.Evidence)
		}
		if _, ok := p.Params["password"]; ok || len(p.Params) != 1 {
			t.Errorf("%s takes %v", c.name, p.Params)
		}
	}
}
