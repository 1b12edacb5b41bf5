package e2e

import (
	"errors"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tiktoken-go/tokenizer"

	"github.com/rote-agent/rote/bench/scripted"
	"github.com/rote-agent/rote/bench/suite"
	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/cmd/rote/lab"
	"github.com/rote-agent/rote/cmd/rote/node"
	"github.com/rote-agent/rote/portal"
	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/schema/prompt"
	"github.com/rote-agent/rote/schema/tools"
	"github.com/rote-agent/rote/services/planner"
)

// runLog reads a run back and returns its model calls and how it ended.
func runLog(t testing.TB, b *bus.Bus, runID string) ([]*schema.LLMCall, *schema.RunFinished) {
	t.Helper()
	envs, err := b.Runs().ReadRun(testContext(t), runID)
	if err != nil {
		t.Fatal(err)
	}
	var calls []*schema.LLMCall
	var fin *schema.RunFinished
	for _, env := range envs {
		switch e := env.Event.(type) {
		case *schema.LLMCall:
			calls = append(calls, e)
		case *schema.RunFinished:
			fin = e
		}
	}
	return calls, fin
}

// noSecretRecorded fails unless the run's log has events and none of them
// holds secret, however encoded.
func noSecretRecorded(t testing.TB, b *bus.Bus, runID, secret string) {
	t.Helper()
	envs, err := b.Runs().ReadRun(testContext(t), runID)
	if err != nil || len(envs) == 0 {
		t.Fatalf("run %s: %d events, %v", runID, len(envs), err)
	}
	for _, env := range envs {
		data, err := schema.Marshal(env.Event)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(data), secret) {
			t.Fatalf("run %s recorded the secret in a %s event", runID, env.Event.EventType())
		}
	}
}

// TestTriageReplayAsksThePlanner replays the triage playbook with the
// planner running: the deterministic steps call no model, the judgment
// step makes exactly one bounded call (source judgment) that reads the
// message off the page, and the portal files the message where its text
// says, for every seeded message.
func TestTriageReplayAsksThePlanner(t *testing.T) {
	t.Parallel()
	n := start(t, nil, node.Perception, node.Actuator, node.Planner)
	b := n.Bus()
	p := examplePlaybook(t, "triage-message")
	for _, m := range portal.Messages()[:4] {
		t.Run(m.ID, func(t *testing.T) {
			base, site := portalSite(t, "")
			res := browserReplay(t, n, p, base, login(map[string]string{"subject": m.Subject}))
			if res.Outcome != schema.OutcomeSuccess {
				t.Fatalf("outcome %s at %s: %v", res.Outcome, res.FailedStep, res.Reason)
			}
			if got := site.State().Triage; len(got) != 1 || got[m.ID] != m.Category {
				t.Fatalf("portal filed %v, want %s as %s", got, m.ID, m.Category)
			}
			for _, s := range res.Steps {
				if (s.StepID == "classify") != (s.Tokens.Logical() > 0) {
					t.Errorf("step %s used %d tokens", s.StepID, s.Tokens.Logical())
				}
			}
			if len(res.Usage) != 1 || res.Usage[0].Source != schema.SourceJudgment || res.Usage[0].Calls != 1 {
				t.Fatalf("usage %+v, want one judgment call", res.Usage)
			}
			noSecretRecorded(t, b, res.RunID, portal.Password)
			calls, _ := runLog(t, b, res.RunID)
			if len(calls) != 1 || calls[0].Source != schema.SourceJudgment || !calls[0].Offline || calls[0].Usage.Uncached == 0 || calls[0].Usage.Output == 0 {
				t.Fatalf("recorded model calls %+v, want one offline judgment call with its usage", calls)
			}
		})
	}
}

