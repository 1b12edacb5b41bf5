package planner

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/schema/tools"
)

// TestParseAction reads the model's tool call as one action of the
// closed set; no call, another tool or bad arguments are typed errors.
func TestParseAction(t *testing.T) {
	cases := []struct {
		name  string
		reply *Reply
		want  schema.Action
		err   error
	}{
		{"a click by id", call("click", `{"target":"a3"}`), schema.Action{Kind: schema.ActClick, Target: &schema.Target{ID: "a3"}}, nil},
		{"a fill by role and name", call("fill", `{"role":"textbox","name":"Email","value":"{{email}}"}`),
			schema.Action{Kind: schema.ActFill, Target: &schema.Target{Role: "textbox", Name: "Email"}, Value: "{{email}}"}, nil},
		{"done", call("done", `{"reason":"Order RPT-7 placed"}`), schema.Action{Kind: schema.ActDone, Reason: "Order RPT-7 placed"}, nil},
		{"prose", &Reply{Content: "I will now click the Next button on the page. " + strings.Repeat("Then more. ", 30)}, schema.Action{}, schema.ErrInvalid},
		{"a tool outside the set", call("teleport", `{}`), schema.Action{}, schema.ErrOutOfSet},
		{"observe, which the agent does not offer", call("observe", `{}`), schema.Action{}, schema.ErrOutOfSet},
		{"arguments that are no object", call("click", `["a3"]`), schema.Action{}, schema.ErrInvalid},
		{"a number for a string", call("fill", `{"target":"a3","value":42}`), schema.Action{}, schema.ErrInvalid},
		{"a click on nothing", call("click", `{}`), schema.Action{}, schema.ErrInvalid},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := parseAction(c.reply)
			if c.err != nil {
				if !errors.Is(err, c.err) {
					t.Fatalf("%+v (%v), want %v", got, err, c.err)
				}
				if len(err.Error()) > 200 {
					t.Errorf("the error quotes the whole answer: %d characters", len(err.Error()))
				}
				return
			}
			if err != nil || got.Kind != c.want.Kind || got.Value != c.want.Value || got.Reason != c.want.Reason || !sameTarget(got.Target, c.want.Target) {
				t.Errorf("%+v (%v), want %+v", got, err, c.want)
			}
		})
	}
}

func sameTarget(a, b *schema.Target) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.ID == b.ID && a.Role == b.Role && a.Name == b.Name && a.Near == b.Near
}

