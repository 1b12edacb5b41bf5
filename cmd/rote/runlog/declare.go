package runlog

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/schema"
)

// Declaration is what a person says, after the fact, of a run recorded
// without flags: its task, parameters, secrets, verify gate, and the
// slice of its tool calls that did the task. rote learn and rote distill
// take it from their flags.
type Declaration struct {
	Name, Text string
	// Params, when any is given with Secrets, replace the recorded ones.
	Params map[string]string
	// Secrets are clear values; the fold keeps only their digests.
	Secrets map[string]string
	// Verify is checked against the last kept result (LastWorld) and
	// becomes the fold's verify gate.
	Verify []schema.Expect
	// From and To, when set, keep only the tool calls with those
	// sequence numbers (an MCP session's; 0 is open-ended).
	From, To uint64
}

// ErrBadDeclaration is wrapped by the errors of a Declaration that
// contradicts itself or the run: the command line is at fault.
var ErrBadDeclaration = errors.New("bad declaration")

// VerifyError is a run whose last kept result fails the declared gate:
// nothing may be learned from it.
type VerifyError struct {
	RunID  string
	Seq    uint64
	Checks []schema.Check
}

func (e *VerifyError) Error() string {
	return fmt.Sprintf("run %s does not verify at seq %d: nothing learned", e.RunID, e.Seq)
}

// Declared is a run's fold with a Declaration applied (never the run
// log itself).
type Declared struct {
	Fold *schema.RunFold
	// Values are the clear values a shadow replay needs.
	Values map[string]string
	// Sliced is how many tool calls a slice kept; 0 when none was asked.
	Sliced int
	// Checks are the declared gate's checks, all passed.
	Checks []schema.Check
}

// declared reports whether d redeclares the task.
func (d Declaration) declared() bool {
	return d.Text != "" || len(d.Params)+len(d.Secrets) > 0
}

// Check reports what is wrong with d before any run is read.
func (d Declaration) Check() error {
	if d.To != 0 && d.From > d.To {
		return fmt.Errorf("%w: --from %d is after --to %d", ErrBadDeclaration, d.From, d.To)
	}
	if (d.From != 0 || d.To != 0) && len(d.Verify) == 0 {
		return fmt.Errorf("%w: a slice of a session needs its own --verify: the run's verify was of the whole session", ErrBadDeclaration)
	}
	return nil
}

// Declare folds finished run runID and applies d to the fold: the slice
// of calls, the task (secrets as digests under key, in the task and in
// every kept call, action and page), its words when it has none, and the
// verify gate, checked against the last kept result.
func Declare(ctx context.Context, runs *bus.RunLog, runID string, d Declaration, key []byte) (*Declared, error) {
	if err := d.Check(); err != nil {
		return nil, err
	}
	r, err := runs.Fold(ctx, runID)
	if err != nil {
		return nil, err
	}
	if r.Finished == nil {
		return nil, schema.Errorf(schema.CodeInvalid, "run %s has not finished", runID)
	}
	out := &Declared{Fold: r, Values: maps.Clone(r.Spec.Task.Params)}
	if d.From != 0 || d.To != 0 {
		if len(r.Actions) > 0 {
			return nil, fmt.Errorf("%w: --from and --to slice an MCP session's tool calls; run %s is a browser run", ErrBadDeclaration, runID)
		}
		r.Calls = slices.DeleteFunc(r.Calls, func(c *schema.ToolCall) bool { return c.Seq < d.From || d.To != 0 && c.Seq > d.To })
		if len(r.Calls) == 0 {
			return nil, schema.Errorf(schema.CodeInvalid, "run %s has no tool call from %d to %d", runID, d.From, d.To)
		}
		out.Sliced = len(r.Calls)
	}
	if d.declared() {
		out.Values = redeclare(r, d, key)
	}
	if d.Name != "" {
		r.Spec.Task.Name = d.Name
	}
	if r.Spec.Task.Text == "" {
		r.Spec.Task.Text = wordsFor(r.Spec.Task)
	}
	if len(d.Verify) > 0 {
		world, at, err := LastWorld(ctx, runs, r)
		if err != nil {
			return nil, err
		}
		checks, passed, err := schema.CheckAll(d.Verify, world)
		if err != nil {
			return nil, err
		}
		if !passed {
			return nil, &VerifyError{RunID: r.RunID, Seq: at, Checks: checks}
		}
		out.Checks = checks
		r.Verify = &schema.VerifyChecked{Meta: schema.Meta{Time: time.Now()}, RunID: r.RunID, Checks: checks, Passed: true}
	}
	return out, nil
}

