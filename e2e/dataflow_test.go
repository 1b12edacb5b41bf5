package e2e

import (
	"bufio"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rote-agent/rote/services/recorder/recordertest"
)

// rawClient speaks JSON-RPC to a recording proxy by hand, as clients in
// the wild do, negotiating one protocol version.
type rawClient struct {
	t       *testing.T
	rec     *recording
	out     *bufio.Reader
	version string
	id      int
	notes   []string // the methods of the notifications read, in order
	calls   int      // the tools/call requests made
}

// handshake opens the session: initialize (and its notification) up to
// 2025-11-25, the stateless server/discover for 2026-07-28, falling back
// to initialize with 2025-11-25, as such a client does, when the server
// does not know server/discover; then lists the tools so that the
// recorder knows the inventory.
func (c *rawClient) handshake() {
	if c.version == "2026-07-28" {
		_, rpcErr := c.exchange("server/discover", map[string]any{"_meta": map[string]any{"io.modelcontextprotocol/clientInfo": map[string]any{"name": "raw", "version": "1"}}})
		if rpcErr == nil {
			c.request("tools/list", map[string]any{})
			return
		}
		if !strings.Contains(string(rpcErr), "-32601") {
			c.t.Fatalf("server/discover: %s", rpcErr)
		}
		c.version = "2025-11-25"
	}
	c.request("initialize", map[string]any{"protocolVersion": c.version, "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "raw", "version": "1"}})
	c.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	c.request("tools/list", map[string]any{})
}

func (c *rawClient) send(msg map[string]any) {
	b, _ := json.Marshal(msg)
	if _, err := c.rec.stdin.Write(append(b, '\n')); err != nil {
		c.t.Fatal(err)
	}
}

// request sends one request and returns its result, skipping
// notifications; an error response fails the test.
func (c *rawClient) request(method string, params map[string]any) json.RawMessage {
	c.t.Helper()
	res, rpcErr := c.exchange(method, params)
	if rpcErr != nil {
		c.t.Fatalf("%s (protocol %s): %s", method, c.version, rpcErr)
	}
	return res
}

// exchange sends one request and returns its result or its error.
func (c *rawClient) exchange(method string, params map[string]any) (result, rpcErr json.RawMessage) {
	c.t.Helper()
	c.id++
	if method == "tools/call" {
		c.calls++
	}
	if c.version == "2026-07-28" {
		meta, _ := params["_meta"].(map[string]any)
		if meta == nil {
			meta = map[string]any{}
		}
		meta["io.modelcontextprotocol/protocolVersion"] = c.version
		meta["io.modelcontextprotocol/clientCapabilities"] = map[string]any{}
		params["_meta"] = meta
	}
	c.send(map[string]any{"jsonrpc": "2.0", "id": c.id, "method": method, "params": params})
	for {
		line, err := c.out.ReadBytes('\n')
		if err != nil {
			c.t.Fatalf("%s: %v\n%s", method, err, c.rec.stderr)
		}
		var m struct {
			ID     *int            `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if json.Unmarshal(line, &m) != nil || m.ID == nil || *m.ID != c.id {
			var note struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			if json.Unmarshal(line, &note) == nil && note.Method != "" && len(note.ID) == 0 {
				c.notes = append(c.notes, note.Method)
			}
			continue
		}
		return m.Result, m.Error
	}
}

// text calls a tool that must succeed and returns its text content.
func (c *rawClient) text(tool string, args map[string]any) string {
	c.t.Helper()
	res := c.request("tools/call", map[string]any{"name": tool, "arguments": args})
	var r struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	if err := json.Unmarshal(res, &r); err != nil || r.IsError {
		c.t.Fatalf("%s %v: %v %.2000s", tool, args, err, res)
	}
	var b strings.Builder
	for _, x := range r.Content {
		b.WriteString(x.Text)
	}
	return b.String()
}

// call calls a tool and decodes its structured content into v.
func (c *rawClient) call(tool string, args map[string]any, v any) {
	c.t.Helper()
	res := c.request("tools/call", map[string]any{"name": tool, "arguments": args})
	var r struct {
		Structured json.RawMessage `json:"structuredContent"`
		IsError    bool            `json:"isError"`
	}
	if err := json.Unmarshal(res, &r); err != nil || r.IsError {
		c.t.Fatalf("%s: %v %s", tool, err, res)
	}
	if err := json.Unmarshal(r.Structured, v); err != nil {
		c.t.Fatalf("%s: %v %s", tool, err, res)
	}
}

// TestDataflowAcrossProtocolVersions records a create-then-label session
// through rote record with a raw JSON-RPC client speaking each protocol
// version, distills it (the label call's id becomes an output of the
// create call), promotes it with a replay client that negotiates its own
// version, and replays it with new values: the new record is labelled,
// never the recorded one. A create result without the record, or with
// two, stops the replay before any label is sent.
func TestDataflowAcrossProtocolVersions(t *testing.T) {
	t.Parallel()
	for i, version := range []string{"2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) {
			dir := t.TempDir()
			state := filepath.Join(dir, "records.json")
			server, env := recordertest.Command()
			env = append(env, recordertest.EnvState+"="+state)
			rec := startRecording(t, dir, env, []string{"--task", "label-record", "--text", "Create a record named Acme and label it urgent",
				"--param", "name=Acme", "--param", "label=urgent", "--target", "records", "--verify", "text_visible: 'Acme: urgent'", "--verify", "{json_path_equals: $.structuredContent.label, equals: urgent}"}, server...)
			c := &rawClient{t: t, rec: rec, out: bufio.NewReader(rec.stdout), version: version}
			c.handshake()
			var made struct {
				Created []struct{ ID string } `json:"created"`
			}
			c.call("create_record", map[string]any{"name": "Acme"}, &made)
			if len(made.Created) != 1 {
				t.Fatalf("created %+v", made)
			}
			var labelled map[string]string
			c.call("label_record", map[string]any{"id": made.Created[0].ID, "label": "urgent"}, &labelled)
			rec.stdin.Close()
			if err := rec.cmd.Wait(); err != nil {
				t.Fatalf("record: %v\n%s", err, rec.stderr)
			}
			data := []string{"--data", dir}
			code, out := rote(t, dir, append(data, "runs", "show", rec.runID)...)
			if code != 0 || !strings.Contains(out, "protocol "+version) {
				t.Fatalf("runs show: exit %d\n%s", code, out)
			}
			code, out = rote(t, dir, append(data, "distill", rec.runID)...)
			for _, want := range []string{"{{steps.create-record.id}}", "json: $.created[0].id", "found at replay by json $.created[0].id"} {
				if code != 0 || !strings.Contains(out, want) {
					t.Fatalf("distill: exit %d, want %q in\n%s", code, want, out)
				}
			}
			withServer := func(args ...string) []string { return append(append(append(data, args...), "--"), server...) }
			code, out = roteEnv(t, dir, env, withServer("promote", rec.runID, "--target", "records")...)
			if code != 0 || !strings.Contains(out, "promoted label-record v1") {
				t.Fatalf("promote (recorded with %s): exit %d\n%s", version, code, out)
			}
			replay := func(drift string, params ...string) (int, string) {
				t.Helper()
				args := withServer(append([]string{"replay", "label-record", "--target", "records"}, params...)...)
				return roteEnv(t, dir, append(env, recordertest.EnvDrift+"="+drift), args...)
			}
			code, out = replay("", "--param", "name=Globex", "--param", "label=vip")
			if code != 0 || !strings.Contains(out, "success: verified") {
				t.Fatalf("replay with new values: exit %d\n%s", code, out)
			}
			records, err := recordertest.ReadRecords(state)
			if err != nil {
				t.Fatal(err)
			}
			for id, r := range records.Records {
				want := map[string]string{"Acme": "urgent", "Globex": "vip"}[r.Name]
				if r.Label != want {
					t.Errorf("record %s (%s) is labelled %q, want %q: %+v", id, r.Name, r.Label, want, records)
				}
			}
			replayRun := regexp.MustCompile(`run ([0-9A-Z]{26})`).FindStringSubmatch(out)
			if replayRun == nil {
				t.Fatalf("no run id in\n%s", out)
			}
			code, out = rote(t, dir, append(data, "runs", "show", replayRun[1])...)
			if code != 0 || !regexp.MustCompile(`label_record .*\{\{steps\.create-record\.id\}\} = "r-\d+"`).MatchString(out) {
				t.Fatalf("runs show of the replay does not show the bound id: exit %d\n%s", code, out)
			}
			if i > 0 {
				return
			}
			// Fail closed, once: nothing or two records where one was.
			for drift, reason := range map[string]string{"empty": "binding_not_found", "twice": "ambiguous"} {
				code, out = replay(drift, "--param", "name=Initech", "--param", "label=vip")
				if code != 1 || !strings.Contains(out, reason) || !strings.Contains(out, "{{steps.create-record.id}}") {
					t.Fatalf("replay with drift %s: exit %d, want %s\n%s", drift, code, reason, out)
				}
			}
			records, _ = recordertest.ReadRecords(state)
			for id, r := range records.Records {
				if r.Name == "Initech" && r.Label != "" {
					t.Fatalf("record %s was labelled after its create result did not bind: %+v", id, records)
				}
			}
			t.Logf("records after the drifted replays: %+v", records)
		})
	}
}
