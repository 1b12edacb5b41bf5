package planner

import (
	"context"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/schema/prompt"
	"github.com/rote-agent/rote/schema/tools"
)

// RoutineRunner runs a routine of site memory in a browser session the
// agent owns and keeps open: the actuator's executor (replay.RunRoutine),
// composed in by the caller.
type RoutineRunner func(ctx context.Context, r RoutineRun) (*schema.ReplayResult, error)

// RoutineRun is one routine the agent asks for.
type RoutineRun struct {
	Routine *schema.Playbook // its fragment
	Params  map[string]string
	Session *bus.BrowserSession // the run is Session.RunID
	Base    string
	Prefix  string           // before its steps' ids: the agent's step, "s4-"
	Class   schema.StepClass // speculated: the agent ran it, no model asked
}

// siteMemory reads what the site with fingerprint fp holds, with the
// trust gate applied: the items a run found not to hold since they were
// learned are suspect. Memory that cannot be read is no memory: the run
// goes on without it, and the log says why.
func (a *Agent) siteMemory(ctx context.Context, fp, runID string) *bus.SiteMemory {
	if a.cfg.Sites == nil {
		return nil
	}
	m, err := a.cfg.Sites.Site(ctx, fp)
	if err == nil {
		var checks []*schema.MemoryChecked
		if checks, err = a.runs.MemoryChecks(ctx); err == nil {
			m.Distrust(checks)
		}
	}
	if err != nil {
		a.log.Warn("site memory unread: the run goes on without it", "run", runID, "err", err)
		return nil
	}
	return m
}

// secretsOf is t's secret parameters and those the site's routines
// declare secret that t gives (a password passed as a plain --param):
// none of them is recorded, or shown to the model, by value.
func secretsOf(m *bus.SiteMemory, t Task) []string {
	out := slices.Clone(t.Secrets)
	if m == nil {
		return out
	}
	for _, rt := range m.Routines {
		p, err := rt.Fragment()
		if err != nil {
			continue
		}
		for name, decl := range p.Params {
			if _, given := t.Params[name]; given && decl.IsSecret() && !slices.Contains(out, name) {
				out = append(out, name)
			}
		}
	}
	return out
}

// brief is the site brief: the site's address, then what its memory
// trusts (schema.RenderBrief), the same text for every run until the
// memory changes.
func (r *agentRun) brief(site string) string {
	if r.mem == nil {
		return site
	}
	if b := schema.RenderBrief(r.mem.Fingerprint, r.mem.Routines, r.mem.Facts, time.Time{}); b.Text != "" {
		return site + "\n" + b.Text
	}
	return site
}

// speculate runs a routine of site memory instead of asking the model,
// where the routine is the only sensible next move: its precondition
// holds on the page as observed (the page it starts on, the controls it
// acts on), the task gives every value it takes, and the task's words say
// it first, as the tasks it came from did ("Sign in as {{username}}",
// negating nothing in that clause). A routine runs once per
// run, never when suspect. It reports whether one ran: its steps are the
// run's, classed speculated; whether it held or stopped, the ledger says
// so and the agent goes on from the page as it is. A routine that stops
// is recorded as not holding, and is not trusted again until newer runs
// show it anew.
func (r *agentRun) speculate(ctx context.Context, stepID string, w schema.World, began time.Time) bool {
	if r.mem == nil || r.a.cfg.Routines == nil {
		return false
	}
	for i := range r.mem.Routines {
		rt := &r.mem.Routines[i]
		if rt.Suspect != nil || r.ran[rt.Name] || rt.Said == "" {
			continue // suspect, run already, or offered to the model only
		}
		p, err := rt.Fragment()
		if err != nil {
			continue
		}
		params, ok := r.routineParams(p)
		if !ok || !opensWith(schema.SlotOut(r.t.Text, r.t.Params), rt.Said) {
			// The task gives its values, but its words do not open by
			// asking for it: "username" may name the user to create,
			// and "do not (or skip the step) sign in as {{username}}"
			// says it otherwise. The model decides such a step.
			continue
		}
		if notShowing(rt.Pre, w) != "" {
			continue
		}
		r.ran[rt.Name] = true
		res, err := r.a.cfg.Routines(ctx, RoutineRun{Routine: p, Params: params, Session: r.s, Base: r.t.StartURL, Prefix: stepID + "-", Class: schema.ClassSpeculated})
		if err != nil {
			// It never started (another site, a value that does not
			// bind): nothing acted; the model decides this step.
			r.a.log.Warn("a routine of site memory did not start", "run", r.res.RunID, "routine", rt.Name, "err", err)
			return false
		}
		r.routineRan(ctx, stepID, rt, res, schema.TokenUsage{}, began)
		r.followsRoutine(stepID, p, w, res)
		return true
	}
	return false
}

