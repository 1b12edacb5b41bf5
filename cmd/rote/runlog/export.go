package runlog

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/cmd/rote/safefile"
	"github.com/rote-agent/rote/schema"
)

// Exported counts what Export wrote.
type Exported struct{ Events, Blobs int }

// exportLine is one line of trajectory.jsonl.
type exportLine struct {
	Type    string       `json:"type"`
	Subject string       `json:"subject"`
	Event   schema.Event `json:"event"`
}

// Export writes run runID to dir:
//
//	trajectory.jsonl  every event of the run in log order, one JSON object a line
//	manifest.json     the run's manifest (outcome "running" if it has not finished)
//	blobs/<hex>       each payload the run keeps in ROTE_BLOBS, checked against its digest
//
// The files are a pure function of the stream: exporting the same run
// twice gives the same bytes. A blob whose content does not hash to its
// name is an error.
func Export(ctx context.Context, runs *bus.RunLog, runID, dir string) (Exported, error) {
	envs, err := runs.ReadRun(ctx, runID)
	if err != nil {
		return Exported{}, err
	}
	// The export is the run's log: into a directory of this user's that
	// nobody else may write (made 0700), never one another user made.
	if err := bus.PrivateDir(dir); err != nil {
		return Exported{}, err
	}
	if err := os.MkdirAll(filepath.Join(dir, "blobs"), 0o700); err != nil {
		return Exported{}, err
	}
	if fi, err := os.Lstat(filepath.Join(dir, "blobs")); err != nil || !fi.IsDir() {
		return Exported{}, fmt.Errorf("%s is not a directory (a link?): refusing to write through it", filepath.Join(dir, "blobs"))
	}
	var traj bytes.Buffer
	enc := json.NewEncoder(&traj)
	enc.SetEscapeHTML(false)
	events := make([]schema.Event, len(envs))
	for i, env := range envs {
		if err := enc.Encode(exportLine{Type: env.Event.EventType(), Subject: env.Subject, Event: env.Event}); err != nil {
			return Exported{}, err
		}
		events[i] = env.Event
	}
	f := schema.Fold(events)
	if f.Started == nil && f.Finished == nil {
		return Exported{}, fmt.Errorf("run %s has no run.started event", runID)
	}
	manifest := f.Manifest()
	mj, err := json.MarshalIndent(manifest, "", "  ")
	if err != nil {
		return Exported{}, err
	}
	counts := Exported{Events: len(envs)}
	for _, ref := range f.BlobRefs() {
		data, err := runs.Blob(ctx, ref)
		if err != nil {
			return Exported{}, fmt.Errorf("blob %s: %w", ref, err)
		}
		if schema.Digest(data) != ref {
			return Exported{}, fmt.Errorf("blob %s is corrupt: its content hashes to %s", ref, schema.Digest(data))
		}
		if err := safefile.Write(filepath.Join(dir, "blobs", strings.TrimPrefix(ref, "sha256:")), data, 0o600); err != nil {
			return Exported{}, err
		}
		counts.Blobs++
	}
	if err := safefile.Write(filepath.Join(dir, "trajectory.jsonl"), traj.Bytes(), 0o600); err != nil {
		return Exported{}, err
	}
	return counts, safefile.Write(filepath.Join(dir, "manifest.json"), append(mj, '\n'), 0o600)
}
