package runlog

import (
	"context"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/schema"
)

// Audit re-derives run runID from its events and compares the result
// with its manifest (schema.AuditRun); the runs that continue it are
// found among every run's start. It says when the run log's signatures
// could not be checked. bus.ErrRunNotFound when the run has no
// events.
func Audit(ctx context.Context, runs *bus.RunLog, runID string) (*schema.Audit, error) {
	f, err := runs.Fold(ctx, runID)
	if err != nil {
		return nil, err
	}
	children, err := runs.Children(ctx, runID)
	if err != nil {
		return nil, err
	}
	a := schema.AuditRun(f, children)
	a.Unsigned = !runs.Signed()
	return a, nil
}
