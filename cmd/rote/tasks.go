package main

import (
	"context"
	"maps"
	"os"
	"strings"

	"github.com/rote-agent/rote/bench/suite"
	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/services/planner"
)

// secretEnvPrefix names where a planner finds a task's secret values:
// the secret "password" is $ROTE_SECRET_PASSWORD in the planner's own
// environment (in Kubernetes, from a Secret), never in the task message.
const secretEnvPrefix = "ROTE_SECRET_"

// secretEnv is the environment variable that holds secret name.
func secretEnv(name string) string {
	return secretEnvPrefix + strings.ToUpper(strings.NewReplacer("-", "_", ".", "_").Replace(name))
}

// taskResolver prepares a claimed task request for the control loop. A
// suite task (task.suite B1 ... W4, task.target the site's base URL)
// brings its text, start page, verify gate and secret names, with the
// request's params over the suite's; any other
// task needs text, a target URL and, to succeed, a verify gate. Secret
// values come from the planner's environment. A forced playbook is looked
// up by name in the store.
func taskResolver(b *bus.Bus) planner.ResolveTask {
	return func(ctx context.Context, req *schema.TaskRequested) (planner.Task, *planner.Chosen, error) {
		t := planner.Task{Suite: req.Task.Suite, Name: req.Task.Name, Text: req.Task.Text, Params: maps.Clone(req.Task.Params),
			Secrets: req.Secrets, Verify: req.Verify, StartURL: req.Task.Target, MaxSteps: req.MaxSteps}
		if t.Params == nil {
			t.Params = map[string]string{}
		}
		if req.Task.Suite != "" {
			st, err := suite.Lookup(req.Task.Suite)
			if err != nil {
				return t, nil, err
			}
			params := st.Params(0)
			for k, v := range t.Params {
				if _, ok := params[k]; !ok {
					return t, nil, schema.Errorf(schema.CodeUnknownParam, "suite task %s has no parameter %q", st.ID, k)
				}
				params[k] = v
			}
			for _, name := range st.Secrets {
				delete(params, name) // the fixture's value is not the deployment's
			}
			t.Params, t.Name, t.Secrets = params, st.Name, st.Secrets
			if t.Text == "" {
				t.Text = st.Render(params)
			}
			if len(t.Verify) == 0 {
				t.Verify = st.VerifyExpects(params)
			}
			if t.StartURL != "" {
				t.StartURL = strings.TrimSuffix(t.StartURL, "/") + st.Start
			}
		}
		if t.Text == "" || t.StartURL == "" {
			return t, nil, schema.Errorf(schema.CodeInvalid, "task %s needs text and a target URL (task.target)", req.TaskID)
		}
		for _, name := range t.Secrets {
			v, ok := os.LookupEnv(secretEnv(name))
			if !ok {
				return t, nil, schema.Errorf(schema.CodeMissingParam, "secret %q of task %s: $%s is not set on this planner", name, req.TaskID, secretEnv(name))
			}
			t.Params[name] = v
		}
		if req.Playbook == "" {
			return t, nil, nil
		}
		e, err := b.FindPlaybook(ctx, req.Playbook)
		if err != nil {
			return t, nil, err
		}
		p, err := e.Decode()
		if err != nil {
			return t, nil, err
		}
		return t, &planner.Chosen{Playbook: p, Version: e.Stored.Version}, nil
	}
}
