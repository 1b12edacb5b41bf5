package runlog

import (
	"context"
	"errors"
	"time"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/schema"
)

// AbortOrphans marks aborted every run that started before `before` and
// never finished, unless alive says its process still runs. A process
// calls it when it has just become the owner of a data directory's
// embedded server: every process that wrote to the store before was
// connected to the previous owner's server, which is gone, so a run
// they left open can never finish. It returns the ids it marked.
func AbortOrphans(ctx context.Context, runs *bus.RunLog, before time.Time, alive func(runID string) bool) ([]string, error) {
	envs, err := runs.Read(ctx, schema.RunKindFilter(schema.KindStarted), schema.RunKindFilter(schema.KindFinished))
	if err != nil {
		return nil, err
	}
	open := map[string]bool{}
	var order []string
	for _, env := range envs {
		switch e := env.Event.(type) {
		case *schema.RunStarted:
			if e.Time.Before(before) && !open[e.RunID] {
				open[e.RunID] = true
				order = append(order, e.RunID)
			}
		case *schema.RunFinished:
			delete(open, e.RunID)
		}
	}
	var aborted []string
	var errs []error
	for _, id := range order {
		if !open[id] || alive(id) {
			continue
		}
		marked, err := runs.Abort(ctx, id, time.Now(), "the process running it died before finishing it (found open when the next process took over the data directory); the log holds every event it acknowledged")
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if marked {
			aborted = append(aborted, id)
		}
	}
	return aborted, errors.Join(errs...)
}
