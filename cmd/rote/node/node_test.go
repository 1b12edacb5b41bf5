package node

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/bus/bustest"
	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/services/planner"
)

// TestEveryRoleHasItsBusUser: `rote serve --role NAME` joins as NAME's
// bus user, so every role a node runs must be one, and no bus user may
// name a role that no node runs.
func TestEveryRoleHasItsBusUser(t *testing.T) {
	if !slices.Equal(slices.Sorted(slices.Values(Roles)), bus.Roles()) {
		t.Fatalf("node roles %v, bus role users %v", Roles, bus.Roles())
	}
}

func TestNewChecksItsConfig(t *testing.T) {
	b := bustest.Start(t)
	if _, err := New(Config{Roles: []string{"recorder"}, SecretKey: []byte("k")}, b); err == nil || !strings.Contains(err.Error(), `unknown role "recorder"`) {
		t.Fatalf("the recorder as a role: %v", err)
	}
	if _, err := New(Config{Roles: []string{Matcher}}, b); err == nil {
		t.Fatal("a node without a secret key")
	}
	for _, addr := range []string{"127.0.0.1:9222", "http://127.0.0.1:9222", "file:///tmp/x", "ws://", "ws://%zz"} {
		if _, err := New(Config{Roles: Browser, SecretKey: []byte("k"), Browser: addr}, b); err == nil || !strings.Contains(err.Error(), "DevTools WebSocket address") {
			t.Fatalf("browser %q: %v", addr, err)
		}
	}
	if _, err := New(Config{Roles: Browser, SecretKey: []byte("k"), Browser: "ws://127.0.0.1:9222/devtools/browser/x"}, b); err != nil {
		t.Fatal(err)
	}
	n, err := New(Config{Roles: []string{Planner}, SecretKey: []byte("k")}, b)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("ROTE_LLM_BASE_URL", "")
	if err := n.Run(context.Background()); !errors.Is(err, ErrNoModel) {
		t.Fatalf("a planner with no model and no offline one: %v", err)
	}
}

// TestResolveTask: what a claimed task request becomes, and the typed
// reason a task is refused with.
func TestResolveTask(t *testing.T) {
	b := bustest.Start(t)
	withSuites := func(req *schema.TaskRequested, t *planner.Task) error {
		t.Text, t.StartURL = "the suite's text", req.Task.Target+"/start"
		return nil
	}
	t.Setenv(schema.SecretEnv("pass-word"), "s3cret")
	for _, c := range []struct {
		name   string
		suites SuiteTasks
		req    schema.TaskRequested
		want   error
		says   string
		check  func(*testing.T, planner.Task)
	}{
		{name: "a suite task without the suites", req: schema.TaskRequested{TaskID: "T1", Task: schema.TaskSpec{Suite: "B1", Target: "http://site"}},
			want: schema.ErrInvalid, says: `task T1 names the suite task "B1", but this rote is built without the benchmark suites`},
		{name: "a suite task", suites: withSuites, req: schema.TaskRequested{TaskID: "T2", Task: schema.TaskSpec{Suite: "B1", Target: "http://site"}},
			check: func(t *testing.T, task planner.Task) {
				if task.Text != "the suite's text" || task.StartURL != "http://site/start" {
					t.Fatalf("%+v", task)
				}
			}},
		{name: "free text without a target", req: schema.TaskRequested{TaskID: "T3", Task: schema.TaskSpec{Text: "do it"}},
			want: schema.ErrInvalid, says: "needs text and a target URL"},
		{name: "a secret this planner does not have", req: schema.TaskRequested{TaskID: "T4", Task: schema.TaskSpec{Text: "do it", Target: "http://site"}, Secrets: []string{"token"}},
			want: schema.ErrMissingParam, says: "$ROTE_SECRET_TOKEN is not set on this planner"},
		{name: "a secret from the environment", req: schema.TaskRequested{TaskID: "T5", Task: schema.TaskSpec{Text: "do it", Target: "http://site"}, Secrets: []string{"pass-word"}},
			check: func(t *testing.T, task planner.Task) {
				if task.Params["pass-word"] != "s3cret" {
					t.Fatalf("params %v", task.Params)
				}
			}},
		{name: "a playbook that is not stored", req: schema.TaskRequested{TaskID: "T6", Task: schema.TaskSpec{Text: "do it", Target: "http://site"}, Playbook: "nowhere"},
			says: "playbook not found"},
	} {
		t.Run(c.name, func(t *testing.T) {
			n, err := New(Config{SecretKey: []byte("k"), Suites: c.suites}, b)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			task, _, err := n.resolveTask(ctx, &c.req)
			switch {
			case c.says != "" && (err == nil || !strings.Contains(err.Error(), c.says)):
				t.Fatalf("got %v, want one saying %q", err, c.says)
			case c.want != nil && !errors.Is(err, c.want):
				t.Fatalf("got %v, want %v", err, c.want)
			case c.says == "" && err != nil:
				t.Fatal(err)
			}
			if c.check != nil {
				c.check(t, task)
			}
		})
	}
}
