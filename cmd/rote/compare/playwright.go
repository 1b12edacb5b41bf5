package compare

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// playwrightSide is an @playwright/mcp server over stdio, signed in.
type playwrightSide struct {
	cs *mcp.ClientSession
}

func openPlaywright(ctx context.Context, command []string, site Site) (*playwrightSide, error) {
	if len(command) == 0 {
		return nil, errors.New("no command to start @playwright/mcp")
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "rote-compare", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: exec.CommandContext(ctx, command[0], command[1:]...)}, nil)
	if err != nil {
		return nil, err
	}
	p := &playwrightSide{cs: cs}
	if in := site.SignIn; in != nil {
		for _, c := range []struct {
			tool string
			args map[string]any
		}{
			{"browser_navigate", map[string]any{"url": site.Base + in.Path}},
			{"browser_type", map[string]any{"element": in.UserName, "target": in.UserField, "text": in.Username}},
			{"browser_type", map[string]any{"element": in.PassName, "target": in.PassField, "text": in.Password}},
			{"browser_click", map[string]any{"element": in.Submit, "target": in.Button}},
		} {
			if _, err := p.call(ctx, c.tool, c.args); err != nil {
				p.close()
				return nil, fmt.Errorf("sign in: %w", err)
			}
		}
	}
	return p, nil
}

// call calls a tool that must succeed and returns its text.
func (p *playwrightSide) call(ctx context.Context, tool string, args map[string]any) (string, error) {
	r, err := p.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return "", err
	}
	var text strings.Builder
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	if r.IsError {
		return "", fmt.Errorf("%s: %s", tool, text.String())
	}
	return text.String(), nil
}

// read loads url and takes its snapshot, timing each. The snapshot is
// the whole text the tool answers with: what a client reads.
func (p *playwrightSide) read(ctx context.Context, url string) (string, time.Duration, time.Duration, error) {
	start := time.Now()
	if _, err := p.call(ctx, "browser_navigate", map[string]any{"url": url}); err != nil {
		return "", 0, 0, err
	}
	nav := time.Since(start)
	start = time.Now()
	snap, err := p.call(ctx, "browser_snapshot", map[string]any{})
	return snap, nav, time.Since(start), err
}

func (p *playwrightSide) close() { p.cs.Close() }
