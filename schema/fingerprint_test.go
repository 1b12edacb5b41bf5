package schema_test

import (
	"errors"
	"testing"

	"github.com/rote-agent/rote/schema"
)

func env(tools ...schema.ToolSpec) schema.Environment {
	return schema.Environment{
		Tools:    tools,
		Identity: schema.Identity{Origin: "http://127.0.0.1:8080", Server: "portal"},
		Surfaces: map[string]string{"protocol": "2025-06-18", "server": "1.2.0"},
	}
}

var (
	click    = schema.ToolSpec{Name: "click", InputSchema: schema.RawJSON(`{"type":"object","properties":{"target":{"type":"string"}},"required":["target"]}`)}
	clickRe  = schema.ToolSpec{Name: "click", InputSchema: schema.RawJSON(` { "required" : [ "target" ], "properties": {"target": {"type": "string"}}, "type": "object" } `)}
	navigate = schema.ToolSpec{Name: "navigate", InputSchema: schema.RawJSON(`{"type":"object","properties":{"url":{"type":"string"}}}`)}
)

func fp(t *testing.T, e schema.Environment) string {
	t.Helper()
	got, err := schema.Fingerprint(e)
	if err != nil {
		t.Fatal(err)
	}
	if err := schema.ValidateFingerprint(got); err != nil {
		t.Fatal(err)
	}
	return got
}

func TestFingerprintIgnoresOrderAndWhiteSpace(t *testing.T) {
	a := fp(t, env(click, navigate))
	if b := fp(t, env(navigate, clickRe)); a != b {
		t.Fatalf("tool order or schema key order changed the fingerprint: %s vs %s", a, b)
	}
	e := env(click, navigate)
	e.Surfaces = map[string]string{"server": "1.2.0", "protocol": "2025-06-18"}
	if b := fp(t, e); a != b {
		t.Fatal("surface map order changed the fingerprint")
	}
	desc := click
	desc.InputSchema = schema.RawJSON(`{"type":"object","properties":{"target":{"type":"string"}},"required":["target"]}`)
	if b := fp(t, env(desc, navigate)); a != b {
		t.Fatal("an identical schema changed the fingerprint")
	}
}

func TestFingerprintChangesWithAnySchemaChange(t *testing.T) {
	a := fp(t, env(click, navigate))
	changed := []schema.Environment{
		env(click),
		env(click, navigate, schema.ToolSpec{Name: "hover"}),
		env(schema.ToolSpec{Name: "click", InputSchema: schema.RawJSON(`{"type":"object","properties":{"target":{"type":"integer"}},"required":["target"]}`)}, navigate),
		env(schema.ToolSpec{Name: "click", InputSchema: click.InputSchema, OutputSchema: schema.RawJSON(`{"type":"object"}`)}, navigate),
		env(schema.ToolSpec{Name: "press", InputSchema: click.InputSchema}, navigate),
	}
	ids := env(click, navigate)
	ids.Identity.Origin = "http://127.0.0.1:9090"
	changed = append(changed, ids)
	ver := env(click, navigate)
	ver.Surfaces = map[string]string{"protocol": "2025-06-18", "server": "1.3.0"}
	changed = append(changed, ver)
	seen := map[string]bool{a: true}
	for i, e := range changed {
		b := fp(t, e)
		if seen[b] {
			t.Errorf("change %d did not give a new fingerprint", i)
		}
		seen[b] = true
	}
}

func TestFingerprintRejectsBadInventories(t *testing.T) {
	for name, e := range map[string]schema.Environment{
		"duplicate tool": env(click, clickRe),
		"bad schema":     env(schema.ToolSpec{Name: "x", InputSchema: schema.RawJSON(`{"type":`)}),
		"trailing data":  env(schema.ToolSpec{Name: "x", InputSchema: schema.RawJSON(`{} {}`)}),
		"nameless tool":  env(schema.ToolSpec{InputSchema: schema.RawJSON(`{}`)}),
	} {
		if _, err := schema.Fingerprint(e); !errors.Is(err, schema.ErrInvalid) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestCanonicalJSON(t *testing.T) {
	for in, want := range map[string]string{
		`{"b":1,"a":[1.0, 2e0, -0, 1.5]}`: `{"a":[1,2,0,1.5],"b":1}`,
		` "x" `:                           `"x"`,
		`123456789012345678901234567890`:  `123456789012345678901234567890`,
		`{"z":{"y":null,"x":true}}`:       `{"z":{"x":true,"y":null}}`,
	} {
		got, err := schema.CanonicalJSON([]byte(in))
		if err != nil || string(got) != want {
			t.Errorf("CanonicalJSON(%s) = %s, %v; want %s", in, got, err, want)
		}
	}
}

// TestMCPFingerprintIgnoresTheNegotiatedProtocol: the same server gives one
// fingerprint whichever protocol version a client negotiated, and the
// fingerprints recorded when the version was part of it are recognised.
func TestMCPFingerprintIgnoresTheNegotiatedProtocol(t *testing.T) {
	mcpEnv := schema.MCPEnvironment("portal-tools", "1.2.0", "portal", []schema.ToolSpec{click, navigate})
	now := fp(t, mcpEnv)
	legacy := schema.LegacyFingerprints(mcpEnv)
	if len(legacy) != len(schema.MCPProtocolVersions)+1 {
		t.Fatalf("%d legacy fingerprints for %d versions", len(legacy), len(schema.MCPProtocolVersions))
	}
	for i, v := range schema.MCPProtocolVersions {
		old := mcpEnv
		old.Surfaces = map[string]string{"server_version": "1.2.0", "protocol": v}
		if got := fp(t, old); got != legacy[i] || got == now {
			t.Errorf("protocol %s: recorded %s, legacy %s, now %s", v, got, legacy[i], now)
		}
		if got := fp(t, old.Stable()); got != now {
			t.Errorf("protocol %s: the stable environment has fingerprint %s, want %s", v, got, now)
		}
	}
}
