package tools

import (
	"maps"
	"slices"
	"strings"

	"github.com/rote-agent/rote/schema"
)

// Among is a choice among records: the set, and the place of the one
// chosen. rote mcp browser puts it in a click's or hover's result
// metadata, under AmongMeta, for the distiller (a client does not show
// metadata to its model).
type Among struct {
	Records *schema.RecordSet `json:"records"`
	Chosen  int               `json:"chosen"`
}

// Result metadata keys of rote mcp browser: an Among, and the control an
// action acted on (a Target, as the result's control line says too).
const (
	AmongMeta   = "rote/among"
	ControlMeta = "rote/control"
)

// SecretArgsMeta is the request metadata key of a tools/call a replay
// makes: which of its arguments hold a secret, secret name to argument
// name ({"password": "value"}), so that a server which records what it
// is sent (rote mcp browser) records those as {{name}}. Other servers
// ignore it.
const SecretArgsMeta = "rote/secret-args"

// SecretArgs names the top-level string arguments of args that hold one
// of secrets (name to value), for SecretArgsMeta; nil when none does.
func SecretArgs(args map[string]any, secrets map[string]string) map[string]string {
	var out map[string]string
	for _, arg := range slices.Sorted(maps.Keys(args)) {
		s, ok := args[arg].(string)
		if !ok {
			continue
		}
		for name, secret := range secrets {
			if secret == "" || !strings.Contains(s, secret) {
				continue
			}
			if out == nil {
				out = map[string]string{}
			}
			// One argument per secret: the one that is the secret, else
			// the first by name, so that the same call names the same.
			if prev, ok := out[name]; !ok || s == secret && args[prev] != secret {
				out[name] = arg
			}
		}
	}
	return out
}
