package actuator

import (
	"testing"

	"github.com/rote-agent/rote/schema"
)

// TestKeptCaptureOnlyWhileThePageIsUnchanged: a capture is reused for the
// next target only on the same document, with no mutation since, no
// embedded document, and no action since that can change what shows
// without a mutation.
func TestKeptCaptureOnlyWhileThePageIsUnchanged(t *testing.T) {
	settled := settleProbe{Watch: true, Doc: "d1", Changes: 7}
	cases := []struct {
		name   string
		then   settleProbe
		action schema.ActionKind // between the capture and the next look; "" none
		kept   bool
	}{
		{"unchanged", settled, "", true},
		{"after an extract", settled, schema.ActExtract, true},
		{"after a fill", settled, schema.ActFill, false}, // :focus-within, :placeholder-shown
		{"after set_value", settled, schema.ActSetValue, false},
		{"a mutation", settleProbe{Watch: true, Doc: "d1", Changes: 8}, "", false},
		{"another document", settleProbe{Watch: true, Doc: "d2", Changes: 7}, "", false},
		{"not settled", settleProbe{}, "", false},
		{"after a click", settled, schema.ActClick, false},
		{"after a hover", settled, schema.ActHover, false},
		{"after a check", settled, schema.ActCheck, false},
		{"after a select", settled, schema.ActSelect, false},
		{"after a navigate", settled, schema.ActNavigate, false},
		{"after a press", settled, schema.ActPress, false},
	}
	nodes := []schema.ObservedNode{{ID: "aaaaaa", Role: "button", Name: "Save"}}
	for _, c := range cases {
		s := &session{watched: settled}
		s.remember(nodes)
		if c.action != "" {
			s.forget(c.action)
		}
		s.watched = c.then
		if got := s.kept() != nil; got != c.kept {
			t.Errorf("%s: kept %v, want %v", c.name, got, c.kept)
		}
	}
	framed := &session{watched: settleProbe{Watch: true, Doc: "d1", Frames: 1}}
	framed.remember(nodes)
	if framed.kept() != nil {
		t.Error("a capture of a page with an embedded document was kept: the watch does not see the frame's changes")
	}
}
