package replay

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/schema/tools"
)

// MCPConfig says which MCP server to drive and where its calls are
// recorded.
type MCPConfig struct {
	Command  []string        // the server: program and arguments, over stdio
	Target   string          // the environment's name, as given to rote record --target
	Runs     *bus.RunLog     // where the calls are recorded
	RunID    string          // the run they belong to
	Redactor schema.Redactor // secrets in arguments are recorded as digests
	Stderr   *os.File        // the server's stderr; nil discards it
	Env      []string        // KEY=VALUE added to this process's environment for the server
	// Secrets are the replay's secret parameters, name to value: each
	// call tells the server which of its arguments hold one
	// (tools.SecretArgsMeta).
	Secrets map[string]string
	// Client is what this client declares it can do, as the recorded
	// client did (schema.Playbook.Client): a server may list other tools
	// to a client that can sample, elicit or name roots.
	Client []string
}

// MCPDispatcher runs steps as tool calls to an MCP server over stdio: a
// step's tool is a tool name and its args are the call's arguments. Each
// call is recorded as trajectory.tool_call.v1 in the run.
type MCPDispatcher struct {
	cfg     MCPConfig
	session ToolCaller
	env     schema.Environment

	hasProbe bool     // the server can read a control's contract (mcp_contract.go)
	origins  []string // where a url argument may go (ConfineURLs); any http(s) origin when empty

	mu       sync.Mutex
	seq      uint64
	last     schema.World
	bound    map[string]string  // for the next call's record
	resolved *schema.Target     // the control the last call acted on
	wrote    []string           // the last step's calls the server answered
	typed    schema.TypedValues // what the run typed or chose, for the send guard
}

// OpenMCPDispatcher starts the server, initializes a session and lists
// its tools. The environment (and so the fingerprint) is computed as the
// recorder computes it from the same session (schema.MCPEnvironment):
// tools with their schemas, the server's name and version, and Target;
// not the protocol version this client negotiated.
func OpenMCPDispatcher(ctx context.Context, cfg MCPConfig) (*MCPDispatcher, error) {
	if len(cfg.Command) == 0 {
		return nil, schema.Errorf(schema.CodeInvalid, "no MCP server command")
	}
	cmd := exec.Command(cfg.Command[0], cfg.Command[1:]...)
	if len(cfg.Env) > 0 {
		cmd.Env = append(os.Environ(), cfg.Env...)
	}
	if cfg.Stderr != nil {
		cmd.Stderr = cfg.Stderr
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "rote-replay", Version: "0.1.0"}, clientOptions(cfg.Client))
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return nil, schema.Errorf(schema.CodeUnavailable, "MCP server %q: %v", cfg.Command[0], err)
	}
	env, err := inventory(ctx, cs, cfg.Target)
	if err != nil {
		cs.Close()
		return nil, err
	}
	return MCPDispatcherOn(cs, env, cfg), nil
}

// A ToolCaller makes tool calls on an MCP session that is already
// initialized: a *mcp.ClientSession, or the session a client holds with a
// server through rote record.
type ToolCaller interface {
	CallTool(ctx context.Context, params *mcp.CallToolParams) (*mcp.CallToolResult, error)
	// Close ends the caller's use of the session.
	Close() error
}

// MCPDispatcherOn returns a dispatcher that calls tools through caller on
// a server whose environment is env (as schema.MCPEnvironment computes it
// from the session's initialize and tools/list).
func MCPDispatcherOn(caller ToolCaller, env schema.Environment, cfg MCPConfig) *MCPDispatcher {
	return &MCPDispatcher{cfg: cfg, session: caller, env: env, hasProbe: offersProbe(env.Tools)}
}

func inventory(ctx context.Context, cs *mcp.ClientSession, target string) (schema.Environment, error) {
	var tools []schema.ToolSpec
	var cursor string
	for {
		res, err := cs.ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor})
		if err != nil {
			return schema.Environment{}, schema.Errorf(schema.CodeUnavailable, "tools/list: %v", err)
		}
		for _, t := range res.Tools {
			spec := schema.ToolSpec{Name: t.Name, Description: t.Description}
			if t.InputSchema != nil {
				spec.InputSchema, _ = json.Marshal(t.InputSchema)
			}
			if t.OutputSchema != nil {
				spec.OutputSchema, _ = json.Marshal(t.OutputSchema)
			}
			tools = append(tools, spec)
		}
		if cursor = res.NextCursor; cursor == "" {
			break
		}
	}
	var name, version string
	if init := cs.InitializeResult(); init != nil && init.ServerInfo != nil {
		name, version = init.ServerInfo.Name, init.ServerInfo.Version
	}
	return schema.MCPEnvironment(name, version, target, tools), nil
}

// Fingerprint is the fingerprint of the server's environment.
func (d *MCPDispatcher) Fingerprint(context.Context) (string, error) {
	return schema.Fingerprint(d.env)
}

