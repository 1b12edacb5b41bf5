package distiller

import (
	"context"
	"fmt"
	"time"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/schema"
)

// Shadow replays a candidate against the live environment, as a shadow
// run: the actuator's executor, composed in by the caller.
type Shadow func(ctx context.Context, p *schema.Playbook) (*schema.ReplayResult, error)

// Promotion is a promoted playbook and the shadow replay that earned it.
type Promotion struct {
	Entry  *bus.PlaybookEntry
	Shadow *schema.ReplayResult
}

// Promote shadow-replays c and, only when the replay verifies, stores the
// playbook (its first version under its fingerprint and name, or the
// next) and records playbook.promoted.v1 in the shadow run. A shadow
// replay that does not verify is a *schema.Error with CodeUnverified,
// and nothing is stored. The playbook goes to playbooks, the event to
// runs.
func Promote(ctx context.Context, playbooks *bus.PlaybookStore, runs *bus.RunLog, c *Candidate, shadow Shadow) (*Promotion, error) {
	if c.Playbook.Fingerprint == "" {
		return nil, schema.Errorf(schema.CodeFingerprint, "playbook %s has no fingerprint: the run it came from recorded no environment", c.Playbook.Name)
	}
	res, err := shadow(ctx, c.Playbook)
	if err != nil {
		return nil, err
	}
	if res.Outcome != schema.OutcomeSuccess {
		return &Promotion{Shadow: res}, schema.Errorf(schema.CodeUnverified, "shadow replay %s %s at %q: %v; not promoted", res.RunID, res.Outcome, res.FailedStep, res.Reason)
	}
	note := "distilled from run " + c.SourceRun + "; shadow replay " + res.RunID
	if n := learnContracts(c.Playbook, res.Contracts, c.binder); n > 0 {
		note += fmt.Sprintf("; the contracts of %d control(s) as the shadow replay read them", n)
	}
	entry, err := playbooks.Put(ctx, c.Playbook, "promote", note)
	if err != nil {
		return nil, err
	}
	ev := &schema.PlaybookPromoted{Meta: schema.Meta{ID: res.RunID + "-promoted", Time: time.Now()}, RunID: res.RunID, Name: entry.Name,
		Fingerprint: entry.Fingerprint, Version: entry.Stored.Version, SourceRun: c.SourceRun, Document: entry.Stored.Document}
	if _, err := runs.Publish(ctx, ev); err != nil {
		return nil, err
	}
	return &Promotion{Entry: entry, Shadow: res}, nil
}

// learnContracts records on each step of p that has none the contract
// its control had in the shadow replay, its addresses templated with the
// run's values (b, when known: /search?product={{product|query}}), less
// the addresses that name a record (dropVaryingAddresses), and returns
// how many it set. Steps
// whose distillation knew the contract keep theirs.
func learnContracts(p *schema.Playbook, contracts map[string]*schema.Contract, b *binder) int {
	n := 0
	for i := range p.Steps {
		s := &p.Steps[i]
		read, ok := contracts[s.ID]
		if !ok || read == nil || s.Target != nil && s.Target.Contract != nil {
			continue
		}
		c := *read
		if b != nil {
			c.FormAction, c.Href = b.within(c.FormAction), b.within(c.Href)
		}
		dropVaryingAddresses(&c)
		if byPlace(p, s) {
			c.Href = "" // the address of the record that place held in the shadow replay
		}
		if s.Target == nil {
			s.Target = &schema.Target{}
		}
		s.Target.Contract = &c
		n++
	}
	return n
}

// byPlace reports whether step s acts on a control that an output found
// by its place (schema.Output.Place): the third result's link, whatever
// its address.
func byPlace(p *schema.Playbook, s *schema.Step) bool {
	refs, _ := schema.RefsIn(s.Args)
	for _, r := range refs {
		for _, from := range p.Steps {
			if from.ID == r.Step && from.Outputs[r.Output].Place != nil {
				return true
			}
		}
	}
	return false
}
