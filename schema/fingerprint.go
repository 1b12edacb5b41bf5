package schema

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strings"
)

// ToolSpec is one tool of an environment's inventory as its server
// declares it. The description is kept for readers but is not part of the
// fingerprint: rewording a description does not change what a tool does.
type ToolSpec struct {
	Name         string  `msgpack:"name" json:"name"`
	Description  string  `msgpack:"description,omitempty" json:"description,omitempty"`
	InputSchema  RawJSON `msgpack:"input_schema,omitempty" json:"inputSchema,omitempty"`
	OutputSchema RawJSON `msgpack:"output_schema,omitempty" json:"outputSchema,omitempty"`
}

// Identity names the concrete target an environment points at.
type Identity struct {
	Origin  string `msgpack:"origin,omitempty" json:"origin,omitempty"`     // a web origin, scheme://host:port
	Remote  string `msgpack:"remote,omitempty" json:"remote,omitempty"`     // a repository remote
	APIBase string `msgpack:"api_base,omitempty" json:"api_base,omitempty"` // an API base URL
	Server  string `msgpack:"server,omitempty" json:"server,omitempty"`     // an MCP server's name
	Target  string `msgpack:"target,omitempty" json:"target,omitempty"`     // an id the user gave, e.g. --target
}

// Environment is everything a playbook's meaning depends on.
type Environment struct {
	Tools    []ToolSpec        `msgpack:"tools" json:"tools"`
	Identity Identity          `msgpack:"identity" json:"identity"`
	Surfaces map[string]string `msgpack:"surfaces,omitempty" json:"surfaces,omitempty"` // versions: server, app, protocol
}

// Fingerprint returns the SHA-256, as 64 hex digits, of a canonical
// serialization of env: tools sorted by name, each reduced to the hash of
// its canonical schemas; the identity; the surface versions with sorted
// keys. Key order and white space in schemas never change it; any change
// to a schema always does. Duplicate tool names and schemas that are not
// JSON are an *Error with CodeInvalid.
func Fingerprint(env Environment) (string, error) {
	type toolEntry struct {
		Name   string `json:"name"`
		Schema string `json:"schema"`
	}
	tools := make([]toolEntry, 0, len(env.Tools))
	for _, t := range env.Tools {
		if t.Name == "" {
			return "", Errorf(CodeInvalid, "fingerprint: a tool without a name")
		}
		h, err := schemaHash(t)
		if err != nil {
			return "", within("fingerprint: tool "+t.Name, err)
		}
		tools = append(tools, toolEntry{Name: t.Name, Schema: h})
	}
	slices.SortFunc(tools, func(a, b toolEntry) int { return strings.Compare(a.Name, b.Name) })
	for i := 1; i < len(tools); i++ {
		if tools[i].Name == tools[i-1].Name {
			return "", Errorf(CodeInvalid, "fingerprint: tool %q listed twice", tools[i].Name)
		}
	}
	doc := struct {
		Version  int               `json:"v"`
		Tools    []toolEntry       `json:"tools"`
		Identity Identity          `json:"identity"`
		Surfaces map[string]string `json:"surfaces"`
	}{1, tools, env.Identity, env.Surfaces}
	b, err := json.Marshal(doc) // struct fields in declared order, map keys sorted
	if err != nil {
		return "", Errorf(CodeInvalid, "fingerprint: %v", err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// schemaHash hashes a tool's canonical input and output schemas.
func schemaHash(t ToolSpec) (string, error) {
	h := sha256.New()
	for _, s := range []RawJSON{t.InputSchema, t.OutputSchema} {
		if len(s) == 0 {
			h.Write([]byte("-\n"))
			continue
		}
		c, err := CanonicalJSON(s)
		if err != nil {
			return "", err
		}
		h.Write(c)
		h.Write([]byte("\n"))
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
