package main

import (
	"context"
	"testing"

	"github.com/rote-agent/rote/services/planner"
)

// TestSecretWithoutParams: --secret without --param gives the task its
// secret, on a task of text and on a suite task whose own parameters are
// none (it once wrote to a nil map).
func TestSecretWithoutParams(t *testing.T) {
	suites := suiteSupport{run: func(context.Context, string, int, map[string]string, string, string) (*suiteRun, error) {
		return &suiteRun{task: planner.Task{Text: "suite task", StartURL: "http://127.0.0.1:1"}, close: func() {}}, nil
	}}
	for _, f := range []runFlags{
		{secrets: []string{"password=hunter2"}, base: "http://127.0.0.1:1"},
		{secrets: []string{"password=hunter2"}, suiteID: "B1"},
	} {
		var args []string
		if f.suiteID == "" {
			args = []string{"sign in"}
		}
		task, _, err := buildTask(context.Background(), suites, f, args)
		if err != nil || task.Params["password"] != "hunter2" || len(task.Secrets) != 1 {
			t.Fatalf("%+v: %v, params %v, secrets %v", f, err, task.Params, task.Secrets)
		}
	}
}
