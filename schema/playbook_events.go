package schema

// PlaybookPromoted records a playbook version entering the store after a
// green shadow replay (RunID is that replay).
type PlaybookPromoted struct {
	Meta        `msgpack:",inline"`
	RunID       string `msgpack:"run_id" json:"run_id"`
	Name        string `msgpack:"name" json:"name"`
	Fingerprint string `msgpack:"fingerprint" json:"fingerprint"`
	Version     uint64 `msgpack:"version" json:"version"`
	SourceRun   string `msgpack:"source_run,omitempty" json:"source_run,omitempty"` // the run it was distilled from
	Document    []byte `msgpack:"document" json:"document"`                         // the playbook as YAML
}

// EventType returns TypePlaybookPromoted.
func (*PlaybookPromoted) EventType() string { return TypePlaybookPromoted }

// Subject returns rote.runs.<run_id>.playbook.
func (e *PlaybookPromoted) Subject() string { return RunSubject(e.RunID, KindPlaybook) }

// Validate checks identity, name, fingerprint, version and document.
func (e *PlaybookPromoted) Validate() error {
	if err := e.Meta.validate(TypePlaybookPromoted); err != nil {
		return err
	}
	return within(TypePlaybookPromoted, validatePlaybookEvent(e.RunID, e.Name, e.Fingerprint, e.Version, e.Document))
}

// PlaybookPatched records a scoped repair saved as a new playbook version.
type PlaybookPatched struct {
	Meta        `msgpack:",inline"`
	RunID       string `msgpack:"run_id" json:"run_id"` // the replay that repaired it
	Name        string `msgpack:"name" json:"name"`
	Fingerprint string `msgpack:"fingerprint" json:"fingerprint"`
	FromVersion uint64 `msgpack:"from_version" json:"from_version"`
	Version     uint64 `msgpack:"version" json:"version"`
	StepID      string `msgpack:"step_id" json:"step_id"`
	Reason      string `msgpack:"reason" json:"reason"` // why the old step failed
	Document    []byte `msgpack:"document" json:"document"`
}

// EventType returns TypePlaybookPatched.
func (*PlaybookPatched) EventType() string { return TypePlaybookPatched }

// Subject returns rote.runs.<run_id>.playbook.
func (e *PlaybookPatched) Subject() string { return RunSubject(e.RunID, KindPlaybook) }

// Validate checks identity, the version step and the patched step.
func (e *PlaybookPatched) Validate() error {
	if err := e.Meta.validate(TypePlaybookPatched); err != nil {
		return err
	}
	if err := validatePlaybookEvent(e.RunID, e.Name, e.Fingerprint, e.Version, e.Document); err != nil {
		return within(TypePlaybookPatched, err)
	}
	if e.FromVersion == 0 || e.Version <= e.FromVersion {
		return Errorf(CodeInvalid, "%s: version %d does not follow %d", TypePlaybookPatched, e.Version, e.FromVersion)
	}
	if e.StepID == "" || e.Reason == "" {
		return Errorf(CodeInvalid, "%s: missing step_id or reason", TypePlaybookPatched)
	}
	return nil
}

func validatePlaybookEvent(runID, name, fingerprint string, version uint64, doc []byte) error {
	if err := ValidateRunID(runID); err != nil {
		return err
	}
	if err := validateName(name); err != nil {
		return err
	}
	if err := ValidateFingerprint(fingerprint); err != nil {
		return err
	}
	if version == 0 {
		return Errorf(CodeInvalid, "version starts at 1")
	}
	if len(doc) == 0 {
		return Errorf(CodeInvalid, "missing document")
	}
	return nil
}
