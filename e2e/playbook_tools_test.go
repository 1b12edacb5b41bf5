package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tiktoken-go/tokenizer"

	"github.com/rote-agent/rote/portal"
)

// countingReader keeps what the client read from the proxy.
type countingReader struct {
	r    io.Reader
	read bytes.Buffer
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.read.Write(p[:n])
	return n, err
}

// sessionCost is what one MCP session cost its client: the requests it
// made (tools/call among them), the bytes and o200k tokens it read, and
// the wall time from its first request to its last answer.
type sessionCost struct {
	requests, toolCalls int
	bytes, tokens       int
	// workBytes and workTokens leave out the handshake (initialize and
	// tools/list), which both ways of working read alike.
	workBytes, workTokens int
	wall                  time.Duration
}

func (s sessionCost) String() string {
	return fmt.Sprintf("%d | %d | %d | %d | %d | %d | %s", s.requests, s.toolCalls, s.bytes, s.tokens, s.workBytes, s.workTokens, s.wall.Round(10*time.Millisecond))
}

// measured opens a raw JSON-RPC client on rec and runs drive with it:
// the session's cost is what the handshake and drive cost. Then it runs
// after (checks that are not part of the work measured), ends the
// session and returns the cost.
func measured(t *testing.T, rec *recording, protocol string, drive, after func(c *rawClient)) sessionCost {
	t.Helper()
	counted := &countingReader{r: rec.stdout}
	c := &rawClient{t: t, rec: rec, out: bufio.NewReader(counted), version: protocol}
	start := time.Now()
	c.handshake()
	handshake := counted.read.Len()
	drive(c)
	wall := time.Since(start)
	read := counted.read.String()
	cost := sessionCost{requests: c.id, toolCalls: c.calls, bytes: len(read), workBytes: len(read) - handshake, wall: wall}
	if after != nil {
		after(c)
	}
	rec.stdin.Close()
	if err := rec.cmd.Wait(); err != nil {
		t.Fatalf("record: %v\n%s", err, rec.stderr)
	}
	codec, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	ids, _, _ := codec.Encode(read)
	work, _, _ := codec.Encode(read[handshake:])
	cost.tokens, cost.workTokens = len(ids), len(work)
	return cost
}

// listedTool is one entry of a tools/list answer.
type listedTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

func (c *rawClient) tools() []listedTool {
	var r struct {
		Tools []listedTool `json:"tools"`
	}
	if err := json.Unmarshal(c.request("tools/list", map[string]any{}), &r); err != nil {
		c.t.Fatal(err)
	}
	return r.Tools
}

// playbookCall is what a playbook tool answered.
type playbookCall struct {
	IsError bool `json:"isError"`
	Content []struct {
		Text string `json:"text"`
	} `json:"content"`
	Structured struct {
		Outcome    string   `json:"outcome"`
		RunID      string   `json:"run_id"`
		Verified   []string `json:"verified"`
		Completed  []string `json:"completed"`
		FailedStep string   `json:"failed_step"`
		Reason     struct {
			Code string `json:"code"`
		} `json:"reason"`
	} `json:"structuredContent"`
}

func (c *rawClient) playbook(tool string, args map[string]any) playbookCall {
	c.t.Helper()
	var r playbookCall
	raw := c.request("tools/call", map[string]any{"name": tool, "arguments": args})
	if err := json.Unmarshal(raw, &r); err != nil {
		c.t.Fatalf("%s: %v %s", tool, err, raw)
	}
	return r
}

// registeredOnly fails t unless the portal registered exactly want since
// it held the vendors before, and nothing else.
func registeredOnly(t *testing.T, site *portal.Portal, before []portal.Vendor, want portal.Vendor) {
	t.Helper()
	after := site.State().Vendors
	if len(after) != len(before)+1 {
		t.Fatalf("the portal has %d vendors after the call, want %d", len(after), len(before)+1)
	}
	got := after[len(after)-1]
	got.ID, got.Status = "", ""
	if got != want {
		t.Fatalf("the portal registered %+v, want %+v", got, want)
	}
}

// vendorArgs are a playbook tool's arguments for v.
func vendorArgs(v portal.Vendor) map[string]any {
	return map[string]any{"company": v.CompanyName, "tax_id": v.TaxID, "email": v.Email, "phone": v.Phone,
		"street": v.Street, "city": v.City, "password": portal.Password}
}