// offered are the names of the routines the model may run by
// tools.RunRoutine: the site's trusted ones, in the brief's order.
func (r *agentRun) offered() []string {
	if r.mem == nil || r.a.cfg.Routines == nil {
		return nil
	}
	var out []string
	for _, rt := range r.mem.Routines {
		if _, err := rt.Fragment(); rt.Suspect == nil && err == nil {
			out = append(out, rt.Name)
		}
	}
	return out
}

// tools are what the model may call: the browser's actions, and
// tools.RunRoutine where the site's memory offers routines.
func (r *agentRun) tools() []schema.ToolSpec {
	out := agentTools()
	if names := r.offered(); len(names) > 0 {
		out = append(out, tools.RoutineTool(names))
	}
	return out
}

// runCalled runs the routine the model called, as step stepID, on the
// page as observed (w): only a trusted routine whose precondition holds
// there, with every value it takes, runs; its steps are classed
// grounded-routine. A secret's value is the task's, never the model's. A
// call that cannot run is refused, nothing acted, and the model reads
// why in its ledger.
func (r *agentRun) runCalled(ctx context.Context, stepID string, call tools.RoutineCall, w schema.World, usage schema.TokenUsage, began time.Time) {
	refuse := func(why string) {
		entry := prompt.LedgerEntry{Step: r.step, Action: "routine", Name: call.Name, Result: "refused: " + why}
		r.prompt.Record(entry)
		r.log(StepLog{N: r.step, Routine: call.Name, Result: entry.Result, Tokens: usage, Duration: time.Since(began)})
	}
	i := slices.IndexFunc(r.mem.Routines, func(rt schema.Routine) bool { return rt.Name == call.Name })
	if i < 0 || r.mem.Routines[i].Suspect != nil {
		refuse("no routine " + strconv.Quote(call.Name) + " is trusted on this site")
		return
	}
	rt := &r.mem.Routines[i]
	p, err := rt.Fragment()
	if err != nil {
		refuse(err.Error())
		return
	}
	params, why := r.calledParams(p, call.Params)
	if why != "" {
		refuse(why)
		return
	}
	if why := notShowing(rt.Pre, w); why != "" {
		refuse("its first page is not showing: " + why)
		return
	}
	res, err := r.a.cfg.Routines(ctx, RoutineRun{Routine: p, Params: params, Session: r.s, Base: r.t.StartURL, Prefix: stepID + "-", Class: schema.ClassGroundedRoutine})
	if err != nil {
		refuse("it did not start: " + err.Error())
		return
	}
	r.ran[rt.Name] = true
	r.steps = append(r.steps, schema.StepReport{StepID: stepID, Class: schema.ClassGroundedRoutine, Attempts: 1, Calls: r.callsAt(stepID), Tokens: usage, Duration: time.Since(began)})
	r.routineRan(ctx, stepID, rt, res, usage, began)
	r.followsRoutine(stepID, p, w, res)
}

// foundNothingFor reports whether routine rt's step id stopped because
// the value it picks by matched nothing on the page: a pick whose rules
// read the routine's parameters, failing not_found.
func foundNothingFor(rt *schema.Routine, id string, reason *schema.Error) bool {
	p, err := rt.Fragment()
	if err != nil || reason == nil || reason.Code != schema.CodeNotFound {
		return false
	}
	for _, s := range p.Steps {
		if s.ID != id || s.Target == nil || s.Target.Pick == nil {
			continue
		}
		for _, rule := range s.Target.Pick.Rules {
			if refs, err := schema.RefsIn([]any{rule.Value}); err == nil && slices.ContainsFunc(refs, func(r schema.Ref) bool { return r.Param != "" }) {
				return true
			}
		}
	}
	return false
}

// notShowing is what of pre does not hold on w, "" when all of it does.
func notShowing(pre []schema.Expect, w schema.World) string {
	checks, _, err := schema.CheckAll(pre, w)
	if err != nil {
		return err.Error()
	}
	var out []string
	for _, c := range checks {
		if !c.Passed {
			out = append(out, c.Expect.String())
		}
	}
	return schema.Clip(strings.Join(out, "; "), 200)
}

