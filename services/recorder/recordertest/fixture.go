// Package recordertest provides a real MCP server for tests of the
// recorder and of anything that drives MCP: a go-sdk server over stdio
// with a handful of deterministic tools. A test binary becomes that server
// when it is started with ROTE_FIXTURE_MCP=1 (see ServeIfAsked), so tests
// spawn it as a separate process exactly as a client spawns any server.
package recordertest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Environment variables that make a test binary serve the fixture.
const (
	EnvServe    = "ROTE_FIXTURE_MCP"       // "1": serve on stdio instead of running tests
	EnvStdinLog = "ROTE_FIXTURE_STDIN_LOG" // a file that receives every byte the server reads
)

// ServeIfAsked serves the fixture on stdin/stdout and exits when EnvServe
// is "1"; otherwise it returns at once. Call it first in TestMain.
func ServeIfAsked() {
	if os.Getenv(EnvServe) != "1" {
		return
	}
	var in io.ReadCloser = os.Stdin
	if path := os.Getenv(EnvStdinLog); path != "" {
		f, err := os.Create(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, "fixture:", err)
			os.Exit(2)
		}
		in = struct {
			io.Reader
			io.Closer
		}{io.TeeReader(os.Stdin, f), os.Stdin}
	}
	if err := Serve(context.Background(), in, os.Stdout); err != nil && err != io.EOF {
		fmt.Fprintln(os.Stderr, "fixture:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// Command returns the command line that starts this test binary as the
// fixture server, and the environment entries it needs.
func Command() ([]string, []string) {
	return []string{os.Args[0]}, []string{EnvServe + "=1"}
}

// Serve runs the fixture server over in and out until in ends. Its tools:
//
//	echo  {text}              returns text
//	big   {bytes}             returns a text of that many bytes
//	slow  {ms, text}          waits ms milliseconds, then returns text
//	fail  {}                  returns a result with isError set
//	login {user, password}    returns "welcome <user>"
//
// and the record tools of records.go.
func Serve(ctx context.Context, in io.ReadCloser, out io.WriteCloser) error {
	s := mcp.NewServer(&mcp.Implementation{Name: "rote-fixture", Version: "1.0.0"}, nil)
	text := func(s string) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
	}
	add := func(name, schema string, h func(args map[string]any) *mcp.CallToolResult) {
		s.AddTool(&mcp.Tool{Name: name, Description: "fixture tool " + name, InputSchema: json.RawMessage(schema)},
			func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				var args map[string]any
				if len(req.Params.Arguments) > 0 {
					if err := json.Unmarshal(req.Params.Arguments, &args); err != nil {
						return nil, err
					}
				}
				return h(args), nil
			})
	}
	add("echo", `{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`, func(a map[string]any) *mcp.CallToolResult {
		return text(fmt.Sprint(a["text"]))
	})
	add("big", `{"type":"object","properties":{"bytes":{"type":"integer"}},"required":["bytes"]}`, func(a map[string]any) *mcp.CallToolResult {
		n, _ := a["bytes"].(float64)
		return text(strings.Repeat("x", int(n)))
	})
	add("slow", `{"type":"object","properties":{"ms":{"type":"integer"},"text":{"type":"string"}}}`, func(a map[string]any) *mcp.CallToolResult {
		ms, _ := a["ms"].(float64)
		time.Sleep(time.Duration(ms) * time.Millisecond)
		return text(fmt.Sprint(a["text"]))
	})
	add("fail", `{"type":"object"}`, func(map[string]any) *mcp.CallToolResult {
		r := text("the fixture failed on purpose")
		r.IsError = true
		return r
	})
	add("login", `{"type":"object","properties":{"user":{"type":"string"},"password":{"type":"string","format":"password"}},"required":["user","password"]}`,
		func(a map[string]any) *mcp.CallToolResult { return text(fmt.Sprintf("welcome %v", a["user"])) })
	addRecordTools(s)
	return s.Run(ctx, &mcp.IOTransport{Reader: in, Writer: out, MaxLineLength: -1})
}
