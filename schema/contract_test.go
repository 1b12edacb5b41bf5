package schema

import (
	"errors"
	"testing"
)

func TestContractGate(t *testing.T) {
	recorded := &Contract{Tag: "input", InputType: "text"}
	if err := recorded.Check(&Contract{Tag: "input", InputType: "text", Href: "/x"}); err != nil {
		t.Fatalf("same contract refused: %v", err)
	}
	err := recorded.Check(&Contract{Tag: "textarea"})
	if !errors.Is(err, ErrControlChanged) || err.Error() != `control_changed: tag was "input", is "textarea"; input type was "text", is ""` {
		t.Fatalf("field became a textarea: %v", err)
	}
	field := &Contract{Tag: "input", InputType: "text", FormAction: "/vendors", FormMethod: "post"}
	if err := field.Check(&Contract{Tag: "textarea"}); !errors.Is(err, ErrControlChanged) {
		t.Fatalf("a field that sent its form on Enter became a textarea, which sends nothing: %v", err)
	}
	if err := field.Check(&Contract{Tag: "input", InputType: "text", FormAction: "/vendors/purge", FormMethod: "post"}); !errors.Is(err, ErrContractChanged) {
		t.Fatalf("a field whose form now purges: %v", err)
	}
	if err := field.Check(&Contract{Tag: "input", InputType: "text"}); !errors.Is(err, ErrContractChanged) {
		t.Fatalf("a field no longer in its form (where Enter may be scripted): %v", err)
	}
	submit := &Contract{Tag: "button", InputType: "submit", FormAction: "/vendors", FormMethod: "post"}
	if err := submit.Check(&Contract{Tag: "button", InputType: "submit", FormAction: "/vendors/import", FormMethod: "post"}); !errors.Is(err, ErrContractChanged) {
		t.Fatalf("submit posting elsewhere: %v", err)
	}
	if err := submit.Check(&Contract{Tag: "input", InputType: "submit", FormAction: "/vendors", FormMethod: "post"}); !errors.Is(err, ErrControlChanged) {
		t.Fatalf("submit button became an input posting where it did: %v", err)
	}
	if err := submit.Check(&Contract{Tag: "a", Href: "/vendors"}); !errors.Is(err, ErrContractChanged) {
		t.Fatalf("submit became a link: %v", err)
	}
	if err := submit.Check(nil); !errors.Is(err, ErrContractChanged) {
		t.Fatalf("control without contract: %v", err)
	}
	if err := (*Contract)(nil).Check(nil); err != nil {
		t.Fatalf("nothing recorded: %v", err)
	}
}

func TestContractSends(t *testing.T) {
	submit := &Contract{Tag: "button", InputType: "submit", FormAction: "/vendors", FormMethod: "post"}
	field := &Contract{Tag: "input", InputType: "text", FormAction: "/vendors", FormMethod: "post"}
	radio := &Contract{Tag: "input", InputType: "radio", FormAction: "/vendors", FormMethod: "post"}
	link := &Contract{Tag: "a", Href: "/help"}
	for _, c := range []struct {
		c     *Contract
		kind  ActionKind
		sends bool
	}{
		{submit, ActClick, true}, {submit, ActPress, true}, {field, ActClick, false}, {field, ActPress, true},
		{radio, ActClick, false}, {link, ActClick, true}, {link, ActPress, true}, {&Contract{Tag: "button", InputType: "button"}, ActClick, false},
		{nil, ActClick, false}, {submit, ActFill, false},
	} {
		if got := c.c.Sends(c.kind); got != c.sends {
			t.Errorf("%+v %s: sends %v, want %v", c.c, c.kind, got, c.sends)
		}
	}
}

func TestContractSending(t *testing.T) {
	for _, c := range []struct {
		c    *Contract
		want Sending
		ok   bool
	}{
		{&Contract{Tag: "button", InputType: "submit", FormAction: "/vendors", FormMethod: "post"}, Sending{Method: "POST", Ref: "/vendors", Form: true}, true},
		{&Contract{Tag: "input", InputType: "search", FormAction: "/search", FormMethod: "get"}, Sending{Method: "GET", Ref: "/search", Form: true}, true},
		{&Contract{Tag: "button", InputType: "submit", FormMethod: "dialog"}, Sending{Form: true}, true},
		{&Contract{Tag: "a", Href: "http://elsewhere.example/x"}, Sending{Method: "GET", Ref: "http://elsewhere.example/x"}, true},
		{&Contract{Tag: "button", InputType: "button"}, Sending{}, false},
		{nil, Sending{}, false},
	} {
		if got, ok := c.c.Sending(); got != c.want || ok != c.ok {
			t.Errorf("%+v: %+v %v, want %+v %v", c.c, got, ok, c.want, c.ok)
		}
	}
}

// TestContractCheckSending: a control that sent nothing when recorded (a
// script handled it) may not now send a form or follow a link when
// clicked or pressed; typing in it, a control that sent when recorded,
// and a link whose varying address was left out are not its concern.
func TestContractCheckSending(t *testing.T) {
	scripted := &Contract{Tag: "button", InputType: "submit"}
	getForm := &Contract{Tag: "button", InputType: "submit", FormAction: "/vendors/register-v2", FormMethod: "get"}
	cases := []struct {
		name              string
		recorded, current *Contract
		kind              ActionKind
		changed           bool
	}{
		{"a scripted button now in a GET form", scripted, getForm, ActClick, true},
		{"a field of no form, Enter now sends", &Contract{Tag: "input", InputType: "text"}, &Contract{Tag: "input", InputType: "text", FormMethod: "post", FormAction: "/x"}, ActPress, true},
		{"typed into, not sent", &Contract{Tag: "input", InputType: "text"}, &Contract{Tag: "input", InputType: "text", FormMethod: "post", FormAction: "/x"}, ActFill, false},
		{"still scripted", scripted, scripted, ActClick, false},
		{"it sent when recorded", &Contract{Tag: "button", InputType: "submit", FormAction: "/vendors", FormMethod: "post"}, getForm, ActClick, false},
		{"a link's varying address left out", &Contract{Tag: "a"}, &Contract{Tag: "a", Href: "/records/17"}, ActClick, false},
		{"no recorded contract", nil, getForm, ActClick, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.recorded.CheckSending(c.current, c.kind)
			if got := errors.Is(err, ErrContractChanged); got != c.changed {
				t.Fatalf("contract changed %v (%v), want %v", got, err, c.changed)
			}
		})
	}
}

// TestContractHoldsARadioToItsGroup: a radio of another group (the
// billing period's where the plan's was recorded) is another control.
func TestContractHoldsARadioToItsGroup(t *testing.T) {
	plan := &Contract{Tag: "input", InputType: "radio", Group: "plan"}
	if err := plan.Check(&Contract{Tag: "input", InputType: "radio", Group: "bill"}); !errors.Is(err, ErrControlChanged) {
		t.Fatalf("a radio of another group: %v, want control_changed", err)
	}
	if err := plan.Check(&Contract{Tag: "input", InputType: "radio", Group: "plan"}); err != nil {
		t.Fatalf("a radio of its group: %v", err)
	}
	if err := (&Contract{Tag: "input", InputType: "radio"}).Check(&Contract{Tag: "input", InputType: "radio", Group: "plan"}); err != nil {
		t.Fatalf("a contract recorded before radios had groups: %v", err)
	}
}
