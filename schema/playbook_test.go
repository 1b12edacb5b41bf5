package schema_test

import (
	"errors"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/rote-agent/rote/schema"
)

func readPlaybook(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/playbooks/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func decode(t *testing.T, doc string) (*schema.Playbook, *schema.ValidationError) {
	t.Helper()
	p, err := schema.DecodePlaybook([]byte(doc))
	if err == nil {
		return p, nil
	}
	var verr *schema.ValidationError
	if !errors.As(err, &verr) || !errors.Is(err, schema.ErrInvalid) {
		t.Fatalf("error is not a ValidationError matching ErrInvalid: %v", err)
	}
	return nil, verr
}

func TestDecodeValidPlaybooks(t *testing.T) {
	for _, name := range []string{"vendor.yaml", "mcp.yaml"} {
		t.Run(name, func(t *testing.T) {
			p, verr := decode(t, string(readPlaybook(t, name)))
			if verr != nil {
				t.Fatal(verr)
			}
			// Export and import again: the same playbook, the same bytes.
			out, err := schema.EncodePlaybook(p)
			if err != nil {
				t.Fatal(err)
			}
			again, verr := decode(t, string(out))
			if verr != nil {
				t.Fatalf("re-import of export failed: %v\n%s", verr, out)
			}
			out2, _ := schema.EncodePlaybook(again)
			if string(out) != string(out2) {
				t.Fatalf("export is not stable:\n%s\n---\n%s", out, out2)
			}
		})
	}
}

// orderIDs returns the step ids of p in topological order, joined by ",".
func orderIDs(t *testing.T, p *schema.Playbook) string {
	t.Helper()
	order, err := p.Order()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, s := range order {
		ids = append(ids, s.ID)
	}
	return strings.Join(ids, ",")
}

func TestVendorPlaybookStructure(t *testing.T) {
	p, verr := decode(t, string(readPlaybook(t, "vendor.yaml")))
	if verr != nil {
		t.Fatal(verr)
	}
	if ids := orderIDs(t, p); ids != "open,name,tax,confirm,classify,tier,submit" {
		t.Fatalf("order %v", ids)
	}
	name := p.Step("name")
	if name.OnFail.Policy != schema.FailRetry || name.OnFail.Retries != 2 || name.Target.Contract.InputType != "text" {
		t.Fatalf("step name decoded as %+v", name)
	}
	if p.Step("submit").OnFail.Effective() != schema.FailFallback {
		t.Fatal("an unset on_fail must mean fallback")
	}
	if !p.Params["password"].IsSecret() || p.Params["vendor_name"].IsSecret() {
		t.Fatal("secret flags wrong")
	}
	if _, err := p.Step("classify").Choose("bronze", p.Step("classify").Options); !errors.Is(err, schema.ErrOutOfSet) {
		t.Fatalf("out-of-set judgment accepted: %v", err)
	}
	if got, err := p.Step("classify").Choose("gold", p.Step("classify").Options); err != nil || got != "gold" {
		t.Fatalf("in-set judgment refused: %v", err)
	}
}

func TestValidationRejectsCycleUndeclaredParamAndEmptyOptions(t *testing.T) {
	_, verr := decode(t, string(readPlaybook(t, "cycle.yaml")))
	if verr == nil {
		t.Fatal("broken playbook accepted")
	}
	msg := verr.Error()
	for _, want := range []string{
		"line 8: $.steps[0].needs: steps form a cycle (each needs the next): a -> c -> b -> a",
		"line 10: $.steps[0].target: {{undeclared}} is not a declared parameter (declared: who)",
		"line 22: $.steps[3].options: a judgment step needs a non-empty set of options",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("error does not say %q:\n%s", want, msg)
		}
	}
	if len(verr.Problems) != 3 {
		t.Errorf("want exactly 3 problems, got:\n%s", msg)
	}
}

const base = `name: p
intent: do it for {{who}}
params:
  who: {type: string, required: true}
`

