package runlog

import (
	"context"
	"net/url"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/schema/tools"
)

// Rebindings maps each fingerprint an environment had before a change
// that left what its playbooks do as it was (schema.LegacyFingerprints)
// to the one it has now: an MCP server's, for every environment an
// inventory in the run log records; a browser's, for every site a run
// in the log was started on. A playbook stored under a key of the map is
// bound the old way.
func Rebindings(ctx context.Context, runs *bus.RunLog) (map[string]string, error) {
	out := map[string]string{}
	envs, err := runs.Read(ctx, schema.RunKindFilter(schema.KindInventory))
	if err != nil {
		return nil, err
	}
	for _, env := range envs {
		inv, ok := env.Event.(*schema.Inventory)
		if !ok {
			continue
		}
		now, err := schema.Fingerprint(inv.Environment.Stable())
		if err != nil {
			continue
		}
		for _, old := range schema.LegacyFingerprints(inv.Environment) {
			out[old] = now
		}
		if inv.Fingerprint != now {
			out[inv.Fingerprint] = now
		}
	}
	started, err := runs.Read(ctx, schema.RunKindFilter(schema.KindStarted))
	if err != nil {
		return nil, err
	}
	for _, env := range started {
		s, ok := env.Event.(*schema.RunStarted)
		if !ok {
			continue
		}
		u, err := url.Parse(s.Task.Target)
		if err != nil || schema.Origin(u) == "" {
			continue // not a browser run
		}
		browser := tools.BrowserEnvironment(schema.Origin(u))
		now, err := schema.Fingerprint(browser)
		if err != nil {
			continue
		}
		for _, old := range schema.LegacyFingerprints(browser) {
			if s.Fingerprint == old {
				out[old] = now
			}
		}
	}
	return out, nil
}
