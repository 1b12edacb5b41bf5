package schema

import (
	"cmp"
	"slices"
	"strings"
	"time"
)

// OutcomeRunning is how a run with no run.finished event reads: still
// running, or never finished. It is never recorded.
const OutcomeRunning Outcome = "running"

// RunFold is one run as its events tell it: what the audit, the
// distiller, the benchmark and `rote runs` read. Fold builds it; it is a
// pure function of the events, in the order they were recorded.
type RunFold struct {
	RunID    string
	Started  *RunStarted  // nil when the log holds no start
	Finished *RunFinished // nil while the run is open
	// Spec is the start's, with the fingerprint the manifest learned when
	// the start had none (a recorded session learns its environment as
	// it goes).
	Spec         RunSpec
	Calls        []*ToolCall        // MCP tool calls, by sequence
	Inventories  []*Inventory       // what the MCP server offered, by sequence
	Unparsed     []*Unparsed        // lines the recorder could not parse
	Actions      []*BrowserAction   // browser actions, by sequence
	Observations []*BrowserObserved // browser observations, by sequence
	LLMCalls     []*LLMCall         // model calls, as recorded
	Expects      []*ExpectChecked   // per-step checks, as recorded
	Verify       *VerifyChecked     // the last verify gate
	Promoted     []*PlaybookPromoted
	Patched      []*PlaybookPatched
	Memory       []*MemoryChecked // the site memory items it used
	Events       int              // every event folded
	// Finishes counts the run.finished events: more than one means one
	// was forged or replayed.
	Finishes int
	// Undecodable are the messages on the run's subjects that are no
	// valid event ("subject seq N: why"), as the reader found them.
	Undecodable []string
	// PlannerObservationTokens is the o200k size of the observations the
	// planner was shown: at each planner call, the last full observation
	// and the diff since, as the context layout sends them.
	PlannerObservationTokens int64
	// browserSeqs are the sequence numbers of the browser events, in the
	// order they were recorded.
	browserSeqs []uint64
}

// Fold folds the events of one run, in the order they were recorded.
// Events of another run are not expected; the first run id seen names
// the fold.
func Fold(events []Event) *RunFold {
	r := &RunFold{}
	var full, diff int64
	for _, ev := range events {
		r.Events++
		switch e := ev.(type) {
		case *RunStarted:
			r.Started, r.Spec = e, e.RunSpec
		case *RunFinished:
			r.Finished = e
			r.Finishes++
		case *ToolCall:
			r.Calls = append(r.Calls, e)
		case *Inventory:
			r.Inventories = append(r.Inventories, e)
		case *Unparsed:
			r.Unparsed = append(r.Unparsed, e)
		case *BrowserAction:
			r.Actions = append(r.Actions, e)
			r.browserSeqs = append(r.browserSeqs, e.Seq)
		case *BrowserObserved:
			r.Observations = append(r.Observations, e)
			r.browserSeqs = append(r.browserSeqs, e.Seq)
			if e.Kind == ObservationFull {
				full, diff = int64(e.Stats.Tokens), 0
			} else {
				diff = int64(e.Stats.Tokens)
			}
		case *LLMCall:
			r.LLMCalls = append(r.LLMCalls, e)
			if e.Source == SourcePlanner {
				r.PlannerObservationTokens += full + diff
			}
		case *ExpectChecked:
			r.Expects = append(r.Expects, e)
		case *VerifyChecked:
			r.Verify = e
		case *PlaybookPromoted:
			r.Promoted = append(r.Promoted, e)
		case *PlaybookPatched:
			r.Patched = append(r.Patched, e)
		case *MemoryChecked:
			r.Memory = append(r.Memory, e)
		}
	}
	if r.Started == nil && r.Finished != nil {
		r.Spec = r.Finished.RunSpec
	}
	if r.Spec.Fingerprint == "" && r.Finished != nil {
		r.Spec.Fingerprint = r.Finished.Fingerprint
	}
	r.RunID = r.Spec.RunID
	if r.RunID == "" && len(events) > 0 {
		r.RunID = RunOf(events[0])
	}
	bySeq := func(a, b uint64) int { return cmp.Compare(a, b) }
	slices.SortStableFunc(r.Calls, func(a, b *ToolCall) int { return bySeq(a.Seq, b.Seq) })
	slices.SortStableFunc(r.Inventories, func(a, b *Inventory) int { return bySeq(a.Seq, b.Seq) })
	slices.SortStableFunc(r.Actions, func(a, b *BrowserAction) int { return bySeq(a.Seq, b.Seq) })
	slices.SortStableFunc(r.Observations, func(a, b *BrowserObserved) int { return bySeq(a.Seq, b.Seq) })
	return r
}

