package schema

import (
	"slices"
	"strings"
)

// Inventory records what a tool server offers, as the recorder saw it in
// the session: the server's identity from initialize, and its tools from
// tools/list (captured again after notifications/tools/list_changed). The
// run's fingerprint is the fingerprint of its last inventory. Protocol is
// the version the client negotiated: shown, never fingerprinted.
type Inventory struct {
	Meta        `msgpack:",inline"`
	RunID       string      `msgpack:"run_id" json:"run_id"`
	Seq         uint64      `msgpack:"seq" json:"seq"`
	Environment Environment `msgpack:"environment" json:"environment"`
	Fingerprint string      `msgpack:"fingerprint" json:"fingerprint"`
	Protocol    string      `msgpack:"protocol,omitempty" json:"protocol,omitempty"`
	// Client is what the recording's client declared it could do, of
	// ClientCapabilities: a server may list its tools by it.
	Client []string `msgpack:"client,omitempty" json:"client,omitempty"`
}

// ClientCapabilities are the capabilities of an MCP client that a
// recording keeps and a replay's client declares again: a server may
// offer other tools to a client that can sample, elicit or name roots.
var ClientCapabilities = []string{"elicitation", "roots", "sampling"}

// CheckClient refuses capabilities outside ClientCapabilities, or one
// named twice.
func CheckClient(caps []string) error {
	for i, c := range caps {
		if !slices.Contains(ClientCapabilities, c) || slices.Contains(caps[:i], c) {
			return Errorf(CodeInvalid, "client capability %q: want each of %s at most once", c, strings.Join(ClientCapabilities, ", "))
		}
	}
	return nil
}

// EventType returns TypeInventory.
func (*Inventory) EventType() string { return TypeInventory }

// Subject returns rote.runs.<run_id>.inventory.
func (e *Inventory) Subject() string { return RunSubject(e.RunID, KindInventory) }

// Validate checks identity and sequence, and that Fingerprint is the
// fingerprint of Environment.
func (e *Inventory) Validate() error {
	if err := e.Meta.validateSequenced(TypeInventory, e.RunID, e.Seq); err != nil {
		return err
	}
	fp, err := Fingerprint(e.Environment)
	if err != nil {
		return within(TypeInventory, err)
	}
	if fp != e.Fingerprint {
		return Errorf(CodeInvalid, "%s: fingerprint %s is not that of its environment (%s)", TypeInventory, e.Fingerprint, fp)
	}
	return within(TypeInventory, CheckClient(e.Client))
}
