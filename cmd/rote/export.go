package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/schema"
	"github.com/spf13/cobra"
)

func newRunsExportCommand(app *App) *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:   "export RUN --dir DIR",
		Short: "Write a run as trajectory.jsonl, manifest.json and blobs/",
		Long: `export writes one run to DIR:

  trajectory.jsonl  every event of the run in log order, one JSON object a line
  manifest.json     the run's manifest (outcome "running" if it has not finished)
  blobs/<hex>       each payload the run keeps in ROTE_BLOBS, checked against its digest

The files are a pure function of the stream: exporting the same run twice
gives the same bytes.`,
		Args: args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			if dir == "" {
				return usageError("export needs --dir")
			}
			b, err := app.Bus(cmd.Context())
			if err != nil {
				return err
			}
			n, err := exportRun(cmd.Context(), b, a[0], dir)
			if err != nil {
				return err
			}
			fmt.Fprintf(app.Stdout, "exported run %s to %s: %d events, %d blobs\n", a[0], dir, n.events, n.blobs)
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "", "directory to write into (created if missing)")
	return cmd
}

type exportCounts struct{ events, blobs int }

// exportLine is one line of trajectory.jsonl.
type exportLine struct {
	Type    string       `json:"type"`
	Subject string       `json:"subject"`
	Event   schema.Event `json:"event"`
}

func exportRun(ctx context.Context, b *bus.Bus, runID, dir string) (exportCounts, error) {
	envs, err := b.ReadRun(ctx, runID)
	if err != nil {
		return exportCounts{}, err
	}
	if err := os.MkdirAll(filepath.Join(dir, "blobs"), 0o755); err != nil {
		return exportCounts{}, err
	}
	var traj bytes.Buffer
	enc := json.NewEncoder(&traj)
	enc.SetEscapeHTML(false)
	var refs []string
	var started *schema.RunStarted
	var manifest *schema.Manifest
	for _, env := range envs {
		if err := enc.Encode(exportLine{Type: env.Event.EventType(), Subject: env.Subject, Event: env.Event}); err != nil {
			return exportCounts{}, err
		}
		switch e := env.Event.(type) {
		case *schema.RunStarted:
			started = e
		case *schema.RunFinished:
			manifest = &e.Manifest
		case *schema.ToolCall:
			refs = append(refs, e.BlobRef, e.ArgumentsRef)
		case *schema.Unparsed:
			refs = append(refs, e.BlobRef)
		}
	}
	if manifest == nil {
		if started == nil {
			return exportCounts{}, fmt.Errorf("run %s has no run.started event", runID)
		}
		manifest = &schema.Manifest{RunSpec: started.RunSpec, Outcome: "running", Started: started.Time}
	}
	mj, err := json.MarshalIndent(manifest, "", "  ")
	if err != nil {
		return exportCounts{}, err
	}
	counts := exportCounts{events: len(envs)}
	written := map[string]bool{}
	for _, ref := range refs {
		if ref == "" || written[ref] {
			continue
		}
		data, err := b.Blobs().GetBytes(ctx, ref)
		if err != nil {
			return exportCounts{}, fmt.Errorf("blob %s: %w", ref, err)
		}
		if schema.Digest(data) != ref {
			return exportCounts{}, fmt.Errorf("blob %s is corrupt: its content hashes to %s", ref, schema.Digest(data))
		}
		if err := os.WriteFile(filepath.Join(dir, "blobs", strings.TrimPrefix(ref, "sha256:")), data, 0o644); err != nil {
			return exportCounts{}, err
		}
		written[ref] = true
		counts.blobs++
	}
	if err := os.WriteFile(filepath.Join(dir, "trajectory.jsonl"), traj.Bytes(), 0o644); err != nil {
		return exportCounts{}, err
	}
	return counts, os.WriteFile(filepath.Join(dir, "manifest.json"), append(mj, '\n'), 0o644)
}
