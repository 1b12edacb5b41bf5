package schema

import (
	"fmt"
	"slices"
	"strings"
)

// Audit is a run re-derived from its events, without trusting its
// summary, and compared with the manifest its run.finished records.
type Audit struct {
	RunID    string        `json:"run_id"`
	Recorded *Manifest     `json:"recorded,omitempty"` // nil when the run never finished
	Outcome  Outcome       `json:"derived_outcome"`
	Usage    []SourceUsage `json:"derived_usage"`
	// Classes are the manifest's steps by class, with the model calls
	// and tokens their llm.call events name them by.
	Classes []ClassUsage `json:"derived_classes,omitempty"`
	// Memory are the site memory items the run used, each with whether
	// the page bore it out: "routine sign-in held at s2".
	Memory     []string `json:"memory_used,omitempty"`
	Events     int      `json:"events"`
	Offline    bool     `json:"offline_model"` // a call came from the scripted test model
	Mismatches []string `json:"mismatches"`
	Agrees     bool     `json:"agrees"`
	// Unsigned: the reader held no signing key, so a forged event would
	// not have been told from a real one (see bus.HeaderSignature).
	Unsigned bool `json:"signatures_unchecked,omitempty"`
}

// AuditRun derives r's outcome (success only with a verify that passed;
// fallback only when a run continues it: children are the runs whose
// parent r is), its model calls and tokens by source (its llm.call
// events), and whether its browser events are numbered without a gap,
// and lists every difference from its manifest.
func AuditRun(r *RunFold, children []string) *Audit {
	a := &Audit{RunID: r.RunID, Events: r.Events, Usage: r.Usage(), Offline: r.Offline()}
	for _, m := range r.Memory {
		verdict := "held"
		if !m.Held {
			verdict = "did not hold (" + m.Why + ")"
		}
		a.Memory = append(a.Memory, fmt.Sprintf("%s %s %s at %s", m.Kind, m.Name, verdict, m.StepID))
	}
	if r.Finished != nil {
		m := r.Finished.Manifest
		a.Recorded = &m
	}
	mismatch := func(format string, args ...any) { a.Mismatches = append(a.Mismatches, fmt.Sprintf(format, args...)) }
	if r.Finishes > 1 {
		mismatch("%d run.finished events: a run finishes once, so all but one were forged or replayed", r.Finishes)
	}
	for _, u := range r.Undecodable {
		mismatch("a message that is no valid, signed event: %s", u)
	}
	switch {
	case r.Verified():
		a.Outcome = OutcomeSuccess
	case len(children) > 0:
		a.Outcome = OutcomeFallback
	case a.Recorded != nil && a.Recorded.Outcome != OutcomeSuccess:
		// Without a passed verify or a continuation the events say only
		// that it did not succeed; which failure it was is the manifest's.
		a.Outcome = a.Recorded.Outcome
	default:
		a.Outcome = OutcomeFailed
	}
	if r.Started == nil {
		mismatch("no run.started event")
	}
	if m := a.Recorded; m == nil {
		mismatch("no run.finished event: the run never finished (rote runs list shows it as running)")
	} else {
		if s := r.Started; s != nil && (m.RunID != s.RunID || m.Mode != s.Mode || m.Parent != s.Parent) {
			mismatch("run.finished names run %s (%s, parent %q), run.started %s (%s, parent %q)", m.RunID, m.Mode, m.Parent, s.RunID, s.Mode, s.Parent)
		}
		if m.Outcome != a.Outcome {
			mismatch("outcome: recorded %s, derived %s", m.Outcome, a.Outcome)
		}
		if m.Outcome == OutcomeFallback && len(children) == 0 {
			mismatch("outcome fallback, but no run continues it")
		}
		if !slices.Equal(m.Usage, a.Usage) {
			mismatch("usage: recorded %s, derived from %d llm.call event(s) %s", UsageText(m.Usage), len(r.LLMCalls), UsageText(a.Usage))
		}
		a.Classes = auditClasses(r, m.Steps, mismatch)
	}
	for _, gap := range r.browserSeqGaps() {
		mismatch("browser events numbered %d then %d: an event is missing or out of order", gap[0], gap[1])
	}
	a.Agrees = len(a.Mismatches) == 0
	return a
}

// browserSeqGaps are the places where the run's browser events (actions
// and observations share one numbering), in the order they were
// recorded, skip, repeat or go back a number.
func (r *RunFold) browserSeqGaps() [][2]uint64 {
	seqs := r.browserSeqs
	var gaps [][2]uint64
	for i := 1; i < len(seqs); i++ {
		if seqs[i] != seqs[i-1]+1 {
			gaps = append(gaps, [2]uint64{seqs[i-1], seqs[i]})
		}
	}
	return gaps
}

// UsageText says per source how many calls and tokens usage holds, or
// "none".
func UsageText(usage []SourceUsage) string {
	if len(usage) == 0 {
		return "none"
	}
	var parts []string
	for _, s := range usage {
		parts = append(parts, fmt.Sprintf("%s %d call(s) %d tokens (uncached %d, cache read %d, cache write %d, output %d)",
			s.Source, s.Calls, s.Tokens.Logical(), s.Tokens.Uncached, s.Tokens.CacheRead, s.Tokens.CacheWrite, s.Tokens.Output))
	}
	return strings.Join(parts, "; ")
}

// auditClasses tallies steps by their recorded class with the model calls
// and tokens of the llm.call events that name each step, and names a
// step whose recorded calls differ from its events, or a step taken from
// site memory (speculated, grounded-routine) that a model call names,
// but for the step at which the model chose a routine that ran. A step
// recorded before steps were classed is tallied, not checked.
// choseRoutine reports whether step id is where the model called a
// routine: the routine's own steps ran under it (id-...).
func choseRoutine(steps []StepReport, id string) bool {
	return slices.ContainsFunc(steps, func(s StepReport) bool {
		return s.Class == ClassGroundedRoutine && strings.HasPrefix(s.StepID, id+"-")
	})
}

func auditClasses(r *RunFold, steps []StepReport, mismatch func(string, ...any)) []ClassUsage {
	steps = slices.Clone(steps)
	for i := range steps {
		s := &steps[i]
		calls, tokens := 0, TokenUsage{}
		for _, c := range r.LLMCalls {
			if c.StepID == s.StepID {
				calls++
				tokens = tokens.Plus(c.Usage)
			}
		}
		if s.Class != "" && calls != s.Calls {
			mismatch("step %s: recorded %d model call(s), its llm.call events %d", s.StepID, s.Calls, calls)
		}
		if calls > 0 && (s.Class == ClassSpeculated || s.Class == ClassGroundedRoutine && !choseRoutine(steps, s.StepID)) {
			mismatch("step %s ran from site memory (%s), which asks no model, yet %d llm.call event(s) name it", s.StepID, s.Class, calls)
		}
		s.Calls, s.Tokens = calls, tokens
	}
	return TallyClasses(steps)
}
