package runlog

import (
	"context"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/schema"
)

// Summary is one row of `rote runs list`: the manifest as far as the log
// knows it (outcome "running" while it has no run.finished), with the
// number of steps it recorded: MCP tool calls and browser actions.
type Summary struct {
	schema.Manifest
	Steps int `json:"calls"`
}

// Untasked reports whether the run is a session a browser MCP server
// opened for itself with no task under a recording (rote mcp browser
// under rote record names none, and the recording is its parent): the
// session's record is the recording's run.
func (s Summary) Untasked() bool {
	return s.Mode == schema.ModeAgent && s.Task.Label() == "" && s.Parent != ""
}

// ModelCalls is the number of model calls the manifest counts.
func (s Summary) ModelCalls() int {
	n := 0
	for _, u := range s.Usage {
		n += u.Calls
	}
	return n
}

// List returns a summary of every run, in the order the runs started. It
// folds each run's run.started and run.finished events, and counts its
// steps from the stream's subject counts, without reading them.
func List(ctx context.Context, runs *bus.RunLog) ([]Summary, error) {
	envs, err := runs.Read(ctx, schema.RunKindFilter(schema.KindStarted), schema.RunKindFilter(schema.KindFinished))
	if err != nil {
		return nil, err
	}
	var order []string
	byRun := map[string][]schema.Event{}
	for _, env := range envs {
		id := schema.RunOf(env.Event)
		if _, seen := byRun[id]; !seen {
			order = append(order, id)
		}
		byRun[id] = append(byRun[id], env.Event)
	}
	counts, err := runs.Counts(ctx, schema.KindCalls, schema.KindActions)
	if err != nil {
		return nil, err
	}
	out := make([]Summary, 0, len(order))
	for _, id := range order {
		m := schema.Fold(byRun[id]).Manifest()
		out = append(out, Summary{Manifest: m, Steps: counts[schema.RunSubject(id, schema.KindCalls)] + counts[schema.RunSubject(id, schema.KindActions)]})
	}
	return out, nil
}
