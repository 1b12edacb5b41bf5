package schema_test

import (
	"fmt"
	"time"

	"github.com/rote-agent/rote/schema"
)

// A playbook is decoded from its YAML and validated in one step; its
// parameters bind by type, and its steps come in dependency order.
func ExampleDecodePlaybook() {
	p, err := schema.DecodePlaybook([]byte(`name: download-report
intent: download the latest report as {{username}}
params:
  username: {type: string, required: true}
  password: {type: secret, required: true}
steps:
  - {id: open, kind: deterministic, tool: navigate, args: {url: /login}}
  - {id: user, kind: deterministic, tool: fill, needs: [open], target: {role: textbox, name: Username}, args: {value: "{{username}}"}}
  - {id: pass, kind: deterministic, tool: fill, needs: [open], target: {role: textbox, name: Password}, args: {value: "{{password}}"}}
verify: [{url_contains: /login}]
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	order, _ := p.Order()
	for _, s := range order {
		fmt.Println(s.ID, s.Tool)
	}
	_, err = p.Bind(map[string]string{"username": "admin"})
	fmt.Println(err)
	// Output:
	// open navigate
	// user fill
	// pass fill
	// missing_param: playbook download-report needs parameter "password" (secret)
}

// An expect is checked against the world a step left: a false assertion
// is a failed check, not an error.
func ExampleExpect_Evaluate() {
	w := schema.World{Page: true, URL: "http://127.0.0.1:8080/vendors/42", Text: "Vendor Initech registered"}
	for _, text := range []string{"text_visible: Vendor Initech registered", "url_contains: /vendors/", "text_visible: Vendor Acme registered"} {
		e, _ := schema.ParseExpectText(text)
		c, err := e.Evaluate(w)
		fmt.Println(c.Passed, err)
	}
	// Output:
	// true <nil>
	// true <nil>
	// false <nil>
}

// A run's events fold into what every reader of the run log needs: the
// manifest, the model calls by source, and an audit that re-derives the
// outcome instead of trusting it.
func ExampleFold() {
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	spec := schema.RunSpec{RunID: "R1", Mode: schema.ModeAgent, Task: schema.TaskSpec{Text: "register Initech"}}
	usage := schema.TokenUsage{Uncached: 900, Output: 20}
	events := []schema.Event{
		&schema.RunStarted{Meta: schema.Meta{ID: "R1-started", Time: t0}, RunSpec: spec},
		&schema.LLMCall{Meta: schema.Meta{ID: "c1", Time: t0}, RunID: "R1", Source: schema.SourcePlanner, Model: "m", Usage: usage},
		&schema.RunFinished{Meta: schema.Meta{ID: "R1-finished", Time: t0.Add(time.Second)}, Manifest: schema.Manifest{RunSpec: spec,
			Outcome: schema.OutcomeSuccess, Started: t0, Finished: t0.Add(time.Second),
			Usage: []schema.SourceUsage{{Source: schema.SourcePlanner, Calls: 1, Tokens: usage}}}},
	}
	f := schema.Fold(events)
	fmt.Println(f.Manifest().Outcome, f.Wall(), schema.UsageText(f.Usage()))
	a := schema.AuditRun(f, nil)
	fmt.Println(a.Outcome, a.Agrees, a.Mismatches)
	// Output:
	// success 1s planner 1 call(s) 920 tokens (uncached 900, cache read 0, cache write 0, output 20)
	// failed false [outcome: recorded success, derived failed]
}

// A fingerprint is a hash over a canonical form of the environment: the
// same environment always gives the same one, whatever the key order.
func ExampleFingerprint() {
	echo := []schema.ToolSpec{{Name: "echo", InputSchema: schema.RawJSON(`{"type":"object","properties":{"text":{"type":"string"}}}`)}}
	echoRe := []schema.ToolSpec{{Name: "echo", InputSchema: schema.RawJSON(`{ "properties": {"text": {"type": "string"}}, "type": "object" }`)}}
	a, _ := schema.Fingerprint(schema.MCPEnvironment("fixture", "1.0.0", "staging", echo))
	b, _ := schema.Fingerprint(schema.MCPEnvironment("fixture", "1.0.0", "staging", echoRe))
	c, _ := schema.Fingerprint(schema.MCPEnvironment("fixture", "1.0.0", "production", echo))
	fmt.Println(len(a), a == b, a == c)
	// Output: 64 true false
}