// TestPlaybooksAsToolsThroughRecord: the vendor registration, done once
// through rote record in front of @playwright/mcp (a session recorded
// with no flags, learned afterwards with rote learn; in the full suite
// also one recorded with its task and promoted) and of rote mcp browser
// (recorded with its task, promoted), is offered to the
// next session's raw JSON-RPC client as the tool rote_register-vendor.
// Called with another vendor's values it registers exactly that vendor,
// which the portal's state confirms, and says what it verified. A
// promotion during the session sends notifications/tools/list_changed
// and the new tool is listed; arguments the playbook does not declare
// are refused before anything is done. The cost of both sessions to the
// client is logged: the measured table of the README.
func TestPlaybooksAsToolsThroughRecord(t *testing.T) {
	t.Parallel()
	task := fmt.Sprintf("Register the vendor %s, tax ID %s, email %s, phone %s, at %s in %s",
		recordedVendor.CompanyName, recordedVendor.TaxID, recordedVendor.Email, recordedVendor.Phone, recordedVendor.Street, recordedVendor.City)
	declare := append([]string{"--text", task, "--secret", "password=" + portal.Password, "--verify", "text_visible: Vendor Acme GmbH registered"}, vendorFlags(recordedVendor)...)
	for _, srv := range []struct {
		name, protocol string
		command        serverCommand
		drive          func(c *rawClient, base string)
		learn          bool // record with no flags and learn afterwards
		long           bool // only in the full suite
	}{
		{"@playwright/mcp", "2025-06-18", playwrightMCP, drivePlaywright, true, false},
		{"rote mcp browser", "2025-11-25", roteBrowserServer, driveRoteBrowser, false, false},
		{"@playwright/mcp with its task", "2025-03-26", playwrightMCP, drivePlaywright, false, true},
	} {
		t.Run(srv.name, func(t *testing.T) {
			if srv.long {
				long(t, "a second session through @playwright/mcp")
			}
			t.Parallel()
			base, site := portalSite(t, "")
			dir := t.TempDir()
			data := []string{"--data", dir}
			server := srv.command(t, dir)

			var recordArgs []string
			if !srv.learn {
				recordArgs = append([]string{"--task", "register-vendor"}, declare...)
			}
			first := startRecording(t, dir, nil, recordArgs, server...)
			raw := measured(t, first, srv.protocol, func(c *rawClient) { srv.drive(c, base) }, nil)
			if srv.learn {
				if code, out := rote(t, dir, append(data, "runs", "list")...); code != 0 || !strings.Contains(out, "(no task) browser_type×") {
					t.Fatalf("runs list does not summarize the session's calls: exit %d\n%s", code, out)
				}
				learn := append(append(append(data, "learn", first.runID, "--name", "register-vendor"), declare...), "--")
				code, out := rote(t, dir, append(learn, server...)...)
				for _, want := range []string{"verify PASS", "distilled register-vendor", "shadow replay of register-vendor", "promoted register-vendor v1"} {
					if code != 0 || !strings.Contains(out, want) {
						t.Fatalf("learn: exit %d, want %q in\n%s", code, want, out)
					}
				}
				t.Logf("rote learn:\n%s", out)
			} else {
				code, out := rote(t, dir, append(append(data, "promote", first.runID, "--param", "password="+portal.Password, "--"), server...)...)
				if code != 0 || !strings.Contains(out, "promoted register-vendor v1") {
					t.Fatalf("promote: exit %d\n%s", code, out)
				}
			}
			before := site.State().Vendors

			second := startRecording(t, dir, nil, nil, server...)
			var listedAfter []listedTool
			var refused playbookCall
			var result playbookCall
			tool := measured(t, second, srv.protocol, func(c *rawClient) {
				result = c.playbook("rote_register-vendor", vendorArgs(replayedVendor))
			}, func(c *rawClient) {
				listed := c.tools()
				i := slices.IndexFunc(listed, func(l listedTool) bool { return l.Name == "rote_register-vendor" })
				if i < 0 {
					t.Fatalf("rote_register-vendor is not listed: %s", toolNames(listed))
				}
				var schema struct {
					Properties map[string]struct {
						Type string `json:"type"`
					} `json:"properties"`
					Required []string `json:"required"`
				}
				json.Unmarshal(listed[i].InputSchema, &schema)
				for _, p := range []string{"company", "tax_id", "email", "phone", "street", "city", "password"} {
					if schema.Properties[p].Type != "string" || !slices.Contains(schema.Required, p) {
						t.Errorf("the tool's input schema lacks the required %s: %s", p, listed[i].InputSchema)
					}
				}
				if !strings.Contains(listed[i].Description, "Verifies: text_visible") {
					t.Errorf("the tool's description does not say what it verifies: %s", listed[i].Description)
				}
				refused = c.playbook("rote_register-vendor", map[string]any{"company": "Evil Corp", "nickname": "x", "password": portal.Password})

				// A promotion while the session is open.
				code, doc := rote(t, dir, append(data, "playbooks", "show", "register-vendor", "-o", "yaml")...)
				if code != 0 {
					t.Fatalf("playbooks show: %s", doc)
				}
				file := filepath.Join(dir, "copy.yaml")
				os.WriteFile(file, []byte(strings.Replace(doc, "name: register-vendor", "name: register-vendor-copy", 1)), 0o644)
				if code, out := rote(t, dir, append(data, "playbooks", "import", file)...); code != 0 {
					t.Fatalf("import: %s", out)
				}
				deadline := time.Now().Add(15 * time.Second)
				for !slices.Contains(c.notes, "notifications/tools/list_changed") {
					if time.Now().After(deadline) {
						t.Fatalf("no notifications/tools/list_changed after a promotion; notifications read: %v", c.notes)
					}
					time.Sleep(200 * time.Millisecond)
					c.request("ping", map[string]any{})
				}
				listedAfter = c.tools()
			})

			text := ""
			for _, x := range result.Content {
				text += x.Text
			}
			if result.IsError || result.Structured.Outcome != "success" || len(result.Structured.Verified) == 0 || result.Structured.RunID == "" {
				t.Fatalf("the playbook tool did not verify: %+v\n%s", result, second.stderr)
			}
			registeredOnly(t, site, before, replayedVendor)
			if !refused.IsError || refused.Structured.Reason.Code != "unknown_param" {
				t.Errorf("an undeclared argument was not refused as unknown_param: %+v", refused)
			}
			if !slices.ContainsFunc(listedAfter, func(l listedTool) bool { return l.Name == "rote_register-vendor-copy" }) {
				t.Errorf("the promoted playbook is not listed after list_changed: %s", toolNames(listedAfter))
			}
			if code, out := rote(t, dir, append(data, "runs", "show", result.Structured.RunID)...); code != 0 || !strings.Contains(out, "success") || strings.Contains(out, portal.Password) {
				t.Errorf("the tool's replay run: exit %d\n%s", code, out)
			} else if os.Getenv("ROTE_SHOW_REPLAY") != "" {
				t.Log(out)
			}
			if code, out := rote(t, dir, append(data, "runs", "show", second.runID)...); code != 0 || strings.Contains(out, "Initech") || strings.Contains(out, portal.Password) {
				t.Errorf("the session's recording holds the playbook's traffic: exit %d\n%s", code, out)
			}
			// No run but the flagless session that learned (which was never
			// told of the password) holds the password: not the
			// replay's, not the second session's, and not what rote mcp
			// browser recorded of the calls it was sent.
			_, listed := rote(t, dir, append(data, "runs", "list", "--all", "--json")...)
			var runs []struct {
				RunID string `json:"run_id"`
			}
			if err := json.Unmarshal([]byte(listed), &runs); err != nil || len(runs) < 4 {
				t.Fatalf("runs list: %v\n%s", err, listed)
			}
			for _, r := range runs {
				if r.RunID == first.runID && srv.learn {
					continue
				}
				export := t.TempDir()
				if code, out := rote(t, dir, append(data, "runs", "export", r.RunID, "--dir", export)...); code != 0 {
					t.Fatalf("export %s: %s", r.RunID, out)
				}
				filepath.WalkDir(export, func(path string, e fs.DirEntry, err error) error {
					if b, _ := os.ReadFile(path); err == nil && !e.IsDir() && bytes.Contains(b, []byte(portal.Password)) {
						t.Errorf("run %s holds the password in clear in %s", r.RunID, filepath.Base(path))
					}
					return nil
				})
			}
			t.Logf("%s: result %q", srv.name, text)
			t.Logf("server | way | requests | tools/call | bytes read | o200k tokens read | bytes after the handshake | tokens after the handshake | wall")
			t.Logf("| %s | raw calls | %s |", srv.name, raw)
			t.Logf("| %s | playbook tool | %s |", srv.name, tool)
		})
	}
}

func toolNames(tools []listedTool) string {
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.Name
	}
	return strings.Join(names, ", ")
}
