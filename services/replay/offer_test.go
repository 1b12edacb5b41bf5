package replay_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rote-agent/rote/bus/bustest"
	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/schema/tools"
	"github.com/rote-agent/rote/services/replay"
)

// TestOffer: the playbooks bound to an environment are offered as tools,
// and a call is replayed only with arguments of the types its input
// schema gives (Bind, in the replay, checks the rest).
func TestOffer(t *testing.T) {
	ctx := context.Background()
	b := bustest.Start(t)
	env := tools.BrowserEnvironment("https://vendors.example")
	p, err := schema.DecodePlaybook([]byte(playbook))
	if err != nil {
		t.Fatal(err)
	}
	if p.Fingerprint, err = schema.Fingerprint(env); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Playbooks().Put(ctx, p, "test", ""); err != nil {
		t.Fatal(err)
	}
	offer := &replay.Offer{Store: b.Playbooks()}
	if others, err := offer.Tools(ctx, tools.BrowserEnvironment("https://elsewhere.example"), nil); err != nil || len(others) != 0 {
		t.Fatalf("another site is offered %d tools (%v)", len(others), err)
	}
	offered, err := offer.Tools(ctx, env, tools.Browser())
	if err != nil || len(offered) != 1 || offered[0].Spec.Name != "rote_register" {
		t.Fatalf("tools %+v, %v", offered, err)
	}

	var replayed []map[string]string
	replayer := func(_ context.Context, tool replay.PlaybookTool, params map[string]string) (*schema.ReplayResult, error) {
		replayed = append(replayed, params)
		if params["company"] == "Broken" {
			return nil, schema.Errorf(schema.CodeUnavailable, "no browser")
		}
		return &schema.ReplayResult{RunID: "r1", Outcome: schema.OutcomeSuccess}, nil
	}
	text := func(r *mcp.CallToolResult) string {
		var b strings.Builder
		for _, c := range r.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				b.WriteString(tc.Text)
			}
		}
		return b.String()
	}
	for _, tc := range []struct {
		name, tool, args string
		replays          bool
		isError          bool
		says             string
	}{
		{"an unknown tool", "rote_unregister", `{"company":"Initech","password":"x"}`, false, true, "no longer offered"},
		{"arguments that are no object", "rote_register", `["Initech"]`, false, true, "not a JSON object"},
		{"an argument of the wrong type", "rote_register", `{"company":42,"password":"x"}`, false, true, "company must be a string"},
		{"a replay that does not start", "rote_register", `{"company":"Broken","password":"x"}`, true, true, "no browser"},
		{"a replay", "rote_register", `{"company":"Initech","password":"x"}`, true, false, "r1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := len(replayed)
			r, res := offer.Call(ctx, tc.tool, json.RawMessage(tc.args), replayer)
			if got := len(replayed) > before; got != tc.replays {
				t.Fatalf("replayed %v, want %v", got, tc.replays)
			}
			if r.IsError != tc.isError || !strings.Contains(text(r), tc.says) {
				t.Fatalf("isError %v, text %q: want %v and %q", r.IsError, text(r), tc.isError, tc.says)
			}
			if (res != nil) != (tc.replays && !tc.isError) {
				t.Errorf("replay result %+v", res)
			}
			if tc.replays && replayed[len(replayed)-1]["password"] != "x" {
				t.Errorf("params %v", replayed[len(replayed)-1])
			}
		})
	}
}