func TestValidationProblems(t *testing.T) {
	cases := []struct {
		name, doc, want string
	}{
		{"unknown need", base + "steps:\n  - {id: a, kind: deterministic, tool: click, needs: [zz]}\nverify: [{text_visible: x}]\n", "line 6: $.steps[0].needs[0]: step a needs unknown step \"zz\""},
		{"self need", base + "steps:\n  - {id: a, kind: deterministic, tool: click, needs: [a]}\nverify: [{text_visible: x}]\n", "step a needs itself"},
		{"duplicate id", base + "steps:\n  - {id: a, kind: deterministic, tool: click}\n  - {id: a, kind: deterministic, tool: click}\nverify: [{text_visible: x}]\n", "line 7: $.steps[1].id: duplicate step id \"a\" (first at steps[0])"},
		{"unknown kind", base + "steps:\n  - {id: a, kind: magic, tool: click}\nverify: [{text_visible: x}]\n", "\"magic\": want deterministic, slot or judgment"},
		{"no tool", base + "steps:\n  - {id: a, kind: deterministic}\nverify: [{text_visible: x}]\n", "a deterministic step needs a tool"},
		{"slot without budget", base + "steps:\n  - {id: a, kind: slot, prompt: write}\nverify: [{text_visible: x}]\n", "a slot step needs a budget of 1 to 1024 tokens, got 0"},
		{"slot budget too big", base + "steps:\n  - {id: a, kind: slot, prompt: write, max_tokens: 5000}\nverify: [{text_visible: x}]\n", "got 5000"},
		{"judgment duplicate option", base + "steps:\n  - {id: a, kind: judgment, prompt: pick, options: [x, x]}\nverify: [{text_visible: x}]\n", "duplicate option \"x\""},
		{"untyped param", "name: p\nintent: i\nparams:\n  who: {required: true}\nsteps:\n  - {id: a, kind: deterministic, tool: click}\nverify: [{text_visible: x}]\n", "line 4: $.params.who.type: missing"},
		{"bad param type", "name: p\nintent: i\nparams:\n  who: {type: date}\nsteps:\n  - {id: a, kind: deterministic, tool: click}\nverify: [{text_visible: x}]\n", "\"date\": want string, number, bool, enum, secret or list"},
		{"enum without values", "name: p\nintent: i\nparams:\n  who: {type: enum}\nsteps:\n  - {id: a, kind: deterministic, tool: click}\nverify: [{text_visible: x}]\n", "an enum parameter needs at least one value"},
		{"undeclared param in args", base + "steps:\n  - {id: a, kind: deterministic, tool: fill, args: {value: \"{{whom}}\"}}\nverify: [{text_visible: x}]\n", "{{whom}} is not a declared parameter"},
		{"undeclared param in verify", base + "steps:\n  - {id: a, kind: deterministic, tool: click}\nverify: [{text_visible: \"{{whom}}\"}]\n", "line 7: $.verify[0]: {{whom}} is not a declared parameter"},
		{"undeclared param in intent", "name: p\nintent: do it for {{nobody}}\nsteps:\n  - {id: a, kind: deterministic, tool: click}\nverify: [{text_visible: x}]\n", "$.intent: {{nobody}} is not a declared parameter"},
		{"step output not needed", base + "steps:\n  - {id: pick, kind: judgment, prompt: p, options: [x]}\n  - {id: a, kind: deterministic, tool: fill, args: {value: \"{{steps.pick}}\"}}\nverify: [{text_visible: x}]\n", "{{steps.pick}} is used but step pick is not among this step's needs"},
		{"deterministic output", base + "steps:\n  - {id: b, kind: deterministic, tool: click}\n  - {id: a, kind: deterministic, tool: fill, needs: [b], args: {value: \"{{steps.b}}\"}}\nverify: [{text_visible: x}]\n", "only slot and judgment steps produce values"},
		{"no verify", base + "steps:\n  - {id: a, kind: deterministic, tool: click}\n", "$.verify: empty"},
		{"no steps", base + "steps: []\nverify: [{text_visible: x}]\n", "$.steps: empty"},
		{"bad name", "name: Big Name\nintent: i\nsteps:\n  - {id: a, kind: deterministic, tool: click}\nverify: [{text_visible: x}]\n", "line 1: $.name:"},
		{"bad fingerprint", "name: p\nintent: i\nfingerprint: abc\nsteps:\n  - {id: a, kind: deterministic, tool: click}\nverify: [{text_visible: x}]\n", "line 3: $.fingerprint: fingerprint \"abc\""},
		{"unknown field", base + "steps:\n  - {id: a, kind: deterministic, tool: click, colour: red}\nverify: [{text_visible: x}]\n", "line 6: unknown field \"colour\""},
		{"bad on_fail", base + "steps:\n  - {id: a, kind: deterministic, tool: click, on_fail: retry(99)}\nverify: [{text_visible: x}]\n", "line 6: on_fail \"retry(99)\": retry count must be 1 to 10"},
		{"bad expect", base + "steps:\n  - id: a\n    kind: deterministic\n    tool: click\n    expect:\n      - {text_visible: a, url_contains: b}\nverify: [{text_visible: x}]\n", "line 10: expect has two primitives"},
		{"syntax error", "name: [unclosed\n", "line 1"},
		{"alias", base + "steps:\n  - &s {id: a, kind: deterministic, tool: click}\nverify: [{text_visible: x}]\n", "anchors, aliases and tags are not supported"},
		{"tag", base + "steps:\n  - {id: a, kind: deterministic, tool: click}\nverify: !x [{text_visible: x}]\n", "anchors, aliases and tags are not supported"},
		{"two documents", base + "---\nname: q\n", "want exactly one YAML document"},
		{"empty", "", "want exactly one YAML document"},
		{"secret in verify", "name: p\nintent: i\nparams:\n  pw: {type: secret}\nsteps:\n  - {id: a, kind: deterministic, tool: fill, args: {value: \"{{pw}}\"}}\nverify: [{text_visible: \"{{pw}}\"}]\n", "$.verify[0]: {{pw}} is a secret"},
		{"secret in expect", "name: p\nintent: i\nparams:\n  pw: {type: secret}\nsteps:\n  - {id: a, kind: deterministic, tool: navigate, expect: [{url_contains: \"x{{pw}}\"}]}\nverify: [{text_visible: x}]\n", "$.steps[0].expect[0]: {{pw}} is a secret"},
		{"secret in prompt", "name: p\nintent: i\nparams:\n  pw: {type: secret}\nsteps:\n  - {id: a, kind: judgment, prompt: \"is {{pw}} right?\", options: [y, n]}\nverify: [{text_visible: x}]\n", "$.steps[0].prompt: {{pw}} is a secret"},
		{"type mismatch", base + "steps:\n  - {id: a, kind: deterministic, tool: click, max_tokens: lots}\nverify: [{text_visible: x}]\n", "line 6"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, verr := decode(t, c.doc)
			if verr == nil {
				t.Fatalf("accepted:\n%s", c.doc)
			}
			if !strings.Contains(verr.Error(), c.want) {
				t.Fatalf("error does not say %q:\n%s", c.want, verr)
			}
		})
	}
}

