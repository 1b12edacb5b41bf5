package replay_test

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/bus/bustest"
	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/services/replay"
	"github.com/rote-agent/rote/services/replay/replaytest"
)

// fp is the environment every scripted dispatcher is.
var fp = strings.Repeat("ab", 32)

// playbook is the playbook the table replays: sign in (three steps, the
// last with an expect), fill a field, submit; verified by a confirmation.
const playbook = `name: register
intent: register {{company}}
params:
  company: {type: string, required: true}
  password: {type: secret, required: true}
steps:
  - {id: open, kind: deterministic, tool: navigate, args: {url: /login}}
  - {id: password, kind: deterministic, tool: fill, target: {role: textbox, name: Password}, args: {value: "{{password}}"}, needs: [open]}
  - id: sign-in
    kind: deterministic
    tool: click
    target: {role: button, name: Sign in}
    needs: [password]
    expect: [{url_contains: /home}]
  - {id: company, kind: deterministic, tool: fill, target: {role: textbox, name: Company}, args: {value: "{{company}}"}, needs: [sign-in]}
  - {id: register, kind: deterministic, tool: click, target: {role: button, name: Register}, needs: [company]}
verify: [{text_visible: "Vendor {{company}} registered"}]
`

var params = map[string]string{"company": "Initech", "password": "hunter2-secret"}

// Worlds the script leaves.
var (
	home      = schema.World{Page: true, URL: "http://site/home", Text: "Welcome"}
	away      = schema.World{Page: true, URL: "http://site/login", Text: "Wrong password"}
	confirmed = schema.World{Page: true, URL: "http://site/vendors", Text: "Vendor Initech registered"}
	declined  = schema.World{Page: true, URL: "http://site/vendors", Text: "Vendor rejected"}
)

func fails(code schema.Code) replaytest.Outcome {
	return replaytest.Outcome{Err: schema.Errorf(code, "scripted %s", code)}
}

func ok(w schema.World) replaytest.Outcome { return replaytest.Outcome{World: w} }

// planner answers the executor's model-backed requests in a test.
type planner struct {
	repair   func(*schema.RepairRequest) (*schema.RepairReply, error)
	judgment func(*schema.JudgmentRequest) (*schema.ModelReply, error)
}

