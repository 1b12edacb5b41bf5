package runlog_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/bus/bustest"
	"github.com/rote-agent/rote/cmd/rote/runlog"
	"github.com/rote-agent/rote/schema"
)

// recordSession publishes a finished recorded MCP session of three tool
// calls; the second types the password hunter2.
func recordSession(t *testing.T, runs *bus.RunLog, runID string, finished bool) {
	t.Helper()
	ctx := context.Background()
	t0 := time.Now()
	spec := schema.RunSpec{RunID: runID, Mode: schema.ModeRecord, Task: schema.TaskSpec{Name: "register"}}
	events := []schema.Event{&schema.RunStarted{Meta: schema.Meta{ID: runID + "-s", Time: t0}, RunSpec: spec}}
	for i, c := range []struct{ tool, args, result string }{
		{"open", `{"url":"https://vendors.example/new"}`, `{"content":[{"type":"text","text":"New vendor form"}]}`},
		{"fill", `{"company":"Acme GmbH","password":"hunter2"}`, `{"content":[{"type":"text","text":"Filled"}]}`},
		{"save", `{}`, `{"content":[{"type":"text","text":"Vendor Acme GmbH registered"}]}`},
	} {
		seq := uint64(i + 1)
		events = append(events, &schema.ToolCall{Meta: schema.Meta{ID: runID + "-c" + c.tool, Time: t0}, RunID: runID, Seq: seq, Tool: c.tool,
			Arguments: schema.RawJSON(c.args), ArgumentsDigest: schema.Digest([]byte(c.args)), ArgumentsSize: len(c.args),
			Result: schema.RawJSON(c.result), ResultDigest: schema.Digest([]byte(c.result)), ResultSize: len(c.result)})
	}
	if finished {
		events = append(events, &schema.RunFinished{Meta: schema.Meta{ID: runID + "-f", Time: t0}, Manifest: schema.Manifest{RunSpec: spec, Outcome: schema.OutcomeSuccess, Started: t0, Finished: t0}})
	}
	for _, ev := range events {
		if _, err := runs.Publish(ctx, ev); err != nil {
			t.Fatalf("publish %T: %v", ev, err)
		}
	}
}

