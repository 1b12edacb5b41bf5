package replay

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/schema"
)

// ToolPrefix begins the name of every playbook offered as an MCP tool,
// so that it stays apart from the server's own tools.
const ToolPrefix = "rote_"

// PlaybookTool is a promoted playbook offered to an MCP client as a tool:
// calling it replays the playbook.
type PlaybookTool struct {
	Spec     schema.ToolSpec // name, description and input schema, as tools/list shows them
	Playbook *schema.Playbook
	Version  uint64
}

// PlaybookTools are the tools for entries: one per playbook that decodes,
// named ToolPrefix plus its name (a playbook's name is already one a tool
// may have), in the order given. A name one of the server's own tools or
// an earlier entry has gets a numbered suffix.
func PlaybookTools(entries []bus.PlaybookEntry, own []schema.ToolSpec) []PlaybookTool {
	used := map[string]bool{}
	for _, t := range own {
		used[t.Name] = true
	}
	var out []PlaybookTool
	for _, e := range entries {
		p, err := e.Decode()
		if err != nil {
			continue
		}
		base := ToolPrefix + e.Name
		name := base
		for n := 2; used[name]; n++ {
			name = base + "_" + strconv.Itoa(n)
		}
		used[name] = true
		out = append(out, PlaybookTool{Playbook: p, Version: e.Stored.Version,
			Spec: schema.ToolSpec{Name: name, Description: describe(p, e.Stored.Version), InputSchema: inputSchema(p)}})
	}
	return out
}

// describe says what the tool does and what it proves, for the agent
// that chooses it.
func describe(p *schema.Playbook, version uint64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Do this task with a verified playbook, replayed with no model in the loop: %s", p.Intent)
	if len(p.Verify) > 0 {
		var checks []string
		for _, e := range p.Verify {
			checks = append(checks, e.String())
		}
		fmt.Fprintf(&b, ". Verifies: %s", strings.Join(checks, "; "))
	}
	fmt.Fprintf(&b, ". (Rote playbook %s v%d.) On a stop it says which step stopped and why, and which steps were done: carry on from there with the other tools.", p.Name, version)
	return b.String()
}

// inputSchema is the JSON schema of p's parameters: types, enums and
// which are required; no other property is accepted.
func inputSchema(p *schema.Playbook) schema.RawJSON {
	props := map[string]map[string]any{}
	required := []string{}
	for name, decl := range p.Params {
		prop := map[string]any{"type": "string"}
		switch decl.Type {
		case schema.ParamNumber:
			prop["type"] = "number"
		case schema.ParamBool:
			prop["type"] = "boolean"
		case schema.ParamEnum:
			prop["enum"] = decl.Enum
		}
		desc := decl.Description
		if decl.IsSecret() {
			desc = strings.TrimSpace(desc + " A secret: passed to the replay, never stored in clear.")
		}
		if desc != "" {
			prop["description"] = desc
		}
		props[name] = prop
		if decl.Required {
			required = append(required, name)
		}
	}
	slices.Sort(required)
	raw, _ := json.Marshal(map[string]any{"type": "object", "properties": props, "required": required, "additionalProperties": false})
	return raw
}

// Params reads a tools/call's arguments as the playbook's raw parameter
// values: strings as they are, numbers and booleans in their JSON form,
// each of the JSON type the input schema gives it (a string for an
// argument the playbook does not declare, which Bind then refuses).
// Anything else is CodeParamType.
func (t PlaybookTool) Params(args json.RawMessage) (map[string]string, error) {
	out := map[string]string{}
	if len(args) == 0 || string(args) == "null" {
		return out, nil
	}
	var given map[string]json.RawMessage
	if err := json.Unmarshal(args, &given); err != nil {
		return nil, schema.Errorf(schema.CodeParamType, "the arguments are not a JSON object: %v", err)
	}
	for k, raw := range given {
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, schema.Errorf(schema.CodeParamType, "%s: %v", k, err)
		}
		want := "string"
		if decl, ok := t.Playbook.Params[k]; ok {
			switch decl.Type {
			case schema.ParamNumber:
				want = "number"
			case schema.ParamBool:
				want = "boolean"
			}
		}
		switch v := v.(type) {
		case string:
			if want == "string" {
				out[k] = v
				continue
			}
		case float64:
			if want == "number" {
				out[k] = strconv.FormatFloat(v, 'f', -1, 64)
				continue
			}
		case bool:
			if want == "boolean" {
				out[k] = strconv.FormatBool(v)
				continue
			}
		}
		return nil, schema.Errorf(schema.CodeParamType, "%s must be a %s, as the input schema says", k, want)
	}
	return out, nil
}

