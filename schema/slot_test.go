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