// TestJudgmentOutOfSetFails: a model that answers outside the declared
// options fails the replay outright (no fallback, no improvised branch),
// before anything is filed.
func TestJudgmentOutOfSetFails(t *testing.T) {
	t.Parallel()
	n := start(t, scripted.OracleFunc(func(scripted.Request) (scripted.Answer, error) {
		return scripted.Answer{Content: "Urgent"}, nil
	}), node.Perception, node.Actuator, node.Planner)
	base, site := portalSite(t, "")
	res := browserReplay(t, n, examplePlaybook(t, "triage-message"), base, login(map[string]string{"subject": "Nightly export crashed"}))
	if res.Outcome != schema.OutcomeFailed || res.FailedStep != "classify" || !errors.Is(res.Reason, schema.ErrOutOfSet) {
		t.Fatalf("outcome %s at %s: %v", res.Outcome, res.FailedStep, res.Reason)
	}
	if st := site.State(); len(st.Triage) != 0 {
		t.Fatalf("filed on an out-of-set judgment: %v", st.Triage)
	}
}

// storeVendorPlaybook stores the example register-vendor playbook, edited
// by edit when given, bound to the portal at base, and returns it with
// its stored version.
func storeVendorPlaybook(t *testing.T, b *bus.Bus, base string, edit func(*schema.Playbook)) (*schema.Playbook, uint64) {
	t.Helper()
	p := examplePlaybook(t, "register-vendor")
	if edit != nil {
		edit(p)
	}
	var err error
	if p.Fingerprint, err = schema.Fingerprint(tools.BrowserEnvironment(base)); err != nil {
		t.Fatal(err)
	}
	e, err := b.Playbooks().Put(testContext(t), p, "import", "")
	if err != nil {
		t.Fatal(err)
	}
	return p, e.Stored.Version
}

// suiteTask is the planner task of a suite task's repetition rep on the
// portal at base.
func suiteTask(task *suite.Task, rep int, base string) planner.Task {
	return lab.Task(task, task.Params(rep), base)
}

