package widgets

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// client speaks MCP's JSON-RPC over a process's pipes, as a plain client
// does: initialize, tools/list, then tools/call.
type client struct {
	in  io.Writer
	out *bufio.Reader
	id  int
}

func newClient(in io.Writer, out io.Reader) (*client, error) {
	c := &client{in: in, out: bufio.NewReaderSize(out, 1<<20)}
	if _, err := c.request("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "rote-widgets", "version": "1"}}); err != nil {
		return nil, err
	}
	if err := c.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"}); err != nil {
		return nil, err
	}
	if _, err := c.request("tools/list", map[string]any{}); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *client) send(msg map[string]any) error {
	b, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	_, err = c.in.Write(append(b, '\n'))
	return err
}

// request sends one request and returns its result, skipping what else
// the server sends meanwhile.
func (c *client) request(method string, params map[string]any) (json.RawMessage, error) {
	c.id++
	if err := c.send(map[string]any{"jsonrpc": "2.0", "id": c.id, "method": method, "params": params}); err != nil {
		return nil, err
	}
	for {
		line, err := c.out.ReadBytes('\n')
		if err != nil {
			return nil, fmt.Errorf("%s: %w", method, err)
		}
		var m struct {
			ID     *int            `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if json.Unmarshal(line, &m) != nil || m.ID == nil || *m.ID != c.id {
			continue
		}
		if m.Error != nil {
			return nil, fmt.Errorf("%s: %s", method, m.Error)
		}
		return m.Result, nil
	}
}

// call calls a tool and returns its text; a tool error is an error.
func (c *client) call(tool string, args map[string]any) (string, error) {
	res, err := c.request("tools/call", map[string]any{"name": tool, "arguments": args})
	if err != nil {
		return "", err
	}
	var r struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		return "", fmt.Errorf("%s: %w", tool, err)
	}
	var b strings.Builder
	for _, x := range r.Content {
		b.WriteString(x.Text)
	}
	if r.IsError {
		return "", fmt.Errorf("%s %v: %.500s", tool, args, b.String())
	}
	return b.String(), nil
}
