package actuator

import (
	"testing"

	"github.com/rote-agent/rote/schema"
)

// TestKeptCaptureOnlyWhileThePageIsUnchanged: a capture is reused for the
// next target only on the same document, with no mutation since and no
// embedded document; an action that moves the pointer or the page drops
// it, one that moves the focus or a value keeps it on proof.
func TestKeptCaptureOnlyWhileThePageIsUnchanged(t *testing.T) {
	settled := settleProbe{Watch: true, Doc: "d1", Changes: 7}
	cases := []struct {
		name   string
		then   settleProbe
		action schema.ActionKind // between the capture and the next look; "" none
		kept   bool
		proof  bool
	}{
		{"unchanged", settled, "", true, false},
		{"after an extract", settled, schema.ActExtract, true, false},
		{"after a fill", settled, schema.ActFill, true, true}, // :focus-within, :placeholder-shown
		{"after set_value", settled, schema.ActSetValue, true, true},
		{"after a select", settled, schema.ActSelect, true, true},
		{"after a press", settled, schema.ActPress, true, true},
		{"a mutation", settleProbe{Watch: true, Doc: "d1", Changes: 8}, "", false, false},
		{"another document", settleProbe{Watch: true, Doc: "d2", Changes: 7}, "", false, false},
		{"not settled", settleProbe{}, "", false, false},
		{"after a click", settled, schema.ActClick, false, false},
		{"after a hover", settled, schema.ActHover, false, false},
		{"after a check", settled, schema.ActCheck, false, false},
		{"after a drag", settled, schema.ActDrag, false, false},
		{"after a navigate", settled, schema.ActNavigate, false, false},
	}
	nodes := []schema.ObservedNode{{ID: "aaaaaa", Role: "button", Name: "Save"}}
	for _, c := range cases {
		s := &session{watched: settled}
		s.remember(nodes)
		if c.action != "" {
			s.forget(c.action)
		}
		s.watched = c.then
		got, proof := s.kept()
		if (got != nil) != c.kept || proof != c.proof {
			t.Errorf("%s: kept %v (proof %v), want %v (proof %v)", c.name, got != nil, proof, c.kept, c.proof)
		}
	}
	framed := &session{watched: settleProbe{Watch: true, Doc: "d1", Frames: 1}}
	framed.remember(nodes)
	if got, _ := framed.kept(); got != nil {
		t.Error("a capture of a page with an embedded document was kept: the watch does not see the frame's changes")
	}
}