// TestTaskChecks: a plain parameter may not hold a template's braces (a
// secret may); a start URL must be absolute http or https, and its
// origin is the agent's site.
func TestTaskChecks(t *testing.T) {
	for _, c := range []struct {
		name string
		task Task
		err  bool
	}{
		{"plain values", Task{Params: map[string]string{"company": "Initech", "city": "Lyon"}}, false},
		{"braces in a plain value", Task{Params: map[string]string{"company": "Init{{ech}}"}}, true},
		{"a closing brace pair", Task{Params: map[string]string{"note": "a }} b"}}, true},
		{"braces in a secret", Task{Params: map[string]string{"password": "p{{w}}d"}, Secrets: []string{"password"}}, false},
	} {
		if err := c.task.checkParams(); (err != nil) != c.err || (err != nil && !errors.Is(err, schema.ErrParamType)) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	for start, want := range map[string]string{
		"http://127.0.0.1:8080/login?next=/home": "http://127.0.0.1:8080",
		"https://Shop.Test/":                     "https://shop.test",
		"/login":                                 "",
		"ftp://files.test/":                      "",
		"":                                       "",
	} {
		got, err := origin(start)
		if got != want || (want == "") != errors.Is(err, schema.ErrInvalid) {
			t.Errorf("origin(%q) = %q (%v), want %q", start, got, err, want)
		}
	}
}

// TestSecretsStayOutOfWhatIsRecorded: the agent types a secret's value
// where the model wrote {{name}}, and records only its keyed digest.
func TestSecretsStayOutOfWhatIsRecorded(t *testing.T) {
	task := Task{Params: map[string]string{"username": "admin", "password": "hunter2", "pin": "4711"}, Secrets: []string{"password", "pin"}}
	r := &agentRun{t: task}
	if got := r.fillSecrets("{{username}} / {{password}} / {{pin}}{{pin}}"); got != "{{username}} / hunter2 / 47114711" {
		t.Errorf("filled %q: want secrets filled in, plain parameters left to the model", got)
	}
	a := &Agent{cfg: AgentConfig{SecretKey: []byte("k1")}}
	rec := a.recordedParams(task)
	if rec["username"] != "admin" || !strings.HasPrefix(rec["password"], "secret:") || strings.Contains(rec["password"], "hunter2") || rec["pin"] == rec["password"] {
		t.Errorf("recorded %v", rec)
	}
	other := (&Agent{cfg: AgentConfig{SecretKey: []byte("k2")}}).recordedParams(task)
	if other["password"] == rec["password"] || a.recordedParams(task)["password"] != rec["password"] {
		t.Error("a secret's digest is not keyed, or not stable under one key")
	}
}

// TestAgentToolsLeaveOutObserve: the agent observes before every
// decision, so the model is not offered observe; every action is.
func TestAgentToolsLeaveOutObserve(t *testing.T) {
	var names []string
	for _, tool := range agentTools() {
		names = append(names, tool.Name)
	}
	if slices.Contains(names, tools.Observe) || len(names) != len(tools.Browser())-1 {
		t.Errorf("agent tools %q", names)
	}
	for _, want := range []string{"navigate", "click", "fill", "done", "fail"} {
		if !slices.Contains(names, want) {
			t.Errorf("no %s among %q", want, names)
		}
	}
}

// TestDecideRetriesOnce: an answer that is no valid action is answered
// once with the reason, and the second answer counts; two invalid
// answers are out_of_set. Every call is paid for and recorded.
func TestDecideRetriesOnce(t *testing.T) {
	for _, c := range []struct {
		name    string
		answers []cannedAnswer
		want    schema.ActionKind
		err     error
	}{
		{"valid at once", []cannedAnswer{{tool: "click", args: `{"target":"a3"}`}}, schema.ActClick, nil},
		{"valid on the retry", []cannedAnswer{{content: "Let me think."}, {tool: "fill", args: `{"target":"a2","value":"Ada"}`}}, schema.ActFill, nil},
		{"invalid twice", []cannedAnswer{{tool: "teleport", args: `{}`}, {tool: "click", args: `{"target":3}`}}, "", schema.ErrOutOfSet},
	} {
		t.Run(c.name, func(t *testing.T) {
			llm, m, b := cannedLLM(t, c.answers...)
			r := &agentRun{a: &Agent{llm: llm}, t: Task{Text: "Register Ada"}, res: &Result{RunID: "agent-1"},
				prompt: NewPrompt(TaskPrompt{Text: "Register Ada"}, agentTools())}
			r.prompt.Observe(&schema.Observation{Kind: schema.ObservationFull, Render: `a2 textbox "Name"`})
			action, _, usage, err := r.decide(context.Background(), "s1")
			if c.err != nil {
				if !errors.Is(err, c.err) || !strings.Contains(err.Error(), "twice") {
					t.Fatalf("%v, want %v", err, c.err)
				}
			} else if err != nil || action.Kind != c.want {
				t.Fatalf("%+v (%v), want %s", action, err, c.want)
			}
			sent := m.sent()
			per := schema.TokenUsage{Uncached: 60, CacheRead: 40, Output: 7}
			want := schema.TokenUsage{}
			for range sent {
				want = want.Plus(per)
			}
			if len(sent) != len(c.answers) || usage != want || len(r.calls) != len(sent) || len(recordedCalls(t, b, "agent-1")) != len(sent) {
				t.Errorf("%d requests, %d calls kept, usage %+v: want %d, paid %+v", len(sent), len(r.calls), usage, len(c.answers), want)
			}
			if string(sent[0]["prompt_cache_key"]) != `"`+r.prompt.CacheKey()+`"` {
				t.Errorf("cache key %s, want the context's", sent[0]["prompt_cache_key"])
			}
			if len(sent) == 2 && !strings.Contains(m.prompt(t, 1), "Your answer was not a valid action (") {
				t.Errorf("the retry does not say why:\n%s", m.prompt(t, 1))
			}
		})
	}
}

// TestDecideNotesTheOfflineModel: a run any of whose answers came from
// the scripted offline model says so.
func TestDecideNotesTheOfflineModel(t *testing.T) {
	llm, _, _ := cannedLLM(t, cannedAnswer{tool: "done", args: `{"reason":"ok"}`, offlineSystem: true})
	r := &agentRun{a: &Agent{llm: llm}, res: &Result{RunID: "agent-2"}, prompt: NewPrompt(TaskPrompt{Text: "x"}, agentTools())}
	if _, _, _, err := r.decide(context.Background(), "s1"); err != nil || !r.res.Offline {
		t.Errorf("offline %v (%v)", r.res.Offline, err)
	}
}

// TestDecideRefusesAChangedPrefix: a prompt whose prefix changed within
// the session is not sent.
func TestDecideRefusesAChangedPrefix(t *testing.T) {
	llm, m, _ := cannedLLM(t, cannedAnswer{tool: "done", args: `{"reason":"ok"}`})
	r := &agentRun{a: &Agent{llm: llm}, res: &Result{RunID: "agent-3"}, prompt: NewPrompt(TaskPrompt{Text: "x"}, agentTools())}
	r.prompt.prefix[0] = openai.ChatCompletionMessage{Role: openai.ChatMessageRoleSystem, Content: "now: 10:02"}
	if _, _, _, err := r.decide(context.Background(), "s1"); !errors.Is(err, schema.ErrInvalid) || len(m.sent()) != 0 {
		t.Errorf("%v after %d requests", err, len(m.sent()))
	}
}

// TestASecretGoesOnlyIntoAPasswordField: whatever the model asks, a
// secret is typed only as the whole value of a password field; into a
// title, inside other text, or as a key press it is refused.
func TestASecretGoesOnlyIntoAPasswordField(t *testing.T) {
	nodes := []schema.ObservedNode{
		{ID: "pw", Role: "textbox", Name: "Password", Contract: &schema.Contract{Tag: "input", InputType: "password"}},
		{ID: "ti", Role: "textbox", Name: "Site title", Contract: &schema.Contract{Tag: "input", InputType: "text"}},
	}
	secrets := []string{"password"}
	fill := func(target schema.Target, v string) schema.Action {
		return schema.Action{Kind: schema.ActFill, Target: &target, Value: v}
	}
	for name, c := range map[string]struct {
		a  schema.Action
		ok bool
	}{
		"into the password field":        {fill(schema.Target{ID: "pw"}, "{{password}}"), true},
		"by role and name":               {fill(schema.Target{Role: "textbox", Name: "Password"}, "{{password}}"), true},
		"into the title":                 {fill(schema.Target{ID: "ti"}, "{{password}}"), false},
		"inside other text":              {fill(schema.Target{ID: "pw"}, "x{{password}}"), false},
		"into an element the page lacks": {fill(schema.Target{ID: "zz"}, "{{password}}"), false},
		"as a key":                       {schema.Action{Kind: schema.ActPress, Value: "{{password}}"}, false},
		"no secret at all, anywhere":     {fill(schema.Target{ID: "ti"}, "Acme"), true},
	} {
		if why := misplacedSecret(c.a, secrets, nodes); (why == "") != c.ok {
			t.Errorf("%s: %q", name, why)
		}
	}
}