// serve runs p's endpoints on b until the test ends. Each answer's
// model call is recorded in the asking run, as the planner records it.
func (p *planner) serve(t *testing.T, b *bus.Bus) {
	t.Helper()
	svc, err := b.RPC().NewService("test-planner", "0.0.1", "answers from the test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Stop() })
	ctx := context.Background()
	if p.repair != nil {
		if err := bus.AddEndpoint(ctx, svc, "repair", schema.SubjectRepair, true, func(ctx context.Context, r *schema.RepairRequest) (*schema.RepairReply, error) {
			rep, err := p.repair(r)
			if err == nil {
				err = recordCall(ctx, b, r.RunID, r.Step.ID, schema.SourceRepair, rep.Usage)
			}
			return rep, err
		}); err != nil {
			t.Fatal(err)
		}
	}
	if p.judgment != nil {
		if err := bus.AddEndpoint(ctx, svc, "judgment", schema.SubjectJudgment, true, func(ctx context.Context, r *schema.JudgmentRequest) (*schema.ModelReply, error) {
			rep, err := p.judgment(r)
			if err == nil {
				err = recordCall(ctx, b, r.RunID, r.StepID, schema.SourceJudgment, rep.Usage)
			}
			return rep, err
		}); err != nil {
			t.Fatal(err)
		}
	}
}

// recordCall records a model call of run runID's step stepID.
func recordCall(ctx context.Context, b *bus.Bus, runID, stepID string, source schema.Source, usage schema.TokenUsage) error {
	_, err := b.Runs().Publish(ctx, &schema.LLMCall{Meta: schema.Meta{ID: bus.NewID(), Time: time.Now()}, RunID: runID, StepID: stepID, Source: source, Model: "test", Usage: usage})
	return err
}

// replacement is a repair proposing step on another control.
func replacement(role, name string) func(*schema.RepairRequest) (*schema.RepairReply, error) {
	return func(r *schema.RepairRequest) (*schema.RepairReply, error) {
		s := r.Step
		s.Target = &schema.Target{Role: role, Name: name}
		return &schema.RepairReply{Step: s, Usage: schema.TokenUsage{Uncached: 300, Output: 20}}, nil
	}
}

// A page read's worlds: the list not there yet, then there.
var (
	loading = schema.World{Text: "- list:\n  - listitem: Loading…"}
	loaded  = schema.World{Text: "- list:\n  - listitem:\n    - button \"Add\" [ref=e7]"}
)

// readsFor makes step id a call of tool that reads the Add button's ref.
func readsFor(id, tool string) func(p *schema.Playbook) {
	return func(p *schema.Playbook) {
		s := p.Step(id)
		s.Tool, s.Target, s.Args = tool, nil, map[string]any{"for": "{{company}}"}
		s.Outputs = map[string]schema.Output{"add": {Line: `- button "Add" [ref=`, Token: "[a-z0-9]"}}
	}
}

// exceptFor makes step id one the list parameter extras leaves out when
// it names the step's target.
func exceptFor(id string) func(p *schema.Playbook) {
	return func(p *schema.Playbook) {
		p.Params["extras"] = schema.Param{Type: schema.ParamList}
		p.Step(id).Except = "extras"
	}
}

// TestOnFailLadder is the executor's table: every on_fail path a step
// can take (retry, repair, clear, fallback, a hard failure) and the
// verify gate, over a scripted dispatcher, with the outcome, the failed
// step, the typed reason, the attempts and what the run log records.
func TestOnFailLadder(t *testing.T) {
	cases := []struct {
		name    string
		edit    func(p *schema.Playbook) // changes to the table's playbook
		script  map[string][]replaytest.Outcome
		planner *planner
		stored  bool // replay version 1 from the store, so repairs are saved

		outcome  schema.Outcome
		failed   string
		reason   error
		attempts map[string]int
		// dispatched counts a step's actions, when it matters how many
		dispatched map[string]int
		repaired   []string
		recovered  []string // the steps the ladder tried again or asked to repair
		calls      int      // model calls
		patchNote  string
		patched    uint64 // the version repairs were saved as
		extras     string // the list parameter extras (exceptFor)
	}{
		{name: "every step holds", script: map[string][]replaytest.Outcome{"sign-in": {ok(home)}, "register": {ok(confirmed)}},
			outcome: schema.OutcomeSuccess},
		{name: "no on_fail: the first failure falls back", script: map[string][]replaytest.Outcome{"sign-in": {ok(home)}, "company": {fails(schema.CodeNotFound)}},
			outcome: schema.OutcomeFallback, failed: "company", reason: schema.ErrNotFound, attempts: map[string]int{"company": 1}},
		{name: "retry(2) outlasts two failures", recovered: []string{"company"}, edit: onFail("company", "retry(2)"),
			script:  map[string][]replaytest.Outcome{"sign-in": {ok(home)}, "company": {fails(schema.CodeNotFound), fails(schema.CodeAmbiguous), ok(home)}, "register": {ok(confirmed)}},
			outcome: schema.OutcomeSuccess, attempts: map[string]int{"company": 3}},
		{name: "retry(1) gives up after two tries", recovered: []string{"company"}, edit: onFail("company", "retry(1)"),
			script:  map[string][]replaytest.Outcome{"sign-in": {ok(home)}, "company": {fails(schema.CodeNotFound)}},
			outcome: schema.OutcomeFallback, failed: "company", reason: schema.ErrNotFound, attempts: map[string]int{"company": 2}},
		{name: "a retry looks again before it acts again", edit: onFail("sign-in", "retry(2)"),
			script:  map[string][]replaytest.Outcome{"sign-in": {{World: away, Later: &home}}, "register": {ok(confirmed)}},
			outcome: schema.OutcomeSuccess, attempts: map[string]int{"sign-in": 1}, dispatched: map[string]int{"sign-in": 1}},
		{name: "a retry acts again when nothing was sent", recovered: []string{"sign-in"}, edit: onFail("sign-in", "retry(2)"),
			script:  map[string][]replaytest.Outcome{"sign-in": {ok(away), ok(home)}, "register": {ok(confirmed)}},
			outcome: schema.OutcomeSuccess, attempts: map[string]int{"sign-in": 2}, dispatched: map[string]int{"sign-in": 2}},
		{name: "a retry does not act again after a try that sent", edit: onFail("sign-in", "retry(2)"),
			script:  map[string][]replaytest.Outcome{"sign-in": {{World: away, Sent: []string{"POST http://site/login"}}, ok(home)}},
			outcome: schema.OutcomeFallback, failed: "sign-in", reason: schema.ErrUnrepeatable, attempts: map[string]int{"sign-in": 1}, dispatched: map[string]int{"sign-in": 1}},
		{name: "a repair is not run after a try that sent", edit: onFail("sign-in", "repair"),
			script:  map[string][]replaytest.Outcome{"sign-in": {{World: away, Sent: []string{"POST http://site/login"}}, ok(home)}},
			planner: &planner{repair: replacement("button", "Log in")},
			outcome: schema.OutcomeFallback, failed: "sign-in", reason: schema.ErrUnrepeatable, dispatched: map[string]int{"sign-in": 1}},
		{name: "a contract change is never retried", edit: onFail("register", "retry(3)"),
			script:  map[string][]replaytest.Outcome{"sign-in": {ok(home)}, "register": {fails(schema.CodeContractChanged), ok(confirmed)}},
			outcome: schema.OutcomeFallback, failed: "register", reason: schema.ErrContractChanged, attempts: map[string]int{"register": 1}},
		{name: "a crashed browser is never retried", edit: onFail("company", "retry(3)"),
			script:  map[string][]replaytest.Outcome{"sign-in": {ok(home)}, "company": {fails(schema.CodeBrowserCrashed)}},
			outcome: schema.OutcomeFallback, failed: "company", reason: schema.ErrBrowserCrashed, attempts: map[string]int{"company": 1}},
		{name: "a page read is read again until what a later step acts on shows", edit: readsFor("company", "browser_snapshot"),
			script:  map[string][]replaytest.Outcome{"sign-in": {ok(home)}, "company": {ok(loading), ok(loading), ok(loaded)}, "register": {ok(confirmed)}},
			outcome: schema.OutcomeSuccess, attempts: map[string]int{"company": 3}},
		{name: "a call that is no page read is not made again", edit: readsFor("company", "create_item"),
			script:  map[string][]replaytest.Outcome{"sign-in": {ok(home)}, "company": {ok(loading), ok(loaded)}},
			outcome: schema.OutcomeFallback, failed: "company", reason: schema.ErrBindingNotFound, attempts: map[string]int{"company": 1}},
		{name: "a box to untick that the page does not show is left out", edit: exceptFor("company"), extras: "Import, Export",
			script:  map[string][]replaytest.Outcome{"sign-in": {ok(home)}, "company": {fails(schema.CodeNotFound)}, "register": {ok(confirmed)}},
			outcome: schema.OutcomeSuccess, attempts: map[string]int{"company": 1}},
		{name: "a box the list holds is not unticked", edit: exceptFor("company"), extras: "Import, Company",
			script:  map[string][]replaytest.Outcome{"sign-in": {ok(home)}, "register": {ok(confirmed)}},
			outcome: schema.OutcomeSuccess, dispatched: map[string]int{"company": 0}},
		{name: "any other failure of such a step stands", edit: exceptFor("company"), extras: "Import",
			script:  map[string][]replaytest.Outcome{"sign-in": {ok(home)}, "company": {fails(schema.CodeAmbiguous)}},
			outcome: schema.OutcomeFallback, failed: "company", reason: schema.ErrAmbiguous},
		{name: "a failed expect falls back", script: map[string][]replaytest.Outcome{"sign-in": {ok(away)}},
			outcome: schema.OutcomeFallback, failed: "sign-in", reason: schema.ErrExpectFailed},
		{name: "an expect the world cannot answer fails outright", edit: func(p *schema.Playbook) {
			p.Step("sign-in").Expect = []schema.Expect{{Op: schema.OpExitCode, Value: []byte("0")}}
		}, script: map[string][]replaytest.Outcome{"sign-in": {ok(home)}},
			outcome: schema.OutcomeFailed, failed: "sign-in", reason: schema.ErrNotApplicable},
		{name: "repair of a missing control holds and is saved", recovered: []string{"company"}, edit: onFail("company", "repair"), stored: true,
			script:  map[string][]replaytest.Outcome{"sign-in": {ok(home)}, "company": {fails(schema.CodeNotFound), ok(home)}, "register": {ok(confirmed)}},
			planner: &planner{repair: replacement("textbox", "Legal entity")},
			outcome: schema.OutcomeSuccess, repaired: []string{"company"}, calls: 1, patched: 2},
		{name: "repair from a file holds for this run only", recovered: []string{"company"}, edit: onFail("company", "repair"),
			script:  map[string][]replaytest.Outcome{"sign-in": {ok(home)}, "company": {fails(schema.CodeNotFound), ok(home)}, "register": {ok(confirmed)}},
			planner: &planner{repair: replacement("textbox", "Legal entity")},
			outcome: schema.OutcomeSuccess, repaired: []string{"company"}, calls: 1, patchNote: "repaired for this run only"},
		{name: "a repair that does not hold falls back", recovered: []string{"company"}, edit: onFail("company", "repair"),
			script:  map[string][]replaytest.Outcome{"sign-in": {ok(home)}, "company": {fails(schema.CodeNotFound)}},
			planner: &planner{repair: replacement("textbox", "Legal entity")},
			outcome: schema.OutcomeFallback, failed: "company", reason: schema.ErrNotFound, calls: 1},
		{name: "a repair nobody answers falls back, typed", recovered: []string{"company"}, edit: onFail("company", "repair"),
			script:  map[string][]replaytest.Outcome{"sign-in": {ok(home)}, "company": {fails(schema.CodeNotFound)}},
			outcome: schema.OutcomeFallback, failed: "company", reason: schema.ErrRepairUnavailable},
		{name: "a submit that sends elsewhere is never repaired", edit: onFail("register", "repair"),
			script:  map[string][]replaytest.Outcome{"sign-in": {ok(home)}, "register": {fails(schema.CodeContractChanged)}},
			planner: &planner{repair: replacement("button", "Import")},
			outcome: schema.OutcomeFallback, failed: "register", reason: schema.ErrContractChanged},
		{name: "a field that changed kind is repaired", recovered: []string{"company"}, edit: onFail("company", "repair"), stored: true,
			script:  map[string][]replaytest.Outcome{"sign-in": {ok(home)}, "company": {fails(schema.CodeControlChanged), ok(home)}, "register": {ok(confirmed)}},
			planner: &planner{repair: replacement("textbox", "Company")},
			outcome: schema.OutcomeSuccess, repaired: []string{"company"}, calls: 1, patched: 2},
		{name: "a click on a control of another kind is not", edit: onFail("register", "repair"),
			script:  map[string][]replaytest.Outcome{"sign-in": {ok(home)}, "register": {fails(schema.CodeControlChanged)}},
			planner: &planner{repair: replacement("link", "Register")},
			outcome: schema.OutcomeFallback, failed: "register", reason: schema.ErrControlChanged},
		{name: "a covered control is cleared, the step runs as it is, nothing saved", recovered: []string{"company"}, edit: onFail("company", "repair"), stored: true,
			script: map[string][]replaytest.Outcome{"sign-in": {ok(home)}, "company": {fails(schema.CodeObscured), ok(home)}, "register": {ok(confirmed)}},
			planner: &planner{repair: func(r *schema.RepairRequest) (*schema.RepairReply, error) {
				return &schema.RepairReply{Clears: true, Step: schema.Step{ID: "dismiss", Tool: "click", Target: &schema.Target{Role: "button", Name: "Close"}}, Usage: schema.TokenUsage{Uncached: 100, Output: 5}}, nil
			}},
			outcome: schema.OutcomeSuccess, repaired: []string{"company"}, calls: 1, patchNote: "cleared what covered company"},
		{name: "a judgment outside its options fails outright", edit: judged,
			script: map[string][]replaytest.Outcome{"sign-in": {ok(home)}},
			planner: &planner{judgment: func(*schema.JudgmentRequest) (*schema.ModelReply, error) {
				return &schema.ModelReply{Value: "Urgent", Usage: schema.TokenUsage{Uncached: 50, Output: 1}}, nil
			}},
			outcome: schema.OutcomeFailed, failed: "tier", reason: schema.ErrOutOfSet, calls: 1},
		{name: "a judgment with no planner falls back", edit: judged,
			script:  map[string][]replaytest.Outcome{"sign-in": {ok(home)}},
			outcome: schema.OutcomeFallback, failed: "tier", reason: schema.ErrUnavailable},
		{name: "a verify that does not pass is a failure", script: map[string][]replaytest.Outcome{"sign-in": {ok(home)}, "register": {ok(declined)}},
			outcome: schema.OutcomeFailed, reason: schema.ErrExpectFailed},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			b := bustest.Start(t)
			if c.planner != nil {
				c.planner.serve(t, b)
			}
			p := decode(t)
			if c.edit != nil {
				c.edit(p)
			}
			var version uint64
			if c.stored {
				e, err := b.Playbooks().Put(ctx(t), p, "import", "")
				if err != nil {
					t.Fatal(err)
				}
				version = e.Stored.Version
			}
			d := &replaytest.Scripted{FP: fp, Steps: c.script}
			given := params
			if c.extras != "" {
				given = map[string]string{"extras": c.extras}
				maps.Copy(given, params)
			}
			res, err := executor(b).Replay(ctx(t), replay.Request{Playbook: p, Version: version, Params: given, Open: opener(d)})
			if err != nil {
				t.Fatal(err)
			}
			if res.Outcome != c.outcome || res.FailedStep != c.failed || (c.reason != nil) != (res.Reason != nil) || (c.reason != nil && !errors.Is(res.Reason, c.reason)) {
				t.Fatalf("outcome %s at %q (%v), want %s at %q (%v)", res.Outcome, res.FailedStep, res.Reason, c.outcome, c.failed, c.reason)
			}
			if !d.Closed() {
				t.Error("the executor left its dispatcher open")
			}
			for step, want := range c.dispatched {
				got := 0
				for _, call := range d.Calls() {
					if call.StepID == step {
						got++
					}
				}
				if got != want {
					t.Errorf("step %s acted %d times, want %d", step, got, want)
				}
			}
			var repaired []string
			stepCalls := 0
			for _, s := range res.Steps {
				if want, ok := c.attempts[s.StepID]; ok && s.Attempts != want {
					t.Errorf("step %s: %d attempts, want %d", s.StepID, s.Attempts, want)
				}
				if s.Repaired {
					repaired = append(repaired, s.StepID)
				}
				// A step the ladder tried again or asked to repair is
				// recovery; every other step ran as learned.
				class := schema.ClassReplay
				if slices.Contains(c.recovered, s.StepID) {
					class = schema.ClassRecovery
				}
				if s.Class != class {
					t.Errorf("step %s (%d attempts, %d model calls, repaired %v) is %q, want %q", s.StepID, s.Attempts, s.Calls, s.Repaired, s.Class, class)
				}
				stepCalls += s.Calls
			}
			if !slices.Equal(repaired, c.repaired) {
				t.Errorf("repaired %v, want %v", repaired, c.repaired)
			}
			calls := 0
			for _, u := range res.Usage {
				calls += u.Calls
			}
			if calls != c.calls {
				t.Errorf("%d model calls, want %d (%+v)", calls, c.calls, res.Usage)
			}
			if stepCalls != calls {
				t.Errorf("the steps report %d model calls, the run %d", stepCalls, calls)
			}
			if !strings.Contains(res.PatchNote, c.patchNote) || (c.patchNote == "" && res.PatchNote != "") {
				t.Errorf("patch note %q, want %q", res.PatchNote, c.patchNote)
			}
			checkPatched(t, b, p, res, c.patched)
			checkRecorded(t, b, res)
		})
	}
}