// LegacyFingerprints are the fingerprints this environment had when they
// included the negotiated protocol version.
func (d *MCPDispatcher) LegacyFingerprints() []string { return schema.LegacyFingerprints(d.env) }

// ConfineURLs makes every later call's url argument an absolute address
// on origins (schema.URLArg): a relative address, or a file:,
// javascript: or other scheme, is refused whatever origins says.
func (d *MCPDispatcher) ConfineURLs(origins []string) { d.origins = origins }

// Dispatch calls a tool. The world it returns has the call's result as
// Output and its text content as Text. A tool the server does not list
// is CodeNotFound; a result with isError is CodeToolError. On a browser
// server, a call acting on a control first reads the control's contract
// and, when target records one, refuses a control that changed
// (CodeContractChanged, CodeControlChanged) without sending the call. A
// url argument off its origins (ConfineURLs) is CodeOutOfOrigin, and
// nothing is sent.
func (d *MCPDispatcher) Dispatch(ctx context.Context, stepID, tool string, args map[string]any, target *schema.Target) (schema.World, error) {
	if !d.offers(tool) {
		var names []string
		for _, t := range d.env.Tools {
			names = append(names, t.Name)
		}
		return schema.World{}, schema.Errorf(schema.CodeNotFound, "unknown tool %q (the server lists %s)", tool, strings.Join(names, ", "))
	}
	if args == nil {
		args = map[string]any{}
	}
	if raw, ok := args[schema.URLArg].(string); ok {
		if _, err := schema.CheckNavigation(raw, d.origins); err != nil {
			return schema.World{}, fmt.Errorf("%s %s: %w", tool, schema.URLArg, err)
		}
	}
	d.mu.Lock()
	d.resolved, d.wrote = nil, nil
	d.remember(tool, args)
	d.mu.Unlock()
	if !d.probes(tool, args) {
		return d.call(ctx, stepID, tool, args, false)
	}
	if tool == "browser_type" && d.offers(pressTool) {
		// Typing fires the page's input handlers, which may move the form
		// elsewhere: the contract is read after the typing, before Enter.
		typing := maps.Clone(args)
		typing["submit"] = false
		if _, err := d.call(ctx, stepID, tool, typing, false); err != nil {
			return schema.World{}, err
		}
		return d.send(ctx, stepID, pressTool, map[string]any{"key": "Enter"}, args, schema.ActPress, target)
	}
	kind := schema.ActPress
	if tool == "browser_click" {
		kind = schema.ActClick
	}
	return d.send(ctx, stepID, tool, args, args, kind, target)
}

// send makes a call that acts as kind (a click, a key press) on the
// control probeArgs name, after its contract is read and held to the
// target's, inside the send guard (mcp_sendguard.go) when the control
// sends and the server can run one: where it can, the read and the arming
// are one call.
func (d *MCPDispatcher) send(ctx context.Context, stepID, tool string, args, probeArgs map[string]any, kind schema.ActionKind, target *schema.Target) (schema.World, error) {
	var current *schema.Contract
	var armed bool
	var err error
	if target != nil && target.Contract != nil && d.offers(runCodeTool) {
		current, armed, err = d.checkAndArm(ctx, stepID, probeArgs, kind, target)
	} else {
		current, err = d.checkContract(ctx, stepID, probeArgs, kind, target)
	}
	if err != nil {
		return schema.World{}, err
	}
	w, err := d.call(ctx, stepID, tool, args, false)
	if armed {
		if gerr := d.disarmSend(ctx, stepID, current); gerr != nil {
			return schema.World{}, gerr
		}
	}
	return w, err
}

// pressTool is the browser server's key press, which a typing step that
// submits is split around.
const pressTool = "browser_press_key"

// offers reports whether the server lists tool.
func (d *MCPDispatcher) offers(tool string) bool {
	return slices.ContainsFunc(d.env.Tools, func(t schema.ToolSpec) bool { return t.Name == tool })
}

// checkContract reads the contract of the control the call acts on and
// holds it to the target's recorded one, noting what it read as Resolved.
// It returns what it read.
func (d *MCPDispatcher) checkContract(ctx context.Context, stepID string, args map[string]any, kind schema.ActionKind, target *schema.Target) (*schema.Contract, error) {
	c, err := d.contractOf(ctx, stepID, args)
	if err != nil {
		return nil, err
	}
	return c, d.hold(target, c, kind)
}

// hold holds the contract c just read to the target's recorded one, for
// a call acting as kind (a control that sent nothing when recorded may
// not send now), and notes it as Resolved.
func (d *MCPDispatcher) hold(target *schema.Target, c *schema.Contract, kind schema.ActionKind) error {
	if target != nil {
		if err := target.Contract.Check(c); err != nil {
			return err
		}
		if err := target.Contract.CheckSending(c, kind); err != nil {
			return err
		}
	}
	resolved := &schema.Target{Contract: c}
	if target != nil {
		resolved.Role, resolved.Name = target.Role, target.Name
	}
	d.mu.Lock()
	d.resolved = resolved
	d.mu.Unlock()
	return nil
}

