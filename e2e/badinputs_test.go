package e2e

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/services/recorder/recordertest"
	"github.com/rote-agent/rote/services/replay"
)

// fixtureOpener replays against our go-sdk fixture MCP server,
// recording on b.
func fixtureOpener(b *bus.Bus) replay.Opener {
	cmd, env := recordertest.Command()
	return func(ctx context.Context, runID string, _ []string) (replay.Dispatcher, error) {
		return replay.OpenMCPDispatcher(ctx, replay.MCPConfig{Command: cmd, Env: env, Runs: b.Runs(), RunID: runID})
	}
}

const echoPlaybook = `name: echo
intent: echo {{text}}
params:
  text: {type: string, required: true}
steps:
  - id: say
    kind: deterministic
    tool: echo
    args: {text: "{{text}}"}
    expect: [{text_visible: "{{text}}"}]
verify: [{output_matches: "{{text}}"}]
`

func decodeOrFail(t *testing.T, doc string) *schema.Playbook {
	t.Helper()
	p, err := schema.DecodePlaybook([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestBadInputsGiveTypedErrors is the table of bad replays and the typed
// error each gives, before the run (refusals) or in its result.
func TestBadInputsGiveTypedErrors(t *testing.T) {
	t.Parallel()
	n := start(t, nil)
	ex, open := n.Executor(), fixtureOpener(n.Bus())
	good := decodeOrFail(t, echoPlaybook)
	with := func(edit func(p *schema.Playbook)) *schema.Playbook {
		p := decodeOrFail(t, echoPlaybook)
		edit(p)
		return p
	}
	cases := []struct {
		name     string
		playbook *schema.Playbook
		params   map[string]string
		unbound  bool
		refused  error          // the error Replay returns, or
		outcome  schema.Outcome // the outcome it reports
		reason   error
	}{
		{"missing param", good, map[string]string{}, true, schema.ErrMissingParam, "", nil},
		{"unknown param", good, map[string]string{"text": "hi", "colour": "red"}, true, schema.ErrUnknownParam, "", nil},
		{"wrong type", with(func(p *schema.Playbook) {
			p.Params["times"] = schema.Param{Type: schema.ParamNumber}
			p.Steps[0].Args["times"] = "{{times}}"
		}), map[string]string{"text": "hi", "times": "many"}, true, schema.ErrParamType, "", nil},
		{"unknown step in needs", with(func(p *schema.Playbook) { p.Steps[0].Needs = []string{"ghost"} }), map[string]string{"text": "hi"}, true, schema.ErrInvalid, "", nil},
		{"cycle", with(func(p *schema.Playbook) {
			p.Steps = append(p.Steps, schema.Step{ID: "again", Kind: schema.StepDeterministic, Tool: "echo", Needs: []string{"say"}})
			p.Steps[0].Needs = []string{"again"}
		}), map[string]string{"text": "hi"}, true, schema.ErrInvalid, "", nil},
		{"fingerprint mismatch", with(func(p *schema.Playbook) { p.Fingerprint = strings.Repeat("0", 64) }), map[string]string{"text": "hi"}, false, schema.ErrFingerprint, "", nil},
		{"unbound, not given as a file", good, map[string]string{"text": "hi"}, false, schema.ErrFingerprint, "", nil},
		{"unknown tool", with(func(p *schema.Playbook) { p.Steps[0].Tool = "teleport" }), map[string]string{"text": "hi"}, true, nil, schema.OutcomeFallback, schema.ErrNotFound},
		{"judgment, no planner", with(func(p *schema.Playbook) {
			p.Steps = append(p.Steps, schema.Step{ID: "pick", Kind: schema.StepJudgment, Prompt: "pick", Options: []string{"a", "b"}, Needs: []string{"say"}})
		}), map[string]string{"text": "hi"}, true, nil, schema.OutcomeFallback, schema.ErrUnavailable},
		{"repair, no planner", with(func(p *schema.Playbook) {
			p.Steps[0].Tool = "teleport"
			p.Steps[0].OnFail = schema.OnFail{Policy: schema.FailRepair}
		}), map[string]string{"text": "hi"}, true, nil, schema.OutcomeFallback, schema.ErrRepairUnavailable},
		// A call the server answered may have changed something: no
		// repair makes another in its place.
		{"repair after a call that was answered", with(func(p *schema.Playbook) {
			p.Steps[0].Expect = []schema.Expect{{Op: schema.OpTextVisible, Arg: "never said"}}
			p.Steps[0].OnFail = schema.OnFail{Policy: schema.FailRepair}
		}), map[string]string{"text": "hi"}, true, nil, schema.OutcomeFallback, schema.ErrUnrepeatable},
		{"expect the world cannot answer", with(func(p *schema.Playbook) {
			p.Steps[0].Expect = []schema.Expect{{Op: schema.OpURLContains, Arg: "/x"}}
		}), map[string]string{"text": "hi"}, true, nil, schema.OutcomeFailed, schema.ErrNotApplicable},
		{"verify fails", with(func(p *schema.Playbook) {
			p.Verify = []schema.Expect{{Op: schema.OpOutputMatches, Arg: "^never$"}}
		}), map[string]string{"text": "hi"}, true, nil, schema.OutcomeFailed, schema.ErrExpectFailed},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := ex.Replay(testContext(t), replay.Request{Playbook: c.playbook, Params: c.params, AllowUnbound: c.unbound, Open: open})
			if c.refused != nil {
				if !errors.Is(err, c.refused) {
					t.Fatalf("got %v, want %v", err, c.refused)
				}
				t.Logf("| %s | refused: %v |", c.name, err)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.Outcome != c.outcome || !errors.Is(res.Reason, c.reason) {
				t.Fatalf("outcome %s (%v), want %s (%v)", res.Outcome, res.Reason, c.outcome, c.reason)
			}
			t.Logf("| %s | %s at %s: %v |", c.name, res.Outcome, stepOrVerify(res.FailedStep), res.Reason)
		})
	}
	res, err := ex.Replay(testContext(t), replay.Request{Playbook: good, Params: map[string]string{"text": "hi"}, AllowUnbound: true, Open: open})
	if err != nil || res.Outcome != schema.OutcomeSuccess {
		t.Fatalf("the good playbook: %v %+v", err, res)
	}
}

func stepOrVerify(step string) string {
	if step == "" {
		return "verify"
	}
	return fmt.Sprintf("step %s", step)
}
