package planner

import (
	"context"
	"errors"
	"testing"

	"github.com/rote-agent/rote/schema"
)

func TestDecide(t *testing.T) {
	live := context.Background()
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	crashed := schema.Errorf(schema.CodeBrowserCrashed, "the browser went away")
	unverified := schema.Errorf(schema.CodeExpectFailed, "no report downloaded")
	for _, c := range []struct {
		name    string
		ctx     context.Context
		attempt int
		out     *Outcome
		err     error
		verdict string
		want    TaskDone
	}{
		{"success is acknowledged", live, 1, &Outcome{Outcome: schema.OutcomeSuccess}, nil,
			"ack", TaskDone{Outcome: schema.OutcomeSuccess}},
		{"a failure of the task's own is acknowledged", live, 1, &Outcome{Outcome: schema.OutcomeFailed, Reason: unverified}, nil,
			"ack", TaskDone{Outcome: schema.OutcomeFailed, Err: unverified}},
		{"a lost browser is handed back", live, 1, &Outcome{Outcome: schema.OutcomeFailed, Reason: crashed}, nil,
			"retry after 1s", TaskDone{Outcome: schema.OutcomeFailed, Err: crashed, Retried: true}},
		{"a lost browser on the last attempt is the outcome", live, TaskDeliveries, &Outcome{Outcome: schema.OutcomeFailed, Reason: crashed}, nil,
			"ack", TaskDone{Outcome: schema.OutcomeFailed, Err: crashed}},
		{"a run refused is rejected", live, 1, nil, schema.ErrUnknownParam,
			"reject: " + schema.ErrUnknownParam.Error(), TaskDone{Err: schema.ErrUnknownParam, Rejected: true}},
		{"a run that could not start is handed back", live, 1, nil, schema.ErrUnavailable,
			"retry after 1s", TaskDone{Err: schema.ErrUnavailable, Retried: true}},
		{"a run that could not start on the last attempt is given up", live, TaskDeliveries, nil, schema.ErrUnavailable,
			"retry after 1s", TaskDone{Err: schema.ErrUnavailable}},
		{"shutting down hands the task back at once", ended, 1, nil, context.Canceled,
			"retry after 0s", TaskDone{Err: context.Canceled, Retried: true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			done := TaskDone{Attempt: c.attempt}
			v := decide(c.ctx, &done, c.out, c.err)
			c.want.Attempt = c.attempt
			if v.String() != c.verdict || done.Outcome != c.want.Outcome || !errors.Is(done.Err, c.want.Err) ||
				done.Retried != c.want.Retried || done.Rejected != c.want.Rejected {
				t.Fatalf("%s, %+v; want %s, %+v", v, done, c.verdict, c.want)
			}
		})
	}
}