func TestBind(t *testing.T) {
	p, verr := decode(t, `name: p
intent: i {{who}}
params:
  who: {type: string, required: true}
  n: {type: number}
  ok: {type: bool}
  tier: {type: enum, enum: [gold, silver]}
steps:
  - {id: a, kind: deterministic, tool: fill, args: {value: "{{who}}", count: "{{n}}", label: "{{who}} x{{n}}", flags: ["{{ok}}"], tier: "{{tier}}"}}
verify: [{text_visible: "{{who}}"}]
`)
	if verr != nil {
		t.Fatal(verr)
	}
	cases := []struct {
		raw  map[string]string
		want error
	}{
		{map[string]string{"n": "1"}, schema.ErrMissingParam},
		{map[string]string{"who": "a", "whom": "b"}, schema.ErrUnknownParam},
		{map[string]string{"who": "a", "n": "many"}, schema.ErrParamType},
		{map[string]string{"who": "a", "ok": "perhaps"}, schema.ErrParamType},
		{map[string]string{"who": "a", "tier": "bronze"}, schema.ErrParamType},
	}
	for _, c := range cases {
		if _, err := p.Bind(c.raw); !errors.Is(err, c.want) {
			t.Errorf("Bind(%v) = %v, want %v", c.raw, err, c.want)
		}
	}
	b, err := p.Bind(map[string]string{"who": "Acme", "n": "3", "ok": "true", "tier": "gold"})
	if err != nil {
		t.Fatal(err)
	}
	args, err := schema.RenderValue(p.Steps[0].Args, b)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"value": "Acme", "count": 3.0, "label": "Acme x3", "flags": []any{true}, "tier": "gold"}
	if !reflect.DeepEqual(args, want) {
		t.Fatalf("rendered %#v, want %#v", args, want)
	}
	// An optional parameter with no binding cannot be rendered.
	b, _ = p.Bind(map[string]string{"who": "Acme"})
	if _, err := schema.RenderValue(p.Steps[0].Args, b); !errors.Is(err, schema.ErrUnbound) {
		t.Fatalf("unbound optional parameter rendered: %v", err)
	}
}

