package schema

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
	return nil
}