// calledParams are the values routine p runs with: the task's for a
// parameter the task gives (a model's other value is refused), else the
// model's. A routine that types a secret runs with the task's values
// alone: the model never chooses whom the secret is sent as. The model's
// value for a secret is never read. why says what is missing or wrong.
func (r *agentRun) calledParams(p *schema.Playbook, given map[string]string) (map[string]string, string) {
	for name := range given {
		if _, ok := p.Params[name]; !ok {
			return nil, "it takes no parameter " + strconv.Quote(name)
		}
	}
	secret := slices.ContainsFunc(slices.Collect(maps.Values(p.Params)), schema.Param.IsSecret)
	out := map[string]string{}
	for _, name := range slices.Sorted(maps.Keys(p.Params)) {
		task, inTask := r.t.Params[name]
		model, fromModel := given[name]
		switch {
		case inTask && fromModel && model != task && !p.Params[name].IsSecret():
			return nil, "the task gives " + name + ": the routine runs with the task's value, not " + strconv.Quote(schema.Clip(model, 80))
		case inTask:
			out[name] = task
		case secret:
			return nil, "no value for " + name + " in the task: a routine that types a secret runs with the task's values alone"
		case fromModel:
			out[name] = model
		default:
			return nil, "no value for " + name + " (the task gives none)"
		}
	}
	return out, ""
}

// opensWith reports whether task (its values slotted out) opens by saying
// said, a "please" aside, with no negation in that clause: "Sign in as
// {{username}} and ..." does; "Skip the step Sign in as ...", "Do not
// sign in as ..." and "Sign in as {{username}} not as bob" do not.
func opensWith(task, said string) bool {
	t := strings.TrimPrefix(strings.ToLower(strings.TrimSpace(task)), "please ")
	s := strings.ToLower(said)
	if s == "" || !strings.HasPrefix(t, s) {
		return false
	}
	clause := t
	if i := strings.IndexAny(t[len(s):], ",;.?!"); i >= 0 {
		clause = t[:len(s)+i]
	}
	for _, brk := range []string{" and ", " then "} {
		if i := strings.Index(clause[len(s):], brk); i >= 0 {
			clause = clause[:len(s)+i]
		}
	}
	return schema.Negations(clause) == 0
}

// routineParams are the task's values of every parameter routine p
// takes, ok only when it takes at least one and the task gives each.
func (r *agentRun) routineParams(p *schema.Playbook) (map[string]string, bool) {
	if len(p.Params) == 0 {
		return nil, false
	}
	out := map[string]string{}
	for _, name := range slices.Sorted(maps.Keys(p.Params)) {
		v, ok := r.t.Params[name]
		if !ok {
			return nil, false
		}
		out[name] = v
	}
	return out, true
}

// routineRan records routine rt's run as step stepID of the agent's: its
// steps in the manifest, one ledger line, and whether it held; usage is
// what the model's call that chose it cost (none when Rote ran it). One
// whose values the page refused is no failure of the routine: it stopped
// back on its first page (a password mistyped), or a pick by the value
// it was given found nothing (a subject no message has).
func (r *agentRun) routineRan(ctx context.Context, stepID string, rt *schema.Routine, res *schema.ReplayResult, usage schema.TokenUsage, began time.Time) {
	name := rt.Name
	r.steps = append(r.steps, res.Steps...)
	r.whole = true
	held := res.Outcome == schema.OutcomeSuccess
	entry := prompt.LedgerEntry{Step: r.step, Action: "routine", Name: name, Result: "ok: ran whole from site memory, its postcondition held"}
	check := &schema.MemoryChecked{Meta: schema.Meta{ID: r.res.RunID + "-" + stepID + "-memory", Time: time.Now()}, RunID: r.res.RunID, StepID: stepID,
		Fingerprint: r.mem.Fingerprint, Kind: schema.MemoryRoutine, Name: name, Held: held}
	if !held {
		check.Why = "stopped at " + res.FailedStep + ": " + res.Reason.Error()
		entry.Result = "stopped at " + strings.TrimPrefix(res.FailedStep, stepID+"-") + " (" + schema.Clip(res.Reason.Error(), 200) + "); " +
			strconv.Itoa(len(res.Completed)) + " of its steps held before it: carry on from the page as it is"
		why := ""
		if foundNothingFor(rt, strings.TrimPrefix(res.FailedStep, stepID+"-"), res.Reason) {
			why = "the page has nothing for the value it was given"
		} else if obs, err := r.s.Observe(ctx, stepID+"-after", false, 0); err == nil && len(res.Completed) > 0 && notShowing(rt.Pre, obs.Observation.World()) == "" {
			why = "it is back on its first page: the page refused the values it ran with"
		}
		if why != "" {
			check.Refused = true
			check.Why += " (" + why + ")"
			entry.Result += "; " + why
		} else {
			// Not again in this run either, whoever asks.
			rt.Suspect = &schema.Suspicion{RunID: r.res.RunID, Why: check.Why, Time: check.Time}
		}
	}
	if _, err := r.a.runs.Publish(ctx, check); err != nil {
		r.a.log.Warn("a use of site memory went unrecorded", "run", r.res.RunID, "routine", name, "err", err)
	}
	r.prompt.Record(entry)
	r.res.Steps = append(r.res.Steps, StepLog{N: r.step, Routine: name, Result: entry.Result, Tokens: usage, Duration: time.Since(began)})
	if r.opt.Progress != nil {
		r.opt.Progress(r.res.Steps[len(r.res.Steps)-1])
	}
}

