package suite

import (
	"slices"
	"testing"
)

// TestApplyDiff: a page read from a full render and a diff has the values,
// states, names and nodes the diff says, whatever form each line takes.
func TestApplyDiff(t *testing.T) {
	full := `page "Sign in | Acme" http://x/login
a1 textbox "Username" [required]
a2 textbox "Password" [required]
a3 button "Sign in"
a4 checkbox "Remember me"`
	diff := `~ page "Dashboard | Acme" http://x/dashboard
- a3
~ a1 = "admin"
~ a4 [checked]
~ a2 textbox "Passphrase" = "x" [required]
+ b1 heading "Dashboard"`
	p := parsePage(full).apply(diff)
	if p.URL != "http://x/dashboard" || p.Title != "Dashboard | Acme" {
		t.Fatalf("header %q %q", p.Title, p.URL)
	}
	if n, ok := p.Find("textbox", "Username"); !ok || n.Value != "admin" || !n.Has("required") {
		t.Fatalf("username %+v", n)
	}
	if n, ok := p.Find("checkbox", "Remember me"); !ok || !n.Has("checked") {
		t.Fatalf("checkbox %+v", n)
	}
	if n, ok := p.Find("textbox", "Passphrase"); !ok || n.Value != "x" {
		t.Fatalf("renamed %+v", n)
	}
	if _, ok := p.Find("button", "Sign in"); ok {
		t.Fatal("a removed node is still there")
	}
	var ids []string
	for _, n := range p.Nodes {
		ids = append(ids, n.ID)
	}
	if !slices.Equal(ids, []string{"a1", "a2", "a4", "b1"}) {
		t.Fatalf("nodes %v", ids)
	}
	if same := parsePage(full).apply("="); len(same.Nodes) != 4 {
		t.Fatalf("= changed the page: %+v", same)
	}
}