// redeclare makes d the fold's task, with its secrets as digests, and
// returns the clear values of its parameters and secrets.
func redeclare(r *schema.RunFold, d Declaration, key []byte) map[string]string {
	task := schema.TaskSpec{Name: r.Spec.Task.Name, Text: r.Spec.Task.Text, Target: r.Spec.Task.Target, Params: maps.Clone(d.Params)}
	if d.Text != "" {
		// A secret said in the task's words is kept as its name: the
		// words become the playbook's intent.
		task.Text = schema.MaskSecrets(d.Text, d.Secrets)
	}
	if task.Params == nil {
		task.Params = map[string]string{}
	}
	redactor := schema.Redactor{Key: key, Values: slices.Collect(maps.Values(d.Secrets))}
	for k, v := range d.Secrets {
		task.Params[k] = redactor.Digest(v)
	}
	r.Spec.Task = task
	if len(d.Secrets) > 0 {
		scrub(r, redactor)
	}
	values := maps.Clone(d.Params)
	if values == nil {
		values = map[string]string{}
	}
	maps.Copy(values, d.Secrets)
	return values
}

// wordsFor is a task's text when none was given: its name and its
// parameters' values (secrets are digests, and left out), so that the
// intent names what varies.
func wordsFor(t schema.TaskSpec) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(t.Params)) {
		if !strings.HasPrefix(t.Params[k], "secret:") {
			parts = append(parts, k+" "+t.Params[k])
		}
	}
	if len(parts) == 0 {
		return t.Name
	}
	return t.Name + " with " + strings.Join(parts, ", ")
}

// scrub records the secrets in the kept calls and actions as their
// digests, as the recorder would have had they been declared when it
// recorded (a value the recorder already took for a secret, by its
// schema, is a digest already and stays one).
func scrub(r *schema.RunFold, redactor schema.Redactor) {
	for i, c := range r.Calls {
		kept := *c
		args, _ := redactor.Scrub(kept.Arguments)
		res, _ := redactor.Scrub(kept.Result)
		kept.Arguments, kept.Result = schema.RawJSON(args), schema.RawJSON(res)
		r.Calls[i] = &kept
	}
	for i, a := range r.Actions {
		kept := *a
		kept.Action.Value = redactor.ScrubString(kept.Action.Value)
		kept.Action.URL = redactor.ScrubString(kept.Action.URL)
		r.Actions[i] = &kept
	}
	for i, o := range r.Observations {
		kept := *o
		kept.Render = redactor.ScrubString(kept.Render)
		r.Observations[i] = &kept
	}
}

// SiteOf is the site a browser run worked on: its task's target, or the
// origin of the first page it observed.
func SiteOf(r *schema.RunFold) string {
	if r.Spec.Task.Target != "" || len(r.Observations) == 0 {
		return r.Spec.Task.Target
	}
	if u, err := url.Parse(r.Observations[0].URL); err == nil {
		return schema.Origin(u)
	}
	return ""
}

// LastWorld is what a verify gate is checked against after the fact:
// the last kept successful call's result (from the blob store when it
// was spilled), or for a browser run its last page as rendered (a
// shadow replay checks the gate on the page itself). It says at which
// sequence number: CodeUnverified when there is nothing to check.
func LastWorld(ctx context.Context, runs *bus.RunLog, r *schema.RunFold) (schema.World, uint64, error) {
	if len(r.Actions) > 0 {
		if len(r.Observations) == 0 {
			return schema.World{}, 0, schema.Errorf(schema.CodeUnverified, "run %s observed no page to verify", r.RunID)
		}
		o := r.Observations[len(r.Observations)-1]
		return schema.World{Page: true, URL: o.URL, Text: o.Render, Render: o.Render}, o.Seq, nil
	}
	last := r.LastResult()
	if last == nil {
		return schema.World{}, 0, schema.Errorf(schema.CodeUnverified, "run %s has no successful tool call to verify", r.RunID)
	}
	result := []byte(last.Result)
	if last.BlobRef != "" {
		var err error
		if result, err = runs.Blob(ctx, last.BlobRef); err != nil {
			return schema.World{}, 0, err
		}
	}
	return schema.ToolResultWorld(result), last.Seq, nil
}
