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

// LastResult returns the result of the last successful tool call of a
// finished recorded run, from the blob store when it was spilled:
// CodeInvalid while the run is open, CodeUnverified when it has none.
func LastResult(ctx context.Context, runs *bus.RunLog, runID string) ([]byte, error) {
	f, err := runs.Fold(ctx, runID)
	if err != nil {
		return nil, err
	}
	last := f.LastResult()
	switch {
	case f.Finished == nil:
		return nil, schema.Errorf(schema.CodeInvalid, "run %s has not finished", runID)
	case last == nil:
		return nil, schema.Errorf(schema.CodeUnverified, "run %s has no successful tool call to verify", runID)
	case last.BlobRef != "":
		return runs.Blob(ctx, last.BlobRef)
	}
	return last.Result, nil
}
