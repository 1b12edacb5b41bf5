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