// RunOf is the run an event of a run belongs to: the <run> of its
// subject, rote.runs.<run>.<kind>; "" for an event of no run (a task
// request).
func RunOf(ev Event) string {
	rest, ok := strings.CutPrefix(ev.Subject(), subjectRuns+".")
	if !ok {
		return ""
	}
	run, _, _ := strings.Cut(rest, ".")
	return run
}

// Manifest is the run's recorded manifest, or, while it has none, what
// its start says with OutcomeRunning.
func (r *RunFold) Manifest() Manifest {
	if r.Finished != nil {
		return r.Finished.Manifest
	}
	m := Manifest{RunSpec: r.Spec, Outcome: OutcomeRunning}
	if r.Started != nil {
		m.Started = r.Started.Time
	}
	return m
}

// Usage is the model calls and tokens per source, tallied from the run's
// own llm.call events (not from its manifest).
func (r *RunFold) Usage() []SourceUsage { return Tally(r.LLMCalls) }

// Offline reports whether the offline scripted model answered a call.
func (r *RunFold) Offline() bool {
	return slices.ContainsFunc(r.LLMCalls, func(c *LLMCall) bool { return c.Offline })
}

// ModelTime is the time the run's model calls took, together.
func (r *RunFold) ModelTime() time.Duration {
	var d time.Duration
	for _, c := range r.LLMCalls {
		d += c.Duration
	}
	return d
}

// Wall is the time from the run's start to its end; zero while it is
// open.
func (r *RunFold) Wall() time.Duration {
	if r.Finished == nil {
		return 0
	}
	started := r.Finished.Started
	if r.Started != nil {
		started = r.Started.Time
	}
	return r.Finished.Finished.Sub(started)
}

// Verified reports whether the run's last verify gate passed.
func (r *RunFold) Verified() bool { return r.Verify != nil && r.Verify.Passed }

// Done is the agent's answer: the reason of its last done.
func (r *RunFold) Done() string {
	return r.last(ActDone, func(a *BrowserAction) string { return a.Action.Reason })
}

// Read is what the run's last successful extract read.
func (r *RunFold) Read() string {
	return r.last(ActExtract, func(a *BrowserAction) string { return a.Output })
}

// Answer is what the run answered: the agent's done reason, else what a
// replay read last.
func (r *RunFold) Answer() string { return cmp.Or(r.Done(), r.Read()) }

// last is what of the run's last successful action of kind.
func (r *RunFold) last(kind ActionKind, what func(*BrowserAction) string) string {
	for i := len(r.Actions) - 1; i >= 0; i-- {
		if a := r.Actions[i]; a.Error == nil && a.Action.Kind == kind {
			return what(a)
		}
	}
	return ""
}

// Steps is the number of tool calls and browser actions the run made.
func (r *RunFold) Steps() int { return len(r.Calls) + len(r.Actions) }

// LastResult is the last tool call that succeeded with a result: what a
// recorded session's verify assertions are checked against. Nil when
// there is none.
func (r *RunFold) LastResult() *ToolCall {
	for i := len(r.Calls) - 1; i >= 0; i-- {
		if c := r.Calls[i]; c.Error == nil && !c.Offered && (len(c.Result) > 0 || c.BlobRef != "") {
			return c
		}
	}
	return nil
}

// BlobRefs are the digests of the payloads the run keeps in the blob
// store, each once, in the order its events name them.
func (r *RunFold) BlobRefs() []string {
	var refs []string
	add := func(ref string) {
		if ref != "" && !slices.Contains(refs, ref) {
			refs = append(refs, ref)
		}
	}
	for _, c := range r.Calls {
		add(c.BlobRef)
		add(c.ArgumentsRef)
	}
	for _, u := range r.Unparsed {
		add(u.BlobRef)
	}
	return refs
}