// TestScopedRepairSavesANewVersion: B5 (the vendor form with "Company
// name" renamed) replays version 1 of the vendor playbook; the renamed
// field is repaired by one scoped model call, the replacement's expect
// holds, the replay verifies, and the repair is saved as version 2, which
// then replays with zero model calls.
func TestScopedRepairSavesANewVersion(t *testing.T) {
	t.Parallel()
	n := start(t, nil, node.Tasks...)
	b, c := n.Bus(), n.Controller()
	task, err := suite.Lookup("B5")
	if err != nil {
		t.Fatal(err)
	}
	base, site := portalSite(t, task.Variant)
	p, v1 := storeVendorPlaybook(t, b, base, nil)
	out, err := c.Run(testContext(t), suiteTask(task, 0, base), &planner.Chosen{Playbook: p, Version: v1}, planner.Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	rep := out.Replay
	if out.Outcome != schema.OutcomeSuccess || out.Agent != nil || rep.Patched == nil || rep.Patched.Version != 2 {
		t.Fatalf("outcome %s (%v), agent %v, patched %+v %s", out.Outcome, out.Reason, out.Agent != nil, rep.Patched, rep.PatchNote)
	}
	if err := task.Check(site.State(), task.Params(0), ""); err != nil {
		t.Fatal(err)
	}
	for _, s := range rep.Steps {
		if (s.StepID == "company") != s.Repaired || (s.StepID == "company") != (s.Tokens.Logical() > 0) {
			t.Errorf("step %s: repaired %v, %d tokens", s.StepID, s.Repaired, s.Tokens.Logical())
		}
	}
	if len(rep.Usage) != 1 || rep.Usage[0].Source != schema.SourceRepair || rep.Usage[0].Calls != 1 {
		t.Fatalf("usage %+v, want one repair call", rep.Usage)
	}
	v2, err := b.Playbooks().Get(testContext(t), p.Fingerprint, p.Name, 2)
	if err != nil {
		t.Fatal(err)
	}
	if v2.Stored.Origin != "patch" || !strings.Contains(string(v2.Stored.Document), "Legal entity name") {
		t.Fatalf("version 2: %s\n%s", v2.Stored.Origin, v2.Stored.Document)
	}
	patched, err := v2.Decode()
	if err != nil {
		t.Fatal(err)
	}
	// The repaired step stays repairable: should the label change back,
	// v2 is repaired again rather than falling back to the agent.
	// It is guarded as a distilled step is: by the contract of the
	// control the repair acted on.
	for _, s := range patched.Steps {
		if s.ID == "company" && s.OnFail.Policy != schema.FailRepair {
			t.Fatalf("the repaired step lost its on_fail policy: %+v", s.OnFail)
		}
		if s.ID == "company" && (s.Target.Contract == nil || s.Target.Contract.Tag != "input") {
			t.Fatalf("the repaired step guards no contract: %+v", s.Target)
		}
	}
	site.Reset()
	out, err = c.Run(testContext(t), suiteTask(task, 1, base), &planner.Chosen{Playbook: patched, Version: 2}, planner.Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if out.Outcome != schema.OutcomeSuccess || len(out.Usage) != 0 || out.Replay.Patched != nil {
		t.Fatalf("version 2 replay: %s (%v), usage %+v", out.Outcome, out.Reason, out.Usage)
	}
	if err := task.Check(site.State(), task.Params(1), ""); err != nil {
		t.Fatal(err)
	}
}

// TestCoveredControlIsCleared: with a dialog covering the form
// (interstitial), the company step is obscured. One repair call answers
// with the dialog's button, the step then runs as it is, and the replay
// verifies; nothing is saved as a new version, since the dialog is not
// part of the task.
func TestCoveredControlIsCleared(t *testing.T) {
	t.Parallel()
	c := start(t, nil, node.Tasks...).Controller()
	task, err := suite.Lookup("B2")
	if err != nil {
		t.Fatal(err)
	}
	base, site := portalSite(t, "interstitial")
	out, err := c.Run(testContext(t), suiteTask(task, 2, base), &planner.Chosen{Playbook: examplePlaybook(t, "register-vendor")}, planner.Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	rep := out.Replay
	if out.Agent != nil || rep.Outcome != schema.OutcomeSuccess || rep.Patched != nil {
		t.Fatalf("replay %s at %s (%v), patched %v, fallback %v", rep.Outcome, rep.FailedStep, rep.Reason, rep.Patched, out.Agent != nil)
	}
	var repaired []string
	for _, s := range rep.Steps {
		if s.Repaired {
			repaired = append(repaired, s.StepID)
		}
	}
	if !slices.Equal(repaired, []string{"company"}) || !strings.Contains(rep.PatchNote, "cleared what covered company") {
		t.Fatalf("repaired %v, note %q", repaired, rep.PatchNote)
	}
	calls := 0
	for _, u := range out.Usage {
		if u.Source != schema.SourceRepair {
			t.Fatalf("a %s call: only one repair call was wanted", u.Source)
		}
		calls += u.Calls
	}
	if calls != 1 {
		t.Fatalf("%d repair calls, want 1", calls)
	}
	if err := task.Check(site.State(), task.Params(2), ""); err != nil {
		t.Fatal(err)
	}
}

// TestChangedFieldIsRepaired: with "Street address" turned into a
// textarea, a street step that may be repaired is: the field a value goes
// into changed kind, not where the form sends it. One repair call aims at
// the textarea, the replay verifies, and version 2 guards the textarea's
// contract. The review form posting elsewhere is never repaired: the
// replay refuses the submit and falls back.
func TestChangedFieldIsRepaired(t *testing.T) {
	t.Parallel()
	n := start(t, nil, node.Tasks...)
	b, c := n.Bus(), n.Controller()
	task, err := suite.Lookup("B2")
	if err != nil {
		t.Fatal(err)
	}
	base, site := portalSite(t, "textarea")
	p, v1 := storeVendorPlaybook(t, b, base, func(p *schema.Playbook) {
		for i := range p.Steps {
			p.Steps[i].OnFail = schema.OnFail{Policy: schema.FailRepair}
		}
	})
	out, err := c.Run(testContext(t), suiteTask(task, 2, base), &planner.Chosen{Playbook: p, Version: v1}, planner.Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	rep := out.Replay
	if out.Agent != nil || rep.Outcome != schema.OutcomeSuccess || rep.Patched == nil {
		t.Fatalf("replay %s at %s (%v), patched %v, fallback %v", rep.Outcome, rep.FailedStep, rep.Reason, rep.Patched, out.Agent != nil)
	}
	if len(out.Usage) != 1 || out.Usage[0].Source != schema.SourceRepair || out.Usage[0].Calls != 1 {
		t.Fatalf("usage %+v, want one repair call", out.Usage)
	}
	if err := task.Check(site.State(), task.Params(2), ""); err != nil {
		t.Fatal(err)
	}
	v2, err := b.Playbooks().Get(testContext(t), p.Fingerprint, p.Name, rep.Patched.Version)
	if err != nil {
		t.Fatal(err)
	}
	patched, err := v2.Decode()
	if err != nil {
		t.Fatal(err)
	}
	if st := patched.Step("street"); st == nil || st.Target.Contract == nil || st.Target.Contract.Tag != "textarea" {
		t.Fatalf("version 2's street step: %+v", st)
	}

	elsewhere, site := portalSite(t, "submit-elsewhere")
	if p.Fingerprint, err = schema.Fingerprint(tools.BrowserEnvironment(elsewhere)); err != nil {
		t.Fatal(err)
	}
	out, err = c.Run(testContext(t), suiteTask(task, 3, elsewhere), &planner.Chosen{Playbook: p}, planner.Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep := out.Replay; rep.Outcome != schema.OutcomeFallback || rep.FailedStep != "register" || !errors.Is(rep.Reason, schema.ErrContractChanged) {
		t.Fatalf("replay %s at %s: %v", rep.Outcome, rep.FailedStep, rep.Reason)
	}
	for _, u := range out.Usage {
		if u.Source == schema.SourceRepair {
			t.Fatalf("the changed submit was sent to repair: %+v", out.Usage)
		}
	}
	if st := site.State(); out.Outcome == schema.OutcomeSuccess || len(st.Vendors) != 0 || len(st.Imports) != 0 {
		t.Fatalf("outcome %s, vendors %+v, imports %+v: the agent must give up without importing", out.Outcome, st.Vendors, st.Imports)
	}
}

// TestFallbackCarriesOn: with "Street address" turned into a textarea,
// the street step's control changed, and the example playbook names no
// repair for that step; the replay falls back, reporting the steps that
// ran, and the agent carries on in the same browser from the page as it
// is, completes the form and verifies, registering the vendor exactly
// once.
func TestFallbackCarriesOn(t *testing.T) {
	t.Parallel()
	n := start(t, nil, node.Tasks...)
	b, c := n.Bus(), n.Controller()
	task, err := suite.Lookup("B2")
	if err != nil {
		t.Fatal(err)
	}
	base, site := portalSite(t, "textarea")
	out, err := c.Run(testContext(t), suiteTask(task, 2, base), &planner.Chosen{Playbook: examplePlaybook(t, "register-vendor")}, planner.Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	rep := out.Replay
	if rep.Outcome != schema.OutcomeFallback || rep.FailedStep != "street" || !errors.Is(rep.Reason, schema.ErrControlChanged) {
		t.Fatalf("replay %s at %s: %v", rep.Outcome, rep.FailedStep, rep.Reason)
	}
	if !slices.Equal(rep.Completed, []string{"open-login", "username", "password", "sign-in", "open-form", "company", "tax-id", "email", "phone", "next-1"}) {
		t.Fatalf("completed %v", rep.Completed)
	}
	if out.Agent == nil || out.Outcome != schema.OutcomeSuccess {
		t.Fatalf("fallback: %+v", out)
	}
	if err := task.Check(site.State(), task.Params(2), ""); err != nil {
		t.Fatal(err)
	}
	if site.State().Logins != 1 {
		t.Fatalf("the agent signed in again (%d logins): it did not carry on in the replay's session", site.State().Logins)
	}
	noSecretRecorded(t, b, rep.RunID, portal.Password)
	noSecretRecorded(t, b, out.Agent.RunID, portal.Password)
	calls, fin := runLog(t, b, out.Agent.RunID)
	if fin == nil || fin.Parent != rep.RunID || fin.Mode != schema.ModeAgent {
		t.Fatalf("the fallback run does not continue the replay: %+v", fin)
	}
	// Why each step ran: the replay's completed steps as learned, every
	// step of the agent that carried on a recovery, with its model calls.
	if classes := schema.TallyClasses(fin.Steps); len(classes) != 1 || classes[0].Class != schema.ClassRecovery || classes[0].Calls != len(calls) || classes[0].Steps != len(out.Agent.Steps) {
		t.Errorf("the fallback's %d steps and %d model calls by class: %+v", len(out.Agent.Steps), len(calls), classes)
	}
	_, replayed := runLog(t, b, rep.RunID)
	for _, s := range replayed.Steps {
		if slices.Contains(rep.Completed, s.StepID) && s.Class != schema.ClassReplay {
			t.Errorf("replayed step %s is %q, want replay", s.StepID, s.Class)
		}
	}
}

// recorder wraps an oracle and keeps every request it is asked.
type recorder struct {
	mu   sync.Mutex
	next scripted.Oracle
	reqs []scripted.Request
}

func (r *recorder) Answer(req scripted.Request) (scripted.Answer, error) {
	r.mu.Lock()
	r.reqs = append(r.reqs, req)
	r.mu.Unlock()
	return r.next.Answer(req)
}

func (r *recorder) take() []scripted.Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.reqs
	r.reqs = nil
	return out
}

var volatile = regexp.MustCompile(`\d{4}-\d{2}-\d{2}|\d{1,2}:\d{2}:\d{2}|127\.0\.0\.1`)

// TestPrefixHoldsNothingVolatile runs B1 twice: every request of both runs
// opens with the same system prompt and task message, byte for byte, and
// the same cache key; neither run id, no time and no address is in them;
// and later calls of a run read their prefix from the prompt cache.
func TestPrefixHoldsNothingVolatile(t *testing.T) {
	t.Parallel()
	rec := &recorder{next: suite.Oracle()}
	n := start(t, rec, node.Perception, node.Actuator, node.Planner)
	b, agent := n.Bus(), n.Agent()
	task, _ := suite.Lookup("B1")
	var runs []string
	var first []scripted.Message
	for range 2 {
		base, _ := portalSite(t, "")
		res, err := agent.Run(testContext(t), suiteTask(task, 0, base), planner.Options{})
		if err != nil || res.Outcome != schema.OutcomeSuccess {
			t.Fatalf("%v %+v", err, res)
		}
		runs = append(runs, res.RunID)
		for _, req := range rec.take() {
			if first == nil {
				first = req.Messages[:2]
			}
			if !slices.Equal(req.Messages[:2], first) {
				t.Fatalf("the prefix changed:\n%q\nthen\n%q", first, req.Messages[:2])
			}
		}
		calls, _ := runLog(t, b, res.RunID)
		if !slices.ContainsFunc(calls[1:], func(c *schema.LLMCall) bool { return c.Usage.CacheRead > 0 }) {
			t.Errorf("no later call of run %s read the cache: %+v", res.RunID, calls)
		}
		for _, c := range calls {
			if c.CacheKey != calls[0].CacheKey {
				t.Fatalf("cache keys %s and %s in one task", calls[0].CacheKey, c.CacheKey)
			}
		}
	}
	for _, m := range first {
		for _, id := range runs {
			if strings.Contains(m.Content, id) {
				t.Fatalf("run id %s in the prefix", id)
			}
		}
		if v := volatile.FindString(m.Content); v != "" {
			t.Fatalf("volatile %q in the prefix:\n%s", v, m.Content)
		}
	}
}

// TestContextGrowsByTheLedgerLine runs B2 (17 steps, three form pages) and
// counts each request's tokens: every request carries one page and at
// most one diff; from one step to the next on the same page the context
// grows by the new ledger line and the diff, never by the page again.
func TestContextGrowsByTheLedgerLine(t *testing.T) {
	t.Parallel()
	rec := &recorder{next: suite.Oracle()}
	n := start(t, rec, node.Perception, node.Actuator, node.Planner)
	task, _ := suite.Lookup("B2")
	base, _ := portalSite(t, "")
	res, err := n.Agent().Run(testContext(t), suiteTask(task, 0, base), planner.Options{})
	if err != nil || res.Outcome != schema.OutcomeSuccess {
		t.Fatalf("%v %+v", err, res)
	}
	codec, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	count := func(s string) int { n, _ := codec.Count(s); return n }
	type size struct{ total, ledger, page, diff int }
	var sizes []size
	var pages []string
	everything := 0 // what keeping every observation would cost
	for i, req := range rec.take() {
		var all strings.Builder
		for _, m := range req.Messages {
			all.WriteString(m.Content)
		}
		text := all.String()
		if strings.Count(text, prompt.Page+"\n") != 1 || strings.Count(text, prompt.Changes) > 1 {
			t.Fatalf("request %d carries %d pages and %d diffs", i, strings.Count(text, prompt.Page+"\n"), strings.Count(text, prompt.Changes))
		}
		tail := req.Messages[len(req.Messages)-1].Content
		page, diff, _ := strings.Cut(tail, prompt.Changes)
		s := size{total: count(text), ledger: count(req.Messages[2].Content), page: count(page), diff: count(diff)}
		everything += s.page + s.diff
		if i > 0 && page == pages[i-1] {
			prev := sizes[i-1]
			grew, line := s.total-prev.total, s.ledger-prev.ledger
			if line <= 0 || grew > line+s.diff+4 || grew >= s.page/2 {
				t.Errorf("step %d on the same page grew %d tokens: ledger line %d, diff %d, page %d", i+1, grew, line, s.diff, s.page)
			}
		}
		sizes, pages = append(sizes, s), append(pages, page)
		t.Logf("call %2d: %5d tokens (ledger %4d, page %4d, diff %3d)", i+1, s.total, s.ledger, s.page, s.diff)
	}
	last := sizes[len(sizes)-1]
	if keep := last.total - last.page - last.diff + everything; last.total*2 > keep {
		t.Errorf("the last context is %d tokens; keeping every observation would be %d", last.total, keep)
	}
}

// TestInvalidActionTwiceFails: a model that answers with no valid action
// gets one retry, with the reason; a second invalid answer fails the run,
// typed, and both calls are recorded with their usage.
func TestInvalidActionTwiceFails(t *testing.T) {
	t.Parallel()
	n := start(t, scripted.OracleFunc(func(scripted.Request) (scripted.Answer, error) {
		return scripted.Answer{Call: &scripted.Call{Name: "teleport", Arguments: `{}`}}, nil
	}), node.Perception, node.Actuator, node.Planner)
	b := n.Bus()
	task, _ := suite.Lookup("B1")
	base, _ := portalSite(t, "")
	res, err := n.Agent().Run(testContext(t), suiteTask(task, 0, base), planner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != schema.OutcomeFailed || !errors.Is(res.Reason, schema.ErrOutOfSet) {
		t.Fatalf("outcome %s: %v", res.Outcome, res.Reason)
	}
	calls, fin := runLog(t, b, res.RunID)
	if len(calls) != 2 || fin.Outcome != schema.OutcomeFailed || len(fin.Usage) != 1 || fin.Usage[0].Calls != 2 {
		t.Fatalf("%d calls recorded, finished %+v", len(calls), fin)
	}
}
