package lab

import (
	"strings"

	"github.com/rote-agent/rote/bench/suite"
	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/services/planner"
)

// Task is suite task st with params as the planner's task, starting on
// st's page of the site at base.
func Task(st *suite.Task, params map[string]string, base string) planner.Task {
	return planner.Task{Suite: st.ID, Name: st.Name, Text: st.Render(params), Params: params, Secrets: st.Secrets,
		Verify: st.VerifyExpects(params), StartURL: strings.TrimSuffix(base, "/") + st.Start}
}

// Expand fills t from the suite task req names (node.SuiteTasks): the
// request's params over the suite's first repetition's (a name the suite
// task does not have is CodeUnknownParam), without the fixture's secret
// values (the deployment's come from the planner's environment), its
// text and verify gate unless the request gives them, and its start page
// under task.target.
func Expand(req *schema.TaskRequested, t *planner.Task) error {
	st, err := suite.Lookup(req.Task.Suite)
	if err != nil {
		return err
	}
	params := st.Params(0)
	for k, v := range t.Params {
		if _, ok := params[k]; !ok {
			return schema.Errorf(schema.CodeUnknownParam, "suite task %s has no parameter %q", st.ID, k)
		}
		params[k] = v
	}
	for _, name := range st.Secrets {
		delete(params, name)
	}
	from := Task(st, params, req.Task.Target)
	t.Params, t.Name, t.Secrets = params, st.Name, st.Secrets
	if t.Text == "" {
		t.Text = from.Text
	}
	if len(t.Verify) == 0 {
		t.Verify = from.Verify
	}
	if t.StartURL != "" {
		t.StartURL = from.StartURL
	}
	return nil
}
