package actuator

import (
	"errors"
	"testing"

	"github.com/rote-agent/rote/schema"
)

var samplePage = []schema.ObservedNode{
	{ID: "aaaaaa", Role: "textbox", Name: "Company name", Context: "main › Register a vendor"},
	{ID: "bbbbbb", Role: "link", Name: "Edit", Context: "main › Records › Northwind"},
	{ID: "cccccc", Role: "link", Name: "Edit", Context: "main › Records › Contoso"},
	{ID: "dddddd", Role: "button", Name: "Next", Context: "main › Register a vendor"},
	{ID: "eeeeee", Role: "textbox", Name: "Tax ID", Context: "main › Register a vendor"},
}

func TestResolveLadder(t *testing.T) {
	cases := []struct {
		target schema.Target
		want   string
		rung   schema.Resolution
		err    error
	}{
		{schema.Target{ID: "dddddd", Role: "button", Name: "Next"}, "dddddd", schema.ResolvedByID, nil},
		{schema.Target{ID: "gone00", Role: "button", Name: "Next"}, "dddddd", schema.ResolvedByRoleName, nil},
		{schema.Target{ID: "gone00", Role: "link", Name: "Edit", Near: "Contoso"}, "cccccc", schema.ResolvedByText, nil},
		{schema.Target{Role: "link", Name: "Edit"}, "", "", schema.ErrAmbiguous},
		{schema.Target{Role: "link", Name: "Edit", Near: "Records"}, "", "", schema.ErrAmbiguous},
		{schema.Target{Role: "textbox", Name: "Legal entity name", Near: "Register a vendor"}, "", "", schema.ErrAmbiguous},
		{schema.Target{Role: "button", Name: "Register", Near: "Register a vendor"}, "dddddd", schema.ResolvedByText, nil},
		{schema.Target{Role: "button", Name: "Delete"}, "", "", schema.ErrNotFound},
		{schema.Target{ID: "zzzzzz"}, "", "", schema.ErrNotFound},
		{schema.Target{}, "", "", schema.ErrInvalid},
	}
	for _, c := range cases {
		got, rung, err := resolve(&c.target, samplePage)
		if c.err != nil {
			if !errors.Is(err, c.err) {
				t.Errorf("%+v: err %v, want %v", c.target, err, c.err)
			}
			continue
		}
		if err != nil || got.ID != c.want || rung != c.rung {
			t.Errorf("%+v: got %v by %s (%v), want %s by %s", c.target, got, rung, err, c.want, c.rung)
		}
	}
}

// Twins (the same role, name and context) differ only by order. A form
// inserted before the recorded one takes its ids, so a recorded target
// (id with role or name) refuses them; an id alone, picked from the
// render just shown, means the one at that place.
func TestResolveRefusesTwinsForRecordedTargets(t *testing.T) {
	page := []schema.ObservedNode{
		{ID: "ffffff", Role: "button", Name: "Register", Context: "main › Register a vendor"},
		{ID: "ffffff~2", Role: "button", Name: "Register", Context: "main › Register a vendor"},
		{ID: "gggggg", Role: "button", Name: "Cancel", Context: "main › Register a vendor"},
	}
	for _, target := range []schema.Target{
		{ID: "ffffff", Role: "button", Name: "Register"},
		{ID: "ffffff~2", Name: "Register"},
	} {
		if _, _, err := resolve(&target, page); !errors.Is(err, schema.ErrAmbiguous) {
			t.Errorf("%+v: err %v, want ambiguous", target, err)
		}
	}
	for _, target := range []schema.Target{{ID: "ffffff~2"}, {ID: "gggggg", Role: "button", Name: "Cancel"}} {
		if got, rung, err := resolve(&target, page); err != nil || got.ID != target.ID || rung != schema.ResolvedByID {
			t.Errorf("%+v: got %v by %s (%v), want itself by id", target, got, rung, err)
		}
	}
}
