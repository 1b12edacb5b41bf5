package lab

import (
	"context"
	"errors"
	"testing"

	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/services/planner"
)

// TestExpand: a task request naming a suite task takes the suite's text,
// verify gate, secrets and start page, the request's parameters over the
// suite's, and never the fixture's secret values.
func TestExpand(t *testing.T) {
	req := &schema.TaskRequested{TaskID: "T1", Task: schema.TaskSpec{Suite: "B2", Target: "http://site/", Params: map[string]string{"company": "Hooli"}}}
	task := planner.Task{Params: map[string]string{"company": "Hooli"}, StartURL: "http://site/"}
	if err := Expand(req, &task); err != nil {
		t.Fatal(err)
	}
	if task.Params["company"] != "Hooli" || task.Params["city"] == "" || task.Params["password"] != "" || len(task.Secrets) != 1 {
		t.Fatalf("params %v, secrets %v", task.Params, task.Secrets)
	}
	if task.Text == "" || len(task.Verify) == 0 || task.StartURL != "http://site" {
		t.Fatalf("text %q, verify %v, start %q", task.Text, task.Verify, task.StartURL)
	}
	bad := planner.Task{Params: map[string]string{"colour": "red"}}
	if err := Expand(req, &bad); !errors.Is(err, schema.ErrUnknownParam) {
		t.Fatalf("an unknown parameter: %v", err)
	}
	if err := Expand(&schema.TaskRequested{Task: schema.TaskSpec{Suite: "B9"}}, &planner.Task{}); !errors.Is(err, schema.ErrNotFound) {
		t.Fatalf("an unknown suite task: %v", err)
	}
}

// TestNewSuiteRunRefusesBadRequests: every wrong request wraps
// ErrBadTask, and serves nothing.
func TestNewSuiteRunRefusesBadRequests(t *testing.T) {
	for _, c := range []struct {
		id, variant, base string
		params            map[string]string
	}{
		{id: "B9"},
		{id: "B1", params: map[string]string{"colour": "red"}},
		{id: "B1", variant: "cosmetic", base: "http://site"},
		{id: "B1", variant: "no-such-variant"},
		{id: "W1", variant: "cosmetic"},
	} {
		if _, err := NewSuiteRun(context.Background(), c.id, 0, c.params, c.variant, c.base); !errors.Is(err, ErrBadTask) {
			t.Errorf("%+v: %v", c, err)
		}
	}
	r, err := NewSuiteRun(context.Background(), "B1", 1, nil, "", "")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.Site == nil || r.Task.StartURL != r.Site.Base() || r.Check(context.Background(), "") == nil {
		t.Fatalf("a suite run on a portal it serves: %+v (nothing done yet, so its check must fail)", r.Task)
	}
}
