package planner

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/rote-agent/rote/bus"
)

// TestNamedInRemembersRefusalsPerEndpoint: only optional fields the
// request sends and the message names are refused, remembered for that
// endpoint alone and said once.
func TestNamedInRemembersRefusalsPerEndpoint(t *testing.T) {
	var said bytes.Buffer
	log := slog.New(slog.NewTextHandler(&said, nil))
	endpoint, other := "http://strict.test/"+bus.NewID(), "http://lenient.test/"+bus.NewID()
	body := map[string]json.RawMessage{"model": []byte(`"m"`), "prompt_cache_key": []byte(`"k"`), "max_completion_tokens": []byte("64")}
	got := namedIn(endpoint, body, "unknown fields: prompt_cache_key, parallel_tool_calls, model", log)
	if !slices.Equal(got, []string{"prompt_cache_key"}) {
		t.Fatalf("named %q: want only the optional field the request sends", got)
	}
	namedIn(endpoint, body, "prompt_cache_key is not supported", log)
	if n := strings.Count(said.String(), "field=prompt_cache_key"); n != 1 {
		t.Errorf("said %d times:\n%s", n, said.String())
	}
	refused := refusedBy(endpoint)
	if !refused["prompt_cache_key"] || len(refused) != 1 || len(refusedBy(other)) != 0 {
		t.Errorf("refused %v here, %v elsewhere", refused, refusedBy(other))
	}
	refused["max_completion_tokens"] = true
	if refusedBy(endpoint)["max_completion_tokens"] {
		t.Error("refusedBy's map is the store itself")
	}
}

// TestWithout drops a refused field, or sends it under the name it maps
// to unless the body already has that one.
func TestWithout(t *testing.T) {
	cases := []struct {
		name    string
		body    map[string]string
		refused map[string]bool
		want    map[string]string
	}{
		{"dropped", map[string]string{"model": `"m"`, "prompt_cache_key": `"k"`}, map[string]bool{"prompt_cache_key": true}, map[string]string{"model": `"m"`}},
		{"renamed", map[string]string{"max_completion_tokens": "64"}, map[string]bool{"max_completion_tokens": true}, map[string]string{"max_tokens": "64"}},
		{"renamed onto one there", map[string]string{"max_completion_tokens": "64", "max_tokens": "32"}, map[string]bool{"max_completion_tokens": true}, map[string]string{"max_tokens": "32"}},
		{"not sent", map[string]string{"model": `"m"`}, map[string]bool{"parallel_tool_calls": true}, map[string]string{"model": `"m"`}},
	}
	for _, c := range cases {
		body := map[string]json.RawMessage{}
		for k, v := range c.body {
			body[k] = json.RawMessage(v)
		}
		without(body, c.refused)
		got := map[string]string{}
		for k, v := range body {
			got[k] = string(v)
		}
		if len(got) != len(c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
			continue
		}
		for k, v := range c.want {
			if got[k] != v {
				t.Errorf("%s: %v, want %v", c.name, got, c.want)
			}
		}
	}
}