// ToolResult is what the client reads after a playbook tool's call: one
// compact text and the same facts as structured content. A verified
// success says what was verified and what the replay read. Anything else
// is an error result that says which step stopped and why, and which
// steps were done (their effects happened), so that the agent can carry
// on by itself. err is a replay that never started.
func ToolResult(t PlaybookTool, res *schema.ReplayResult, err error) *mcp.CallToolResult {
	if err != nil {
		e := schema.AsError(err)
		text := fmt.Sprintf("%s did not start: %s: %s. Nothing was done.", t.Playbook.Name, e.Code, e.Message)
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: text}},
			StructuredContent: map[string]any{"outcome": "not_started", "reason": e}}
	}
	verified := make([]string, 0, len(res.Verify))
	for _, c := range res.Verify {
		if c.Passed {
			verified = append(verified, c.Expect.String())
		}
	}
	structured := map[string]any{"outcome": res.Outcome, "run_id": res.RunID, "playbook": res.Playbook, "completed": res.Completed}
	var b strings.Builder
	if res.Outcome == schema.OutcomeSuccess {
		fmt.Fprintf(&b, "%s v%d: done and verified (%s) in %d step(s), %s.", res.Playbook.Name, res.Playbook.Version,
			strings.Join(verified, "; "), len(res.Completed), res.Duration.Round(10e6))
		structured["verified"] = verified
		if res.Answer != "" {
			fmt.Fprintf(&b, " Read: %s", res.Answer)
			structured["answer"] = res.Answer
		}
		fmt.Fprintf(&b, " Run %s.", res.RunID)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: b.String()}}, StructuredContent: structured}
	}
	fmt.Fprintf(&b, "%s v%d stopped (%s)", res.Playbook.Name, res.Playbook.Version, res.Outcome)
	if res.FailedStep != "" {
		fmt.Fprintf(&b, " at step %s", res.FailedStep)
		structured["failed_step"] = res.FailedStep
	}
	if res.Reason != nil {
		fmt.Fprintf(&b, ": %s: %s", res.Reason.Code, res.Reason.Message)
		structured["reason"] = res.Reason
	}
	if len(res.Completed) == 0 {
		b.WriteString(". No step was done.")
	} else {
		fmt.Fprintf(&b, ". Steps done, whose effects happened: %s.", strings.Join(res.Completed, ", "))
	}
	if res.FailedStepActed() {
		b.WriteString(" The stopped step acted before its check failed.")
	}
	fmt.Fprintf(&b, " The task is not verified done: carry on with the other tools. Run %s.", res.RunID)
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: b.String()}}, StructuredContent: structured}
}

// RPCFunc sends one JSON-RPC request on an initialized MCP session and
// returns its result: a ToolCaller over a session another party owns
// (rote record's, with its client). Close leaves the session open.
type RPCFunc func(ctx context.Context, method string, params any) (json.RawMessage, error)

// CallTool sends tools/call and reads its result.
func (f RPCFunc) CallTool(ctx context.Context, params *mcp.CallToolParams) (*mcp.CallToolResult, error) {
	raw, err := f(ctx, "tools/call", params)
	if err != nil {
		return nil, err
	}
	var res mcp.CallToolResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("tools/call result: %w", err)
	}
	return &res, nil
}

// Close does nothing: the session is its owner's.
func (f RPCFunc) Close() error { return nil }
