package replay_test

import (
	"context"
	"fmt"
	"os"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/services/replay"
	"github.com/rote-agent/rote/services/replay/replaytest"
)

// An executor replays a playbook through a Dispatcher (here a scripted
// one; in production a browser session or an MCP server): deterministic
// steps call no model, a failing step goes down its on_fail ladder, and
// only a verify gate that passes is a success. The replay is a run in the
// run log.
func ExampleExecutor_Replay() {
	dir, _ := os.MkdirTemp("", "rote-example-")
	defer os.RemoveAll(dir)
	ctx := context.Background()
	b, err := bus.Open(ctx, bus.Config{DataDir: dir})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer b.Close()
	p, _ := schema.DecodePlaybook([]byte(`name: search
intent: search the catalog for {{query}}
params:
  query: {type: string, required: true}
steps:
  - {id: open, kind: deterministic, tool: navigate, args: {url: /catalog}}
  - {id: type, kind: deterministic, tool: fill, needs: [open], target: {role: searchbox, name: Search}, args: {value: "{{query}}"}, on_fail: retry(1)}
  - {id: go, kind: deterministic, tool: click, needs: [type], target: {role: button, name: Search}}
verify: [{text_visible: "results for {{query}}"}]
`))
	d := &replaytest.Scripted{Steps: map[string][]replaytest.Outcome{
		"type": {{Err: schema.Errorf(schema.CodeNotFound, "no searchbox yet")}, {}}, // there on the second try
		"go":   {{World: schema.World{Page: true, Text: "12 results for desk"}}},
	}}
	ex := replay.NewExecutor(replay.Config{SecretKey: []byte("key")}, b.Runs(), b.RPC(), b.Playbooks())
	res, err := ex.Replay(ctx, replay.Request{Playbook: p, Params: map[string]string{"query": "desk"}, AllowUnbound: true,
		Open: func(context.Context, string, []string) (replay.Dispatcher, error) { return d, nil }})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range res.Steps {
		fmt.Println(s.StepID, s.Attempts)
	}
	fmt.Println(res.Outcome, len(res.Usage))
	// Output:
	// open 1
	// type 2
	// go 1
	// success 0
}
