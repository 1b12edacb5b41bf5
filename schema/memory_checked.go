package schema

// MemoryChecked says a run used an item of site memory and whether the
// page bore it out: a routine's precondition held and the routine ran, or
// it stopped (a step failed, its postcondition did not pass); a fact the
// page contradicted. An item whose newest failure (but a refusal of the
// values it ran with) is newer than its
// newest supporting run is not trusted again (the trust gate): it is
// left out of the brief and never run, until runs show it anew.
type MemoryChecked struct {
	Meta        `msgpack:",inline"`
	RunID       string     `msgpack:"run_id" json:"run_id"`
	StepID      string     `msgpack:"step_id,omitempty" json:"step_id,omitempty"`
	Fingerprint string     `msgpack:"fingerprint" json:"fingerprint"`
	Kind        MemoryKind `msgpack:"kind" json:"kind"`
	Name        string     `msgpack:"name" json:"name"`
	Held        bool       `msgpack:"held" json:"held"`
	Why         string     `msgpack:"why,omitempty" json:"why,omitempty"` // what the page showed instead
	// Refused marks a routine that stopped back on its first page: the
	// page refused the values it ran with (a password mistyped), which
	// says nothing against the routine; it stays trusted.
	Refused bool `msgpack:"refused,omitempty" json:"refused,omitempty"`
}

// EventType returns TypeMemoryChecked.
func (*MemoryChecked) EventType() string { return TypeMemoryChecked }

// Subject returns rote.runs.<run_id>.memory.
func (e *MemoryChecked) Subject() string { return RunSubject(e.RunID, KindMemory) }

// Key is the item's key in ROTE_SITES.
func (e *MemoryChecked) Key() string { return SiteKey(e.Fingerprint, e.Kind, e.Name) }

// Validate checks identity, the item's key parts, and that a failure
// says why.
func (e *MemoryChecked) Validate() error {
	if err := e.Meta.validateInRun(TypeMemoryChecked, e.RunID); err != nil {
		return err
	}
	if err := ValidateFingerprint(e.Fingerprint); err != nil {
		return within(TypeMemoryChecked, err)
	}
	if e.Kind != MemoryRoutine && e.Kind != MemoryFact {
		return Errorf(CodeInvalid, "%s: kind %q: want routine or fact", TypeMemoryChecked, e.Kind)
	}
	if err := validateName(e.Name); err != nil {
		return within(TypeMemoryChecked, err)
	}
	if !e.Held && e.Why == "" {
		return Errorf(CodeInvalid, "%s: %s %s failed without a reason", TypeMemoryChecked, e.Kind, e.Name)
	}
	return nil
}
