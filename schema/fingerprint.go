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

// MCPProtocolVersions are the MCP protocol versions a client may
// negotiate, oldest first. Fingerprints no longer include the one a
// recording client negotiated; LegacyFingerprints recognises playbooks
// bound before that.
var MCPProtocolVersions = []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"}

// SurfaceProtocol is the surface that once held the negotiated MCP
// protocol version, and still holds the browser's action protocol
// (tools.BrowserProtocol).
const SurfaceProtocol = "protocol"

// MCPEnvironment is the environment of an MCP server: its name and
// version as it reports them, its tools with their schemas, and target,
// the user's name for what it points at. The protocol version a client
// negotiated is not part of it: the same server answers every client.
func MCPEnvironment(server, version, target string, tools []ToolSpec) Environment {
	return Environment{Tools: tools, Identity: Identity{Server: server, Target: target}, Surfaces: map[string]string{"server_version": version}}
}

// Stable returns env without what one client negotiated: an MCP server's
// environment recorded before MCPEnvironment left out the protocol
// version carries it among its surfaces. A browser's environment (one with
// an origin) is returned as it is: its protocol is Rote's action protocol.
func (env Environment) Stable() Environment {
	if _, ok := env.Surfaces[SurfaceProtocol]; !ok || env.Identity.Origin != "" {
		return env
	}
	out := env
	out.Surfaces = make(map[string]string, len(env.Surfaces))
	for k, v := range env.Surfaces {
		if k != SurfaceProtocol {
			out.Surfaces[k] = v
		}
	}
	return out
}

// browserToolsAdded are the browser's tools added since its first
// playbooks were learned: the browser without them is the one those
// playbooks knew, and every action they take means what it meant.
var browserToolsAdded = []string{string(ActDrag), string(ActSetValue)}

// LegacyFingerprints are the fingerprints an environment had before a
// change that left what its playbooks do as it was: an MCP server's
// when they included the negotiated protocol version (one per version in
// MCPProtocolVersions, and one for a session that negotiated none); a
// browser's before its newer tools were added.
func LegacyFingerprints(env Environment) []string {
	env = env.Stable()
	if env.Identity.Origin != "" {
		old := env
		old.Tools = slices.DeleteFunc(slices.Clone(env.Tools), func(t ToolSpec) bool { return slices.Contains(browserToolsAdded, t.Name) })
		if fp, err := Fingerprint(old); err == nil && len(old.Tools) < len(env.Tools) {
			return []string{fp}
		}
		return nil
	}
	var out []string
	for _, v := range append(slices.Clone(MCPProtocolVersions), "") {
		legacy := env
		legacy.Surfaces = map[string]string{SurfaceProtocol: v}
		for k, x := range env.Surfaces {
			legacy.Surfaces[k] = x
		}
		if fp, err := Fingerprint(legacy); err == nil {
			out = append(out, fp)
		}
	}
	return out
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
