package runlog

import (
	"context"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/schema"
)

// Rebindings maps each fingerprint an MCP server's environment had while
// fingerprints included the negotiated protocol version to the one it has
// now, for every environment an inventory in the run log records. A
// playbook stored under a key of the map is bound the old way.
func Rebindings(ctx context.Context, runs *bus.RunLog) (map[string]string, error) {
	envs, err := runs.Read(ctx, schema.RunKindFilter(schema.KindInventory))
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
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
	return out, nil
}
