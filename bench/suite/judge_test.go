package suite

import (
	"testing"

	"github.com/rote-agent/rote/portal"
)

// TestClassifyAgreesWithThePortal: the judgment oracle, reading a message
// page's heading and text, files every seeded message where the portal's
// verifier expects it.
func TestClassifyAgreesWithThePortal(t *testing.T) {
	for _, m := range portal.Messages() {
		p := Page{Nodes: []Node{{Role: "heading", Name: m.Subject}, {Role: "text", Name: "From: someone"}, {Role: "text", Name: m.Body}}}
		got, ok := classify(p)
		if !ok || got != m.Category {
			t.Errorf("%s %q: classified %q, want %q", m.ID, m.Subject, got, m.Category)
		}
	}
}
