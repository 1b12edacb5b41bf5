package node

import (
	"context"
	"maps"
	"os"

	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/services/planner"
)

// SuiteTasks fills t from the frozen suite task req names (task.suite):
// its text, parameters (the request's over the suite's), verify gate,
// secret names and start page under req.Task.Target.
type SuiteTasks func(req *schema.TaskRequested, t *planner.Task) error

// resolveTask prepares a claimed task request for the control loop. A
// suite task is expanded by Config.Suites; any other task needs text, a
// target URL and, to succeed, a verify gate. Secret values come from the
// planner's environment. A forced playbook is looked up by name in the
// store.
func (n *Node) resolveTask(ctx context.Context, req *schema.TaskRequested) (planner.Task, *planner.Chosen, error) {
	t := planner.Task{Suite: req.Task.Suite, Name: req.Task.Name, Text: req.Task.Text, Params: maps.Clone(req.Task.Params),
		Secrets: req.Secrets, Verify: req.Verify, StartURL: req.Task.Target, MaxSteps: req.MaxSteps}
	if t.Params == nil {
		t.Params = map[string]string{}
	}
	if req.Task.Suite != "" {
		if n.cfg.Suites == nil {
			return t, nil, schema.Errorf(schema.CodeInvalid, "task %s names the suite task %q, but this rote is built without the benchmark suites (-tags nobench): send task.text and task.target", req.TaskID, req.Task.Suite)
		}
		if err := n.cfg.Suites(req, &t); err != nil {
			return t, nil, err
		}
	}
	if t.Text == "" || t.StartURL == "" {
		return t, nil, schema.Errorf(schema.CodeInvalid, "task %s needs text and a target URL (task.target)", req.TaskID)
	}
	for _, name := range t.Secrets {
		v, ok := os.LookupEnv(schema.SecretEnv(name))
		if !ok {
			return t, nil, schema.Errorf(schema.CodeMissingParam, "secret %q of task %s: $%s is not set on this planner", name, req.TaskID, schema.SecretEnv(name))
		}
		t.Params[name] = v
	}
	if req.Playbook == "" {
		return t, nil, nil
	}
	e, err := n.bus.Playbooks().Find(ctx, req.Playbook)
	if err != nil {
		return t, nil, err
	}
	p, err := e.Decode()
	if err != nil {
		return t, nil, err
	}
	return t, &planner.Chosen{Playbook: p, Version: e.Stored.Version}, nil
}
