package schema

import (
	"strings"
	"testing"
	"time"
)

// TestBriefSaysEachPageOnce: the brief gives a line per page the facts
// start from (stable order, whatever order they come in), leaves suspect
// facts out, names the facts it holds, and stops within MaxBriefBytes.
func TestBriefSaysEachPageOnce(t *testing.T) {
	fact := func(from, via, to string) Fact {
		return Fact{Name: from + via, From: from, Via: via, To: to, Evidence: []string{"R1", "R2"}}
	}
	facts := []Fact{
		fact("/login", `button "Sign in"`, "/dashboard"),
		fact("/dashboard", `link "Reports"`, "/reports"),
		fact("/dashboard", `link "Inbox"`, "/inbox"),
		fact("/vendors/new", `button "Next"`, "/vendors/new/address"),
	}
	facts[3].Suspect = &Suspicion{RunID: "R3", Why: "it led to /vendors/new"}
	b := RenderBrief("fp", nil, facts, time.Time{})
	want := "Where controls led in verified runs (page: control -> page):\n" +
		"/dashboard: link \"Reports\" -> /reports; link \"Inbox\" -> /inbox\n" +
		"/login: button \"Sign in\" -> /dashboard"
	if b.Text != want {
		t.Errorf("brief:\n%s\nwant:\n%s", b.Text, want)
	}
	if len(b.Facts) != 3 {
		t.Errorf("brief holds %v, want the three trusted facts", b.Facts)
	}
	var many []Fact
	for i := range 400 {
		many = append(many, fact("/p"+strings.Repeat("x", i%7)+string(rune('a'+i%26))+string(rune('a'+i/26)), `link "Next page"`, "/q"))
	}
	if b := RenderBrief("fp", nil, many, time.Time{}); len(b.Text) > MaxBriefBytes || len(b.Facts) == 0 || len(b.Facts) == len(many) {
		t.Errorf("a brief of 400 pages: %d bytes, %d facts", len(b.Text), len(b.Facts))
	}
}