func TestOrderIsDeterministic(t *testing.T) {
	p := &schema.Playbook{Steps: []schema.Step{
		{ID: "d", Needs: []string{"b", "c"}}, {ID: "c", Needs: []string{"a"}}, {ID: "b", Needs: []string{"a"}}, {ID: "a"},
	}}
	if ids := orderIDs(t, p); ids != "a,c,b,d" {
		t.Fatalf("order %v, want a c b d (declaration order among ready steps)", ids)
	}
	p.Steps[3].Needs = []string{"d"}
	if _, err := p.Order(); !errors.Is(err, schema.ErrInvalid) || !strings.Contains(err.Error(), "cycle") {
		t.Fatalf("cycle not reported: %v", err)
	}
}

func TestParseOnFail(t *testing.T) {
	for in, want := range map[string]schema.OnFail{
		"retry(3)": {Policy: schema.FailRetry, Retries: 3},
		"repair":   {Policy: schema.FailRepair},
		"fallback": {Policy: schema.FailFallback},
	} {
		got, err := schema.ParseOnFail(in)
		if err != nil || got != want || got.String() != in {
			t.Errorf("ParseOnFail(%q) = %+v, %v", in, got, err)
		}
	}
	for _, in := range []string{"retry", "retry(0)", "retry(11)", "retry(-1)", "ignore", ""} {
		if _, err := schema.ParseOnFail(in); !errors.Is(err, schema.ErrInvalid) {
			t.Errorf("ParseOnFail(%q) accepted", in)
		}
	}
}

// TestFailedStepActed: a replay that stopped on a failed check stopped
// after the step's action, whose effect may have happened; one that
// stopped before acting (the control was gone) did not act.
func TestFailedStepActed(t *testing.T) {
	for code, want := range map[schema.Code]bool{schema.CodeExpectFailed: true, schema.CodeNotFound: false, schema.CodeContractChanged: false} {
		r := &schema.ReplayResult{Outcome: schema.OutcomeFallback, FailedStep: "s", Reason: schema.Errorf(code, "x")}
		if got := r.FailedStepActed(); got != want {
			t.Errorf("%s: %v, want %v", code, got, want)
		}
	}
	if (&schema.ReplayResult{Outcome: schema.OutcomeSuccess}).FailedStepActed() {
		t.Error("a replay that did not stop")
	}
}

// TestBindRefusesTemplateBraces: a value holding {{ or }} would read as
// a reference once typed ({{password}} as a vendor's name); it is
// refused before anything runs, and a secret's value may hold anything.
func TestBindRefusesTemplateBraces(t *testing.T) {
	p, verr := decode(t, `name: p
intent: i {{who}}
params:
  who: {type: string, required: true}
  password: {type: secret}
steps:
  - {id: a, kind: deterministic, tool: fill, args: {value: "{{who}}"}}
  - {id: b, kind: deterministic, tool: fill, args: {value: "{{password}}"}}
verify: [{text_visible: "{{who}}"}]
`)
	if verr != nil {
		t.Fatal(verr)
	}
	for _, v := range []string{"{{password}}", "a }} b", "{{"} {
		if _, err := p.Bind(map[string]string{"who": v}); !errors.Is(err, schema.ErrParamType) {
			t.Errorf("who = %q: %v, want param_type", v, err)
		}
	}
	if _, err := p.Bind(map[string]string{"who": "Acme {x}", "password": "p{{w}}"}); err != nil {
		t.Errorf("a brace and a secret's braces: %v", err)
	}
}

// TestQuestions: the dialogs that asked something and were dismissed,
// by kind; an alert only informs, and a beforeunload a navigate accepted
// asked nothing of the step.
func TestQuestions(t *testing.T) {
	got := schema.Questions([]string{`alert "Saved" dismissed`, `confirm "Delete it?" dismissed`, `prompt "Name?" dismissed`,
		`beforeunload "" accepted: the navigate leaves the page`, `beforeunload "" dismissed`})
	if !slices.Equal(got, []string{"confirm", "prompt", "beforeunload"}) {
		t.Fatalf("questions %v", got)
	}
	p := &schema.Playbook{Name: "x", Intent: "x", Steps: []schema.Step{{ID: "a", Kind: schema.StepDeterministic, Tool: "click", Target: &schema.Target{Role: "button", Name: "Go"}, Dialogs: []string{"alert"}}},
		Verify: []schema.Expect{{Op: schema.OpTextVisible, Arg: "x"}}}
	if err := p.Validate(); !errors.Is(err, schema.ErrInvalid) || !strings.Contains(err.Error(), "dialogs[0]") {
		t.Fatalf("a step expecting an alert: %v", err)
	}
}
