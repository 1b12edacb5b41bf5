package suite

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/rote-agent/rote/bench/scripted"
	"github.com/rote-agent/rote/schema/prompt"
	"github.com/rote-agent/rote/schema/tools"
)

// Oracle returns the oracle that answers the planner's requests for every
// suite task: agent steps, judgments and repairs.
func Oracle() scripted.Oracle {
	return scripted.OracleFunc(func(req scripted.Request) (scripted.Answer, error) {
		r := read(req)
		switch {
		case len(r.choices) > 0:
			return chooseIntent(&r)
		case r.failed != "":
			return repair(&r)
		case r.question != "" && len(r.options) > 0:
			return judge(&r)
		case r.question != "":
			return slot(&r)
		case r.task != "":
			t, params, ok := match(r.task)
			if !ok {
				return scripted.Answer{}, fmt.Errorf("task %q is not a suite task", r.task)
			}
			if !r.hasPage {
				return scripted.Answer{}, errors.New("the request shows no page")
			}
			for k, v := range r.params {
				params[k] = v
			}
			return unlessRefused(&r, t.policy(&turn{r: &r, params: params})), nil
		}
		return scripted.Answer{}, errors.New("the request is neither an agent step, a judgment nor a repair")
	})
}

// match finds the suite task whose text the task line is, and the
// parameter values in it.
func match(text string) (*Task, map[string]string, bool) {
	for _, t := range allTasks() {
		re := t.pattern()
		m := re.FindStringSubmatch(text)
		if m == nil {
			continue
		}
		params := map[string]string{}
		for i, name := range re.SubexpNames() {
			if name != "" {
				params[name] = m[i]
			}
		}
		return t, params, true
	}
	return nil, nil, false
}

// unlessRefused gives up instead of repeating the action the page just
// refused (the same tool on the same element would be refused again), or
// an action on the control a replay refused because it now sends
// elsewhere: doing it would not do the task.
func unlessRefused(r *reading, a action) action {
	if len(r.ledger) == 0 || a.Call == nil {
		return a
	}
	last := r.ledger[len(r.ledger)-1]
	var args struct {
		Target string `json:"target"`
	}
	_ = json.Unmarshal([]byte(a.Call.Arguments), &args)
	if strings.HasPrefix(last.Result, "refused") && last.Action == a.Call.Name && last.Target == args.Target {
		return fail(fmt.Sprintf("%s %s %q was refused (%s) and would be again", last.Action, last.Role, last.Name, last.Result))
	}
	if strings.Contains(last.Result, "(replayed): contract_changed") && last.Action == a.Call.Name {
		if n, ok := r.page.byID(args.Target); ok && n.Role == last.Role && n.Name == last.Name {
			return fail(fmt.Sprintf("the replay refused %s %s %q because it sends elsewhere now (%s): it would not do the task", last.Action, last.Role, last.Name, last.Result))
		}
	}
	return a
}

// action is an answer that is one tool call.
type action = scripted.Answer

// turn is one agent step being decided.
type turn struct {
	r      *reading
	params map[string]string
}

func call(name string, args map[string]any) action {
	data, _ := json.Marshal(args)
	return action{Call: &scripted.Call{Name: name, Arguments: string(data)}}
}

func click(n Node) action { return call("click", map[string]any{"target": n.ID}) }
func fill(n Node, v string) action {
	return call("fill", map[string]any{"target": n.ID, "value": v})
}
func choose(n Node, v string) action {
	return call("select", map[string]any{"target": n.ID, "value": v})
}
func check(n Node) action    { return call("check", map[string]any{"target": n.ID}) }
func hover(n Node) action    { return call("hover", map[string]any{"target": n.ID}) }
func done(why string) action { return call("done", map[string]any{"reason": why}) }
func fail(why string) action { return call("fail", map[string]any{"reason": why}) }
func extract() action        { return call("extract", map[string]any{}) }
func (t *turn) page() Page   { return t.r.page }
func (t *turn) url() string  { return t.r.page.URL }

// did counts the ledger's successful actions of kind on an element whose
// name starts with name ("" any).
func (t *turn) did(kind, name string) int {
	n := 0
	for _, e := range t.r.ledger {
		if e.Action == kind && strings.HasPrefix(e.Name, name) && !strings.HasPrefix(e.Result, "refused") {
			n++
		}
	}
	return n
}

// triedRoutine reports whether a routine called name ran or was refused
// in this run already.
func (t *turn) triedRoutine(name string) bool {
	return slices.ContainsFunc(t.r.ledger, func(e prompt.LedgerEntry) bool { return e.Action == "routine" && e.Name == name })
}

// secret is how the prompt shows a secret parameter's value: the model
// types it as written and the planner fills it in.
func (t *turn) value(name string) string { return t.params[name] }

// chrome handles what every page may need first: signing in, and a
// dialog in the way. ok is false when the page needs neither.
func (t *turn) chrome() (action, bool) {
	if a, ok := t.signIn("Username", "Sign in"); ok {
		return a, true
	}
	if b, ok := t.page().dialogButton(); ok {
		return click(b), true
	}
	return action{}, false
}

// signIn fills in a login form whose user field is labelled user and
// submits it with the button named submit; ok is false on a page without
// that field. A form already submitted once means the credentials fail.
func (t *turn) signIn(user, submit string) (action, bool) {
	p := t.page()
	box, ok := p.Find("textbox", user)
	if !ok {
		return action{}, false
	}
	pass, _ := p.Find("textbox", "Password")
	// A routine of the site's memory that signs in as this form does runs
	// it in one call, unless one was tried already.
	if name, ok := t.r.routine(fmt.Sprintf(`fill textbox %q, fill textbox "Password", click button %q`, user, submit)); ok && !t.triedRoutine(name) && box.Value == "" {
		return call(tools.RunRoutine, map[string]any{"name": name, "params": map[string]string{"username": t.value("username")}}), true
	}
	switch {
	case t.did("click", submit) > 0:
		return fail("signing in was refused: the credentials do not work"), true
	case box.Value != t.value("username"):
		return fill(box, t.value("username")), true
	case t.did("fill", "Password") == 0:
		return fill(pass, t.value("password")), true
	}
	b, ok := p.Find("button", submit)
	if !ok {
		return fail("the login form has no " + submit + " button"), true
	}
	return click(b), true
}

// navTo clicks the site navigation link named name unless the URL
// already contains path.
func (t *turn) navTo(path, name string) (action, bool) {
	if strings.Contains(t.url(), path) {
		return action{}, false
	}
	if l, ok := t.page().Find("link", name); ok {
		return click(l), true
	}
	return fail("no link " + name + " on this page"), true
}