// onFail sets step id's on_fail policy.
func onFail(id, policy string) func(*schema.Playbook) {
	return func(p *schema.Playbook) {
		f, err := schema.ParseOnFail(policy)
		if err != nil {
			panic(err)
		}
		p.Step(id).OnFail = f
	}
}

// judged adds a judgment step after sign-in.
func judged(p *schema.Playbook) {
	p.Steps = append(p.Steps, schema.Step{ID: "tier", Kind: schema.StepJudgment, Prompt: "Which tier fits {{company}}?", Options: []string{"gold", "silver"}, Needs: []string{"sign-in"}})
	p.Step("company").Needs = []string{"tier"}
}

// checkPatched: a replay that saved its repairs stored them as version
// want, with the repaired step guarded by the replacement's target, and
// said so in the run; one that did not stored nothing.
func checkPatched(t *testing.T, b *bus.Bus, p *schema.Playbook, res *schema.ReplayResult, want uint64) {
	t.Helper()
	hist, err := b.Playbooks().History(ctx(t), p.Fingerprint, p.Name)
	switch {
	case want == 0 && res.Patched != nil:
		t.Fatalf("saved %+v", res.Patched)
	case want == 0 && err == nil && len(hist) > 1:
		t.Fatalf("%d versions stored", len(hist))
	case want == 0:
		return
	case res.Patched == nil || res.Patched.Version != want || err != nil || len(hist) != int(want):
		t.Fatalf("patched %+v, %d versions stored (%v), want version %d", res.Patched, len(hist), err, want)
	}
	saved, err := hist[len(hist)-1].Decode()
	if err != nil || hist[len(hist)-1].Stored.Origin != "patch" {
		t.Fatalf("version %d: %v (%s)", want, err, hist[len(hist)-1].Stored.Origin)
	}
	if s := saved.Step("company"); s == nil || s.OnFail.Policy != schema.FailRepair || s.Needs[0] != "sign-in" {
		t.Fatalf("the saved step lost its place or its policy: %+v", s)
	}
	f, err := b.Runs().Fold(ctx(t), res.RunID)
	if err != nil || len(f.Patched) != 1 || f.Patched[0].Version != want || f.Patched[0].StepID != "company" {
		t.Fatalf("the run records no playbook.patched for version %d (%v)", want, err)
	}
}

