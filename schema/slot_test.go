package schema

import "testing"

// TestSlotOut templates whole words only, longest values first.
func TestSlotOut(t *testing.T) {
	got := SlotOut("Sign in as admin (administrator) and find the top 2 of 12 desk lamps for desk", map[string]string{"username": "admin", "n": "2", "query": "desk", "empty": " "})
	want := "Sign in as {{username}} (administrator) and find the top {{n}} of 12 {{query}} lamps for {{query}}"
	if got != want {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
}

// TestSlotOutLeavesItsReferences: a value that is another parameter's
// name is never slotted into that parameter's reference.
func TestSlotOutLeavesItsReferences(t *testing.T) {
	got := SlotOut("add the person Ada Lovelace", map[string]string{"person": "Ada Lovelace", "entity_type": "person"})
	if want := "add the {{entity_type}} {{person}}"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}