// Resolved is the control the last call acted on, with the contract read
// before it: nil when the call named no control or the server cannot
// read one.
func (d *MCPDispatcher) Resolved() *schema.Target {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.resolved
}

// call makes one tool call and records it; probe marks a call the replay
// made to read the page, not one of the task's.
func (d *MCPDispatcher) call(ctx context.Context, stepID, tool string, args map[string]any, probe bool) (schema.World, error) {
	rawArgs, err := json.Marshal(args)
	if err != nil {
		return schema.World{}, schema.Errorf(schema.CodeInvalid, "arguments of %s: %v", tool, err)
	}
	start := time.Now()
	params := &mcp.CallToolParams{Name: tool, Arguments: args}
	if secret := tools.SecretArgs(args, d.cfg.Secrets); secret != nil {
		params.Meta = mcp.Meta{tools.SecretArgsMeta: secret}
	}
	res, callErr := d.session.CallTool(ctx, params)
	took := time.Since(start)
	call := &schema.ToolCall{Meta: schema.Meta{Time: start}, RunID: d.cfg.RunID, Tool: tool, Duration: took, StepID: stepID, Probe: probe}
	if !probe {
		d.mu.Lock()
		call.Bound, d.bound = d.bound, nil
		d.mu.Unlock()
	}
	if redacted, _, err := d.cfg.Redactor.RedactArguments(rawArgs, d.inputSchema(tool)); err == nil {
		call.Arguments, call.ArgumentsDigest, call.ArgumentsSize = redacted, schema.Digest(redacted), len(redacted)
	}
	var world schema.World
	var failure error
	if callErr != nil {
		call.Error = &schema.CallError{Kind: schema.CallErrorRPC, Message: d.cfg.Redactor.ScrubString(callErr.Error())}
		failure = schema.Errorf(schema.CodeToolError, "%s: %v", tool, callErr)
	} else {
		raw, _ := json.Marshal(res)
		world = schema.ToolResultWorld(raw)
		// A server that echoes a secret has it stored as its digest, as
		// the recorder stores it; the replay itself reads the clear text.
		kept, _ := d.cfg.Redactor.Scrub(raw)
		call.Result, call.ResultDigest, call.ResultSize = kept, schema.Digest(kept), len(kept)
		if res.IsError {
			call.Error = &schema.CallError{Kind: schema.CallErrorTool, Message: world.Text}
			failure = schema.Errorf(typedCode(res.StructuredContent), "%s: %s", tool, world.Text)
		}
	}
	d.mu.Lock()
	d.seq++
	call.Seq, call.ID = d.seq, fmt.Sprintf("%s-m%d", d.cfg.RunID, d.seq)
	if failure == nil && !probe {
		d.last = world
		d.wrote = append(d.wrote, "called "+tool)
	}
	d.mu.Unlock()
	if d.cfg.Runs != nil && d.cfg.RunID != "" {
		// A call that was sent is recorded even when the replay is being
		// cancelled: its effect may have happened.
		rec, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		if err := d.cfg.Runs.PublishSpilled(rec, call); err != nil {
			return schema.World{}, fmt.Errorf("record %s: %w", tool, err)
		}
	}
	return world, failure
}

func (d *MCPDispatcher) inputSchema(tool string) []byte {
	for _, t := range d.env.Tools {
		if t.Name == tool {
			return t.InputSchema
		}
	}
	return nil
}

// RecordBindings records bound with the next call.
func (d *MCPDispatcher) RecordBindings(bound map[string]string) {
	d.mu.Lock()
	d.bound = bound
	d.mu.Unlock()
}

// World is the world the last successful call left.
func (d *MCPDispatcher) World(context.Context) (schema.World, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.last, nil
}

// Wrote is the calls of the last step the server answered: a tool call
// may change anything (a server's hints about its tools are its word, not
// a guarantee), so a retry does not make one again.
func (d *MCPDispatcher) Wrote() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.wrote
}

// Close ends the session, which stops the server.
func (d *MCPDispatcher) Close(context.Context) error { return d.session.Close() }

// pageCodes are the reasons a browser server may give, in its error
// result's structured content ({"error": {"code": …}}), for refusing to
// act: what they say about the page is kept. Any other code, or none, is
// CodeToolError: a server's word never makes a failure hard or retried
// where a tool error would not be.
var pageCodes = []schema.Code{schema.CodeNotFound, schema.CodeAmbiguous, schema.CodeContractChanged, schema.CodeControlChanged, schema.CodeObscured}

func typedCode(structured any) schema.Code {
	b, err := json.Marshal(structured)
	if err != nil {
		return schema.CodeToolError
	}
	var s struct {
		Error struct {
			Code schema.Code `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal(b, &s) != nil || !slices.Contains(pageCodes, s.Error.Code) {
		return schema.CodeToolError
	}
	return s.Error.Code
}