// checkRecorded: the run log holds the replay as a run whose manifest
// agrees with the result and with an audit of its events, with the
// secret recorded only as a digest.
func checkRecorded(t *testing.T, b *bus.Bus, res *schema.ReplayResult) {
	t.Helper()
	envs, err := b.Runs().ReadRun(ctx(t), res.RunID)
	if err != nil {
		t.Fatal(err)
	}
	events := make([]schema.Event, len(envs))
	for i, e := range envs {
		data, err := schema.Marshal(e.Event)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(data), params["password"]) {
			t.Fatalf("a %s event holds the secret", e.Event.EventType())
		}
		events[i] = e.Event
	}
	f := schema.Fold(events)
	m := f.Manifest()
	if m.Outcome != res.Outcome || m.Mode != schema.ModeReplay || (res.Outcome == schema.OutcomeSuccess) != f.Verified() {
		t.Fatalf("manifest %s (%s), verified %v; the result says %s", m.Outcome, m.Mode, f.Verified(), res.Outcome)
	}
	if !strings.HasPrefix(m.Task.Params["password"], "secret:") {
		t.Fatalf("the secret parameter is recorded as %q", m.Task.Params["password"])
	}
	// A fallback needs the run that continues it; the executor alone
	// starts none, so only the other outcomes must audit clean.
	if res.Outcome != schema.OutcomeFallback {
		if a := schema.AuditRun(f, nil); !a.Agrees {
			t.Fatalf("the audit disagrees: %v", a.Mismatches)
		}
	}
}