// followsRoutine notes the fact a routine's run went by, as followsFact
// does for the model's action: its last step, a click or key press that
// ran, on the page it started on (w) when no step before it could leave
// that page (a sign-in: fields filled, then the button). The next
// observation holds the fact to where it led.
func (r *agentRun) followsRoutine(stepID string, p *schema.Playbook, w schema.World, res *schema.ReplayResult) {
	last := p.Steps[len(p.Steps)-1]
	if last.Target == nil || !slices.Contains(res.Completed, stepID+"-"+last.ID) {
		return
	}
	for _, s := range p.Steps[:len(p.Steps)-1] {
		if s.Tool != string(schema.ActFill) && s.Tool != string(schema.ActSelect) && s.Tool != string(schema.ActCheck) {
			return
		}
	}
	r.followsFact(stepID, w.URL, &schema.BrowserAction{Action: schema.Action{Kind: schema.ActionKind(last.Tool), Target: last.Target}})
}

// followsFact notes the fact of site memory that action ev, taken on the
// page at from, went by: a click or key press on the control a trusted
// fact says leads from that page elsewhere.
func (r *agentRun) followsFact(stepID, from string, ev *schema.BrowserAction) {
	r.followed = nil
	if r.mem == nil || ev == nil || ev.Error != nil || ev.Action.Target == nil || (ev.Action.Kind != schema.ActClick && ev.Action.Kind != schema.ActPress) {
		return
	}
	via := schema.Selector{Role: ev.Action.Target.Role, Name: ev.Action.Target.Name}.String()
	path := pathOf(from)
	for i := range r.mem.Facts {
		if f := &r.mem.Facts[i]; f.Suspect == nil && f.From == path && f.Via == via {
			r.followed, r.followedStep = f, stepID
			return
		}
	}
}

// checkFact holds the fact the last action went by to the page it led
// to, at address at, and records whether it held: one the page
// contradicts is not trusted again (out of the brief) until newer runs
// show it anew.
func (r *agentRun) checkFact(ctx context.Context, at string) {
	f := r.followed
	if f == nil {
		return
	}
	r.followed = nil
	got := pathOf(at)
	if got == f.From {
		// It stayed on its page: the page refused what was typed (a
		// wrong password), which says nothing of where it leads.
		return
	}
	check := &schema.MemoryChecked{Meta: schema.Meta{ID: r.res.RunID + "-" + r.followedStep + "-fact", Time: time.Now()}, RunID: r.res.RunID, StepID: r.followedStep,
		Fingerprint: r.mem.Fingerprint, Kind: schema.MemoryFact, Name: f.Name, Held: got == f.To}
	if !check.Held {
		check.Why = "it led to " + got + ", not " + f.To
		f.Suspect = &schema.Suspicion{RunID: r.res.RunID, Why: check.Why, Time: check.Time}
	}
	if _, err := r.a.runs.Publish(ctx, check); err != nil {
		r.a.log.Warn("a use of site memory went unrecorded", "run", r.res.RunID, "fact", f.Name, "err", err)
	}
}

// pathOf is the path of address u, "" when it is none.
func pathOf(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return ""
	}
	return p.Path
}
