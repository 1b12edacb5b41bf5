package replay_test

import (
	"errors"
	"testing"

	"github.com/rote-agent/rote/bus/bustest"
	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/services/replay"
	"github.com/rote-agent/rote/services/replay/replaytest"
)

// labelRecord is a create-then-label playbook whose label call takes the
// id the create call returned; create would be retried, were it a read.
func labelRecord(t *testing.T) *schema.Playbook {
	t.Helper()
	p := &schema.Playbook{
		Name: "label-record", Intent: "create a record named {{name}} and label it {{label}}", Fingerprint: fp,
		Params: map[string]schema.Param{"name": {Type: schema.ParamString, Required: true}, "label": {Type: schema.ParamString, Required: true}},
		Steps: []schema.Step{
			{ID: "create", Kind: schema.StepDeterministic, Tool: "create_record", Args: map[string]any{"name": "{{name}}"},
				OnFail: schema.OnFail{Policy: schema.FailRetry, Retries: 2}, Outputs: map[string]schema.Output{"id": {JSON: "$.id"}}},
			{ID: "tag", Kind: schema.StepDeterministic, Needs: []string{"create"}, Tool: "label_record",
				Args: map[string]any{"id": "{{steps.create.id}}", "label": "{{label}}"}},
		},
		Verify: []schema.Expect{{Op: schema.OpTextVisible, Arg: "labelled"}},
	}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	return p
}

func created(structured string) replaytest.Outcome {
	return ok(schema.ToolResultWorld([]byte(`{"content":[{"type":"text","text":"created"}],"structuredContent":` + structured + `}`)))
}

// TestOutputsBindTheNewObject: the id the create call returns at replay
// is what the label call receives; an id the result does not hold, or
// holds twice, stops the replay before the label call is sent, without
// calling create again.
func TestOutputsBindTheNewObject(t *testing.T) {
	b := bustest.Start(t)
	labelled := ok(schema.World{Text: "labelled"})
	for _, c := range []struct {
		name   string
		create replaytest.Outcome
		code   schema.Code
	}{
		{"a new id", created(`{"id":"r-18"}`), ""},
		{"no id in the result", created(`{"name":"Globex"}`), schema.CodeBindingNotFound},
		{"a list where the id was", created(`{"id":[{"id":"r-18"},{"id":"r-19"}]}`), schema.CodeBindingNotFound},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := labelRecord(t)
			d := &replaytest.Scripted{FP: fp, Steps: map[string][]replaytest.Outcome{"create": {c.create}, "tag": {labelled}}}
			res, err := executor(b).Replay(ctx(t), replay.Request{Playbook: p, Params: map[string]string{"name": "Globex", "label": "urgent"}, Open: opener(d)})
			if err != nil {
				t.Fatal(err)
			}
			calls := d.Calls()
			if c.code == "" {
				if res.Outcome != schema.OutcomeSuccess || len(calls) != 2 || calls[1].Args["id"] != "r-18" {
					t.Fatalf("%s %+v, calls %+v", res.Outcome, res.Reason, calls)
				}
				return
			}
			if res.Outcome != schema.OutcomeFallback || res.FailedStep != "create" || !errors.Is(res.Reason, &schema.Error{Code: c.code}) {
				t.Fatalf("%s at %s: %+v", res.Outcome, res.FailedStep, res.Reason)
			}
			if len(calls) != 1 {
				t.Fatalf("%d calls after an output was not found, want the one create: %+v", len(calls), calls)
			}
		})
	}
}

// TestAClickOnABoxAlreadyAsLeftIsLeftOut: a click that ticked a box when
// recorded, replayed on a page where that box is ticked already, is left
// out (clicked, it would untick it) and the replay goes on and succeeds;
// a box half ticked stops it before the click.
func TestAClickOnABoxAlreadyAsLeftIsLeftOut(t *testing.T) {
	b := bustest.Start(t)
	p := &schema.Playbook{
		Name: "notify", Intent: "turn on notifications", Fingerprint: fp,
		Steps: []schema.Step{
			{ID: "look", Kind: schema.StepDeterministic, Tool: "browser_snapshot",
				Outputs: map[string]schema.Output{"box": {Line: `- checkbox "Notifications" [ref=`, Token: "[a-z0-9]", State: "none"}}},
			{ID: "tick", Kind: schema.StepDeterministic, Needs: []string{"look"}, Tool: "browser_click", Args: map[string]any{"ref": "{{steps.look.box}}"}},
			{ID: "save", Kind: schema.StepDeterministic, Needs: []string{"tick"}, Tool: "browser_click", Args: map[string]any{"ref": "e9"}},
		},
		Verify: []schema.Expect{{Op: schema.OpTextVisible, Arg: "saved"}},
	}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	saved := ok(schema.World{Text: "saved"})
	for _, c := range []struct {
		name, line string
		code       schema.Code
		calls      int
	}{
		{"ticked already", `- checkbox "Notifications" [checked] [ref=e4]`, "", 2},
		{"not ticked", `- checkbox "Notifications" [ref=e4]`, "", 3},
		{"half ticked", `- checkbox "Notifications" [checked=mixed] [ref=e4]`, schema.CodeStateChanged, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := &replaytest.Scripted{FP: fp, Steps: map[string][]replaytest.Outcome{"look": {ok(schema.World{Text: c.line})}, "tick": {saved}, "save": {saved}}}
			res, err := executor(b).Replay(ctx(t), replay.Request{Playbook: p, Open: opener(d)})
			if err != nil {
				t.Fatal(err)
			}
			if calls := d.Calls(); len(calls) != c.calls {
				t.Fatalf("%d calls, want %d: %+v", len(calls), c.calls, calls)
			}
			if c.code == "" && res.Outcome != schema.OutcomeSuccess || c.code != "" && !errors.Is(res.Reason, &schema.Error{Code: c.code}) {
				t.Fatalf("%s: %+v", res.Outcome, res.Reason)
			}
		})
	}
}
