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

func TestContractGate(t *testing.T) {
	recorded := &schema.Contract{Tag: "input", InputType: "text"}
	if err := checkContract(recorded, &schema.Contract{Tag: "input", InputType: "text", Href: "/x"}); err != nil {
		t.Fatalf("same contract refused: %v", err)
	}
	err := checkContract(recorded, &schema.Contract{Tag: "textarea"})
	if !errors.Is(err, schema.ErrControlChanged) || err.Error() != `control_changed: tag was "input", is "textarea"; input type was "text", is ""` {
		t.Fatalf("field became a textarea: %v", err)
	}
	submit := &schema.Contract{Tag: "button", InputType: "submit", FormAction: "/vendors", FormMethod: "post"}
	if err := checkContract(submit, &schema.Contract{Tag: "button", InputType: "submit", FormAction: "/vendors/import", FormMethod: "post"}); !errors.Is(err, schema.ErrContractChanged) {
		t.Fatalf("submit posting elsewhere: %v", err)
	}
	if err := checkContract(submit, &schema.Contract{Tag: "input", InputType: "submit", FormAction: "/vendors", FormMethod: "post"}); !errors.Is(err, schema.ErrControlChanged) {
		t.Fatalf("submit button became an input posting where it did: %v", err)
	}
	if err := checkContract(submit, &schema.Contract{Tag: "a", Href: "/vendors"}); !errors.Is(err, schema.ErrContractChanged) {
		t.Fatalf("submit became a link: %v", err)
	}
	if err := checkContract(submit, nil); !errors.Is(err, schema.ErrContractChanged) {
		t.Fatalf("control without contract: %v", err)
	}
	if err := checkContract(nil, nil); err != nil {
		t.Fatalf("nothing recorded: %v", err)
	}
}
