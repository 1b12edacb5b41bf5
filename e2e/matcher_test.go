package e2e

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/rote-agent/rote/bench/scripted"
	"github.com/rote-agent/rote/bench/suite"
	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/cmd/rote/node"
	"github.com/rote-agent/rote/schema"
)

// storeIntent stores a playbook named name bound to fp whose intent is a
// suite task's text, with a parameter per slot.
func storeIntent(t testing.TB, b *bus.Bus, fp, name string, task *suite.Task, extra ...string) {
	t.Helper()
	storePlaybook(t, b, intentPlaybook(name, task.Text, fp, append(slices.Collect(maps.Keys(task.Params(0))), extra...)))
}

// intentPlaybook is a playbook for the matcher: its intent, and a step
// that fills each parameter in (a playbook must use every one).
func intentPlaybook(name, intent, fp string, params []string) *schema.Playbook {
	p := &schema.Playbook{Name: name, Intent: intent, Fingerprint: fp, Params: map[string]schema.Param{},
		Steps:  []schema.Step{{ID: "open", Kind: schema.StepDeterministic, Tool: "navigate", Args: map[string]any{"url": "/"}}},
		Verify: []schema.Expect{{Op: schema.OpURLContains, Arg: "/"}}}
	slices.Sort(params)
	for _, k := range slices.Compact(params) {
		p.Params[k] = schema.Param{Type: schema.ParamString, Required: true}
		p.Steps = append(p.Steps, schema.Step{ID: "fill-" + strings.ReplaceAll(k, "_", "-"), Kind: schema.StepDeterministic, Tool: "fill",
			Target: &schema.Target{Role: "textbox", Name: k}, Args: map[string]any{"value": "{{" + k + "}}"}})
	}
	return p
}

func storePlaybook(t testing.TB, b *bus.Bus, p *schema.Playbook) {
	t.Helper()
	if _, err := b.Playbooks().Put(testContext(t), p, "import", ""); err != nil {
		t.Fatal(err)
	}
}

func match(t testing.TB, b *bus.Bus, fp, task string, params map[string]string) *schema.MatchReply {
	t.Helper()
	var rep schema.MatchReply
	if err := b.RPC().Call(testContext(t), schema.SubjectMatch, &schema.MatchRequest{RunID: "run-match", Fingerprint: fp, Task: task, Params: params}, &rep); err != nil {
		t.Fatal(err)
	}
	return &rep
}

// TestMatcher: same-shape tasks with new values match and bind, given as
// parameters or only as text; every near miss (the same words with
// another verb, an extra sentence) misses; nothing matches across
// fingerprints; and a parameter the task text does not give costs one
// bounded model call, tagged matcher, and binds only to a value the text
// holds.
func TestMatcher(t *testing.T) {
	t.Parallel()
	matchers := start(t, nil, node.Matcher)
	b := matchers.Bus()
	fpA, fpB := strings.Repeat("a", 64), strings.Repeat("b", 64)
	register, _ := suite.Lookup("B2")
	offboard, _ := suite.Lookup("B6")
	download, _ := suite.Lookup("B1")
	storeIntent(t, b, fpA, "register-vendor", register)
	storeIntent(t, b, fpA, "download-latest-report", download)
	storeIntent(t, b, fpB, "offboard-vendor", offboard)

	for rep := 1; rep < 4; rep++ {
		params := register.Params(rep)
		got := match(t, b, fpA, register.Render(params), params)
		if !got.Hit || got.Playbook.Name != "register-vendor" || got.Bindings["company"] != params["company"] || got.Usage.Logical() != 0 {
			t.Fatalf("rep %d: %+v", rep, got)
		}
		text := register.Render(params)
		withSecret := map[string]string{"password": params["password"]}
		if got := match(t, b, fpA, text, withSecret); !got.Hit || got.Bindings["street"] != params["street"] || got.Bindings["country"] != params["country"] {
			t.Fatalf("rep %d from text: %+v %v", rep, got, got.Bindings)
		}
	}
	params := offboard.Params(2)
	for name, task := range map[string]string{
		"offboard for register":   offboard.Render(params),
		"an extra sentence":       register.Render(params) + " Then delete the vendor.",
		"an extra clause in text": strings.Replace(register.Render(params), "as a", "as a former", 1),
	} {
		if got := match(t, b, fpA, task, params); got.Hit {
			t.Errorf("near miss %s matched %+v", name, got)
		}
	}
	if got := match(t, b, fpB, register.Render(params), params); got.Hit || got.Candidates != 1 {
		t.Errorf("matched across fingerprints: %+v", got)
	}
	if got := match(t, b, strings.Repeat("c", 64), register.Render(params), params); got.Hit || got.Reason != "no playbook is bound to this environment" {
		t.Errorf("an empty environment: %+v", got)
	}
	if got := match(t, b, fpB, offboard.Render(params), params); !got.Hit || got.Playbook.Name != "offboard-vendor" {
		t.Errorf("offboarding in its own environment: %+v", got)
	}

	// A parameter outside the intent: no planner, a miss; with one, one
	// call whose value must be in the task text.
	storeIntent(t, b, fpB, "download-latest-report", download, "format")
	text := download.Render(download.Params(0))
	if got := match(t, b, fpB, text, map[string]string{"password": "pw"}); got.Hit || !strings.Contains(got.Reason, "no planner answers") {
		t.Fatalf("no planner: %+v", got)
	}
	answer := `{"format": "operations report"}`
	startOn(t, b, scripted.OracleFunc(func(r scripted.Request) (scripted.Answer, error) { return scripted.Answer{Content: answer}, nil }), node.Planner)
	got := match(t, b, fpB, text, map[string]string{"password": "pw"})
	if !got.Hit || got.Bindings["format"] != "operations report" || got.Usage.Logical() == 0 || got.Usage.Logical() > 250 {
		t.Fatalf("bound by the model: %+v", got)
	}
	answer = `{"format": "pdf"}`
	if got := match(t, b, fpB, text, map[string]string{"password": "pw"}); got.Hit || !strings.Contains(got.Reason, "not in the task text") {
		t.Fatalf("a value the text does not hold: %+v", got)
	}
	calls, _ := runLog(t, b, "run-match")
	if len(calls) != 2 || calls[0].Source != schema.SourceMatcher {
		t.Fatalf("recorded %+v", calls)
	}
	t.Logf("a binding call costs %d tokens", calls[0].Usage.Logical())
}
