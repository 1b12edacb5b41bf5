package view

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/cmd/rote/runlog"
	"github.com/rote-agent/rote/schema"
)

// Event is one event as `rote runs show --json` prints it.
type Event struct {
	Seq     uint64       `json:"seq"`
	Subject string       `json:"subject"`
	Type    string       `json:"type"`
	Stored  time.Time    `json:"stored"`
	Event   schema.Event `json:"event"`
}

func Events(envs []bus.Envelope) []Event {
	out := make([]Event, len(envs))
	for i, env := range envs {
		out[i] = Event{Seq: env.Seq, Subject: env.Subject, Type: env.Event.EventType(), Stored: env.Time.UTC(), Event: env.Event}
	}
	return out
}

// TaskCell names a run's task, or for a session recorded with no task
// the tools it called, most called first.
func TaskCell(r runlog.Summary) string {
	if label := r.Task.Label(); label != "" || len(r.ToolCalls) == 0 {
		return label
	}
	tools := slices.Collect(maps.Keys(r.ToolCalls))
	slices.SortFunc(tools, func(a, b string) int { return cmp.Or(r.ToolCalls[b]-r.ToolCalls[a], strings.Compare(a, b)) })
	parts := make([]string, len(tools))
	for i, t := range tools {
		parts[i] = fmt.Sprintf("%s×%d", t, r.ToolCalls[t])
	}
	return "(no task) " + strings.Join(parts, " ")
}