func expect(t *testing.T, text string) schema.Expect {
	t.Helper()
	e, err := schema.ParseExpectText(text)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestDeclare(t *testing.T) {
	b := bustest.Start(t)
	recordSession(t, b.Runs(), "run-done", true)
	recordSession(t, b.Runs(), "run-open", false)
	key := []byte("0123456789abcdef0123456789abcdef")
	saved := expect(t, "text_visible: registered")

	for _, tc := range []struct {
		name  string
		run   string
		d     runlog.Declaration
		check func(t *testing.T, got *runlog.Declared, err error)
	}{
		{"the whole session, verified", "run-done", runlog.Declaration{Verify: []schema.Expect{saved}}, func(t *testing.T, got *runlog.Declared, err error) {
			if err != nil {
				t.Fatal(err)
			}
			if got.Sliced != 0 || len(got.Fold.Calls) != 3 || len(got.Checks) != 1 || got.Fold.Verify == nil || !got.Fold.Verify.Passed {
				t.Fatalf("sliced %d, %d calls, %d checks, verify %+v", got.Sliced, len(got.Fold.Calls), len(got.Checks), got.Fold.Verify)
			}
			if got.Fold.Spec.Task.Text != "register" {
				t.Errorf("a task with no words and no parameters is named by its name; got %q", got.Fold.Spec.Task.Text)
			}
		}},
		{"a slice keeps its calls", "run-done", runlog.Declaration{From: 2, To: 3, Verify: []schema.Expect{saved}}, func(t *testing.T, got *runlog.Declared, err error) {
			if err != nil {
				t.Fatal(err)
			}
			if got.Sliced != 2 || got.Fold.Calls[0].Seq != 2 || got.Fold.Calls[1].Seq != 3 {
				t.Fatalf("sliced %d: %+v", got.Sliced, got.Fold.Calls)
			}
		}},
		{"a slice needs its own verify", "run-done", runlog.Declaration{From: 2}, func(t *testing.T, _ *runlog.Declared, err error) {
			if !errors.Is(err, runlog.ErrBadDeclaration) || !strings.Contains(err.Error(), "needs its own --verify") {
				t.Fatalf("err %v", err)
			}
		}},
		{"from after to", "run-done", runlog.Declaration{From: 3, To: 2, Verify: []schema.Expect{saved}}, func(t *testing.T, _ *runlog.Declared, err error) {
			if !errors.Is(err, runlog.ErrBadDeclaration) {
				t.Fatalf("err %v", err)
			}
		}},
		{"a slice holding no call", "run-done", runlog.Declaration{From: 7, Verify: []schema.Expect{saved}}, func(t *testing.T, _ *runlog.Declared, err error) {
			if err == nil || schema.AsError(err).Code != schema.CodeInvalid {
				t.Fatalf("err %v", err)
			}
		}},
		{"a gate the last result fails", "run-done", runlog.Declaration{Verify: []schema.Expect{expect(t, "text_visible: rejected")}}, func(t *testing.T, _ *runlog.Declared, err error) {
			var verr *runlog.VerifyError
			if !errors.As(err, &verr) || verr.Seq != 3 || len(verr.Checks) != 1 || verr.Checks[0].Passed {
				t.Fatalf("err %v", err)
			}
		}},
		{"a slice is checked on its own last result", "run-done", runlog.Declaration{To: 2, Verify: []schema.Expect{saved}}, func(t *testing.T, _ *runlog.Declared, err error) {
			var verr *runlog.VerifyError
			if !errors.As(err, &verr) || verr.Seq != 2 {
				t.Fatalf("err %v", err)
			}
		}},
		{"an open run", "run-open", runlog.Declaration{}, func(t *testing.T, _ *runlog.Declared, err error) {
			if err == nil || schema.AsError(err).Code != schema.CodeInvalid {
				t.Fatalf("err %v", err)
			}
		}},
		{"secrets are kept as digests", "run-done", runlog.Declaration{Name: "register-vendor", Params: map[string]string{"company": "Acme GmbH"}, Secrets: map[string]string{"password": "hunter2"}}, func(t *testing.T, got *runlog.Declared, err error) {
			if err != nil {
				t.Fatal(err)
			}
			task := got.Fold.Spec.Task
			if task.Name != "register-vendor" || task.Params["company"] != "Acme GmbH" || !strings.HasPrefix(task.Params["password"], "secret:") {
				t.Fatalf("task %+v", task)
			}
			if task.Text != "register-vendor with company Acme GmbH" {
				t.Errorf("words %q: a secret's digest must stay out of them", task.Text)
			}
			for _, c := range got.Fold.Calls {
				if strings.Contains(string(c.Arguments), "hunter2") {
					t.Errorf("call %d keeps the secret in clear: %s", c.Seq, c.Arguments)
				}
			}
			if got.Values["password"] != "hunter2" || got.Values["company"] != "Acme GmbH" {
				t.Errorf("values %v: a shadow replay needs the clear values", got.Values)
			}
		}},
		{"a secret said in the task's words is kept as its name", "run-done", runlog.Declaration{Text: "Register Acme GmbH with password hunter2", Params: map[string]string{"company": "Acme GmbH"}, Secrets: map[string]string{"password": "hunter2"}}, func(t *testing.T, got *runlog.Declared, err error) {
			if err != nil {
				t.Fatal(err)
			}
			if text := got.Fold.Spec.Task.Text; text != "Register Acme GmbH with password {{password}}" {
				t.Errorf("words %q", text)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := runlog.Declare(context.Background(), b.Runs(), tc.run, tc.d, key)
			tc.check(t, got, err)
		})
	}
}

func TestDeclareLeavesTheRunLogAlone(t *testing.T) {
	b := bustest.Start(t)
	recordSession(t, b.Runs(), "run-done", true)
	ctx := context.Background()
	if _, err := runlog.Declare(ctx, b.Runs(), "run-done", runlog.Declaration{Secrets: map[string]string{"password": "hunter2"}, From: 2, Verify: []schema.Expect{expect(t, "text_visible: registered")}}, []byte("k")); err != nil {
		t.Fatal(err)
	}
	again, err := b.Runs().Fold(ctx, "run-done")
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Calls) != 3 || again.Verify != nil || !strings.Contains(string(again.Calls[1].Arguments), "hunter2") {
		t.Fatalf("the run log changed: %d calls, verify %+v, %s", len(again.Calls), again.Verify, again.Calls[1].Arguments)
	}
}