// TestRefusedBeforeStarting: what never starts a replay is an error, not
// a result, and records nothing.
func TestRefusedBeforeStarting(t *testing.T) {
	b := bustest.Start(t)
	for _, c := range []struct {
		name    string
		edit    func(*schema.Playbook)
		params  map[string]string
		unbound bool
		want    error
	}{
		{"a missing parameter", nil, map[string]string{"password": "x"}, false, schema.ErrMissingParam},
		{"an unknown parameter", nil, map[string]string{"company": "x", "password": "x", "colour": "red"}, false, schema.ErrUnknownParam},
		{"another environment", func(p *schema.Playbook) { p.Fingerprint = strings.Repeat("cd", 32) }, params, false, schema.ErrFingerprint},
		{"unbound, not given as a file", func(p *schema.Playbook) { p.Fingerprint = "" }, params, false, schema.ErrFingerprint},
		{"a cycle", func(p *schema.Playbook) { p.Step("open").Needs = []string{"register"} }, params, true, schema.ErrInvalid},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := decode(t)
			if c.edit != nil {
				c.edit(p)
			}
			d := &replaytest.Scripted{FP: fp}
			_, err := executor(b).Replay(ctx(t), replay.Request{Playbook: p, Params: c.params, AllowUnbound: c.unbound, Open: opener(d), RunID: "refused"})
			if !errors.Is(err, c.want) {
				t.Fatalf("got %v, want %v", err, c.want)
			}
			if len(d.Calls()) != 0 {
				t.Fatalf("a refused replay dispatched %d step(s)", len(d.Calls()))
			}
		})
	}
	if _, err := b.Runs().ReadRun(ctx(t), "refused"); !errors.Is(err, bus.ErrRunNotFound) {
		t.Fatalf("a refused replay recorded a run: %v", err)
	}
}

