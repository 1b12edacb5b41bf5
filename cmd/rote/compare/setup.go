package compare

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"

	"github.com/rote-agent/rote/cmd/rote/node"
	"github.com/rote-agent/rote/cmd/rote/safefile"
	"github.com/rote-agent/rote/portal"
)

// playwrightCLI finds @playwright/mcp's cli.js.
// PlaywrightCLI is the path of @playwright/mcp's cli.js: given, or where
// scripts/setup installs it.
func PlaywrightCLI(given string) (string, error) {
	path := given
	if path == "" {
		path = filepath.Join("e2e", "node", "node_modules", "@playwright", "mcp", "cli.js")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(abs); err != nil {
		return "", fmt.Errorf("@playwright/mcp is not at %s (run scripts/setup, or give --playwright-mcp): %w", abs, err)
	}
	return abs, nil
}

// ServePortal serves a fresh fixture portal on 127.0.0.1 (and so on
// localhost, its other origin) until stop.
func ServePortal(ctx context.Context) (base string, stop func(), err error) {
	p, err := portal.New(portal.Config{})
	if err != nil {
		return "", nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- node.ServeUntilDone(ctx, ln, p) }()
	return "http://" + ln.Addr().String(), func() {
		cancel()
		if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
			fmt.Fprintln(os.Stderr, "rote compare: the portal:", err)
		}
	}, nil
}

// WriteFiles writes perception.md and perception.json into dir, each
// replacing what was there (never through a link), and returns the
// summary.
func WriteFiles(dir, command string, rows []Row, reps int) (Summary, error) {
	s := Summarize(rows)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return s, err
	}
	var md bytes.Buffer
	if err := WriteMarkdown(&md, command, rows, reps); err != nil {
		return s, err
	}
	if err := safefile.Write(filepath.Join(dir, "perception.md"), md.Bytes(), 0o644); err != nil {
		return s, err
	}
	data, err := json.MarshalIndent(struct {
		Command string  `json:"command"`
		Summary Summary `json:"summary"`
		Rows    []Row   `json:"rows"`
	}{command, s, rows}, "", "  ")
	if err != nil {
		return s, err
	}
	return s, safefile.Write(filepath.Join(dir, "perception.json"), data, 0o644)
}
