package replay_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/bus/bustest"
	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/services/replay"
	"github.com/rote-agent/rote/services/replay/replaytest"
)

// signInRoutine is a routine of site memory: sign in, then the home page
// must show.
const signInRoutine = `name: sign-in
intent: fill textbox "Password", click button "Sign in"
params:
  password: {type: secret}
steps:
  - {id: password, kind: deterministic, tool: fill, target: {role: textbox, name: Password}, args: {value: "{{password}}"}}
  - {id: go, kind: deterministic, tool: click, target: {role: button, name: Sign in}, needs: [password]}
verify: [{url_contains: /home}]
`

// TestRoutineRunsInsideARun: a routine's steps act in the run that holds
// it, their ids prefixed and classed as the request says, and its
// postcondition is checked; no run of its own starts or finishes. A
// postcondition that fails, or a step that does, stops it where it did.
func TestRoutineRunsInsideARun(t *testing.T) {
	p, err := schema.DecodePlaybook([]byte(signInRoutine))
	if err != nil {
		t.Fatal(err)
	}
	p.Fingerprint = fp
	for _, c := range []struct {
		name   string
		script map[string][]replaytest.Outcome
		failed string
		reason error
	}{
		{"it holds", map[string][]replaytest.Outcome{"s3-password": {ok(away)}, "s3-go": {ok(home)}}, "", nil},
		{"its postcondition fails", map[string][]replaytest.Outcome{"s3-password": {ok(away)}, "s3-go": {ok(away)}}, "s3-post", schema.ErrExpectFailed},
		{"a step fails", map[string][]replaytest.Outcome{"s3-password": {fails(schema.CodeNotFound)}}, "s3-password", schema.ErrNotFound},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := bustest.Start(t)
			d := &replaytest.Scripted{FP: fp, Steps: c.script}
			res, err := executor(b).RunRoutine(ctx(t), replay.RoutineRequest{Routine: p, Params: map[string]string{"password": "hunter2-secret"},
				Open: opener(d), RunID: "AGENT1", Prefix: "s3-", Class: schema.ClassSpeculated})
			if err != nil {
				t.Fatal(err)
			}
			if (res.Outcome == schema.OutcomeSuccess) != (c.failed == "") || res.FailedStep != c.failed || (c.reason != nil && !errors.Is(res.Reason, c.reason)) {
				t.Fatalf("%s at %q: %v", res.Outcome, res.FailedStep, res.Reason)
			}
			for _, s := range res.Steps {
				if s.Class != schema.ClassSpeculated || s.Calls != 0 {
					t.Errorf("step %s is %s with %d model calls", s.StepID, s.Class, s.Calls)
				}
			}
			envs, err := b.Runs().ReadRun(ctx(t), "AGENT1")
			if err != nil && !errors.Is(err, bus.ErrRunNotFound) {
				t.Fatal(err)
			}
			var kinds []string
			for _, e := range envs {
				kinds = append(kinds, e.Event.EventType())
				if s, ok := e.Event.(*schema.ExpectChecked); ok && s.StepID != "s3-post" {
					t.Errorf("a check recorded for step %q", s.StepID)
				}
			}
			if slices.Contains(kinds, schema.TypeRunStarted) || slices.Contains(kinds, schema.TypeRunFinished) || slices.Contains(kinds, schema.TypeVerifyChecked) {
				t.Errorf("the routine recorded a run of its own: %v", kinds)
			}
			if c.failed != "s3-password" && !slices.Contains(kinds, schema.TypeExpectChecked) {
				t.Errorf("the postcondition was not recorded: %v", kinds)
			}
		})
	}
	// A routine bound to another site never starts.
	b := bustest.Start(t)
	d := &replaytest.Scripted{FP: "other"}
	if _, err := executor(b).RunRoutine(ctx(t), replay.RoutineRequest{Routine: p, Params: map[string]string{"password": "x"}, Open: opener(d), RunID: "AGENT2", Prefix: "s1-", Class: schema.ClassSpeculated}); !errors.Is(err, schema.ErrFingerprint) {
		t.Fatalf("another site: %v", err)
	}
}