// TestRepairIsGuarded: a repaired step is saved with the contract of the
// control the dispatcher resolved it to, so that its next replay refuses
// a changed control as a distilled step does.
func TestRepairIsGuarded(t *testing.T) {
	b := bustest.Start(t)
	(&planner{repair: replacement("textbox", "Legal entity")}).serve(t, b)
	p := decode(t)
	onFail("company", "repair")(p)
	e, err := b.Playbooks().Put(ctx(t), p, "import", "")
	if err != nil {
		t.Fatal(err)
	}
	d := &replaytest.Scripted{FP: fp, Resolves: &schema.Target{ID: "x1", Role: "textbox", Name: "Legal entity", Contract: &schema.Contract{Tag: "input", InputType: "text"}},
		Steps: map[string][]replaytest.Outcome{"sign-in": {ok(home)}, "company": {fails(schema.CodeNotFound), ok(home)}, "register": {ok(confirmed)}}}
	res, err := executor(b).Replay(ctx(t), replay.Request{Playbook: p, Version: e.Stored.Version, Params: params, Open: opener(d)})
	if err != nil || res.Patched == nil {
		t.Fatalf("%v %+v", err, res)
	}
	v2, err := b.Playbooks().Get(ctx(t), fp, p.Name, res.Patched.Version)
	if err != nil {
		t.Fatal(err)
	}
	saved, err := v2.Decode()
	if err != nil {
		t.Fatal(err)
	}
	if tg := saved.Step("company").Target; tg.Name != "Legal entity" || tg.Contract == nil || tg.Contract.Tag != "input" {
		t.Fatalf("the saved step guards %+v", tg)
	}
	calls := d.Calls()
	if last := calls[len(calls)-1]; last.StepID != "register" || last.Target.Name != "Register" {
		t.Fatalf("the last call %+v", last)
	}
}

func decode(t *testing.T) *schema.Playbook {
	t.Helper()
	p, err := schema.DecodePlaybook([]byte(playbook))
	if err != nil {
		t.Fatal(err)
	}
	p.Fingerprint = fp
	return p
}

func executor(b *bus.Bus) *replay.Executor {
	return replay.NewExecutor(replay.Config{SecretKey: []byte("test-key"), PlannerTimeout: 5 * time.Second}, b.Runs(), b.RPC(), b.Playbooks())
}

func opener(d replay.Dispatcher) replay.Opener {
	return func(context.Context, string, []string) (replay.Dispatcher, error) { return d, nil }
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return c
}
