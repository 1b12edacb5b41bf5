package replay

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/schema"
)

// patch is a step replaced by a scoped repair.
type patch struct {
	step   schema.Step
	reason string
}

// repair asks the planner for one replacement of a failed step, runs it
// in the step's place and checks its expect. A replacement that holds is
// kept, to be saved as a new playbook version if the replay verifies;
// otherwise the replay falls back.
func (x *replay) repair(ctx context.Context, s *schema.Step, failure error, attempt int) (schema.TokenUsage, error) {
	w, err := x.look(ctx, s.ID, true)
	if err != nil {
		return schema.TokenUsage{}, err
	}
	cctx, cancel := context.WithTimeout(ctx, x.e.cfg.PlannerTimeout)
	defer cancel()
	var rep schema.RepairReply
	req := &schema.RepairRequest{RunID: x.runID, Playbook: x.res.Playbook, Intent: x.r.Playbook.Intent, Step: *s, Failure: *schema.AsError(failure), Page: pageText(w)}
	err = x.e.rpc.Call(cctx, schema.SubjectRepair, req, &rep)
	if errors.Is(err, bus.ErrNoService) {
		return schema.TokenUsage{}, schema.Errorf(schema.CodeRepairUnavailable, "step %s failed (%v) and no planner answered the repair request", s.ID, failure)
	}
	if err != nil {
		return schema.TokenUsage{}, fmt.Errorf("step %s failed (%v); repair: %w", s.ID, failure, err)
	}
	x.calls = append(x.calls, &schema.LLMCall{Source: schema.SourceRepair, Usage: rep.Usage})
	if rep.Clears {
		return rep.Usage, x.clear(ctx, s, rep.Step, failure, attempt)
	}
	fixed := rep.Step
	// The replacement is the same step on another control: its place,
	// dependencies and drift policy stay, so that a page that changes
	// back is repaired again instead of falling back.
	fixed.ID, fixed.Needs, fixed.Kind, fixed.OnFail = s.ID, s.Needs, schema.StepDeterministic, s.OnFail
	if _, err := x.patched([]patch{{step: fixed}}); err != nil {
		return rep.Usage, fmt.Errorf("step %s: the repair proposes an invalid step: %w", s.ID, err)
	}
	if _, err := x.deterministic(ctx, &fixed, attempt+1); err != nil {
		return rep.Usage, fmt.Errorf("step %s failed (%v) and its repair did not hold: %w", s.ID, failure, err)
	}
	x.guard(&fixed)
	x.patches = append(x.patches, patch{step: fixed, reason: schema.AsError(failure).Error()})
	x.log.Info("step repaired", "step", s.ID, "failure", failure)
	return rep.Usage, nil
}

// guard gives a repaired step the contract of the control it just acted
// on, so that its saved version refuses a changed control as a distilled
// step does, instead of acting on whatever has its role and name.
func (x *replay) guard(s *schema.Step) {
	r, ok := x.d.(Resolver)
	if !ok || s.Target == nil || s.Target.Contract != nil {
		return
	}
	if t := r.Resolved(); t != nil && t.Contract != nil && t.Role == s.Target.Role && t.Name == s.Target.Name {
		target := *s.Target
		target.Contract = t.Contract
		s.Target = &target
	}
}

// clear runs the step that clears what covers s's control, then s itself
// as it is. Nothing is saved: what was in the way (a notice, a consent
// dialog) is not part of the task, and the playbook stays as it was.
func (x *replay) clear(ctx context.Context, s *schema.Step, clearing schema.Step, failure error, attempt int) error {
	clearing.Kind = schema.StepDeterministic
	if _, err := x.deterministic(ctx, &clearing, attempt+1); err != nil {
		return fmt.Errorf("step %s failed (%v) and clearing the way did not work: %w", s.ID, failure, err)
	}
	if _, err := x.deterministic(ctx, s, attempt+2); err != nil {
		return fmt.Errorf("step %s failed (%v) and still fails once the way is clear: %w", s.ID, failure, err)
	}
	what := clearing.Tool
	if t := clearing.Target; t != nil {
		what += " " + t.Role + " " + strconv.Quote(t.Name)
	}
	x.res.PatchNote = fmt.Sprintf("cleared what covered %s (%s) for this run; the playbook is unchanged", s.ID, what)
	return nil
}

// patched returns a copy of the playbook with patches applied.
func (x *replay) patched(patches []patch) (*schema.Playbook, error) {
	doc, err := schema.EncodePlaybook(x.r.Playbook)
	if err != nil {
		return nil, err
	}
	p, err := schema.DecodePlaybook(doc)
	if err != nil {
		return nil, err
	}
	for _, pt := range patches {
		for i := range p.Steps {
			if p.Steps[i].ID == pt.step.ID {
				p.Steps[i] = pt.step
			}
		}
	}
	return p, p.Validate()
}

// savePatches stores a verified replay's repairs as the playbook's next
// version and records playbook.patched.v1. A playbook replayed from a
// file, or not bound to an environment, is repaired for this run only.
func (x *replay) savePatches(ctx context.Context) error {
	if len(x.patches) == 0 {
		return nil
	}
	if x.r.Version == 0 || x.r.Playbook.Fingerprint == "" {
		x.res.PatchNote = "repaired for this run only: the playbook was not replayed from the store as a bound version"
		return nil
	}
	p, err := x.patched(x.patches)
	if err != nil {
		return err
	}
	var ids, reasons []string
	for _, pt := range x.patches {
		ids, reasons = append(ids, pt.step.ID), append(reasons, pt.step.ID+": "+pt.reason)
	}
	note := fmt.Sprintf("scoped repair of %s in run %s", strings.Join(ids, ", "), x.runID)
	entry, err := x.e.playbooks.Put(ctx, p, "patch", note)
	if err != nil {
		return err
	}
	ev := &schema.PlaybookPatched{Meta: schema.Meta{ID: x.runID + "-patched", Time: time.Now()}, RunID: x.runID, Name: p.Name,
		Fingerprint: p.Fingerprint, FromVersion: x.r.Version, Version: entry.Stored.Version, StepID: strings.Join(ids, ","),
		Reason: strings.Join(reasons, "; "), Document: entry.Stored.Document}
	if _, err := x.e.runs.Publish(ctx, ev); err != nil {
		return err
	}
	x.res.Patched = &schema.PlaybookRef{Name: p.Name, Version: entry.Stored.Version}
	return nil
}
