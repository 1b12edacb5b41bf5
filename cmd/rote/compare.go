package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/chromium"
	"github.com/rote-agent/rote/cmd/rote/perceive"
	"github.com/rote-agent/rote/portal"
	"github.com/spf13/cobra"
)

func newCompareCommand(app *App) *cobra.Command {
	var (
		out, wordpress, wpUser, wpPassword, playwright string
		reps                                           int
		noPortal                                       bool
	)
	cmd := &cobra.Command{
		Use:   "compare [--wordpress URL] [--playwright-mcp CLI] [--reps N] [--out DIR]",
		Short: "Compare Rote's perception with @playwright/mcp's snapshot, page by page",
		Long: `compare loads the same pages in Rote's browser and through @playwright/mcp
(over stdio, on the same Chromium), both signed in, and measures for each page:
DOM elements, Rote's nodes, the tokens (o200k) of Rote's render and of the
snapshot a client reads, the time to load the page and to read it on each
side (medians over --reps), and the controls one shows and the other does
not. The fixture portal is served on loopback (its release board with and
without a frame from its other loopback origin); --wordpress adds a WordPress
admin (scripts/wordpress serves one on http://127.0.0.1:8090). --out gets
perception.md and perception.json.`,
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			cli, err := playwrightCLI(playwright)
			if err != nil {
				return usageError("%v", err)
			}
			tmp, err := os.MkdirTemp("", "rote-compare-pw-")
			if err != nil {
				return err
			}
			defer os.RemoveAll(tmp)
			cfg := perceive.Config{Reps: reps, Progress: func(s string) { fmt.Fprintln(app.Stderr, s) },
				Playwright: []string{"env", "TMPDIR=" + tmp, "node", cli, "--headless", "--no-sandbox", "--isolated",
					"--executable-path", chromium.Path, "--output-dir", tmp}}
			if !noPortal {
				base, stop, err := servePortal(ctx)
				if err != nil {
					return err
				}
				defer stop()
				cfg.Sites = append(cfg.Sites, perceive.PortalSite(base, portal.Username, portal.Password))
			}
			if wordpress != "" {
				cfg.Sites = append(cfg.Sites, perceive.WordPressSite(strings.TrimRight(wordpress, "/"), wpUser, wpPassword))
			}
			if len(cfg.Sites) == 0 {
				return usageError("nothing to compare: --no-portal and no --wordpress")
			}
			var rows []perceive.Row
			if err := withBrowsers(ctx, app, "rote-compare", func(browsers *bus.Browsers) (err error) {
				rows, err = perceive.Compare(ctx, browsers, cfg)
				return err
			}); err != nil {
				return err
			}
			command := "rote " + strings.Join(os.Args[1:], " ")
			if out == "" {
				return perceive.WriteMarkdown(app.Stdout, command, rows, reps)
			}
			if err := os.MkdirAll(out, 0o755); err != nil {
				return err
			}
			f, err := os.Create(filepath.Join(out, "perception.md"))
			if err != nil {
				return err
			}
			defer f.Close()
			if err := perceive.WriteMarkdown(f, command, rows, reps); err != nil {
				return err
			}
			data, err := json.MarshalIndent(struct {
				Command string           `json:"command"`
				Summary perceive.Summary `json:"summary"`
				Rows    []perceive.Row   `json:"rows"`
			}{command, perceive.Summarize(rows), rows}, "", "  ")
			if err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(out, "perception.json"), data, 0o644); err != nil {
				return err
			}
			s := perceive.Summarize(rows)
			fmt.Fprintf(app.Stdout, "wrote %s/perception.md and perception.json: %d pages, Rote %.1fx smaller on the median page, %.1fx in total; pages where Rote shows a control fewer: %d; navigate + observe %.2fx @playwright/mcp's on the median page, %.2fx on the slowest (%s)\n",
				out, s.Pages, s.MedianRatio, s.TotalRatio, s.MissingInRote, s.MedianTimeRatio, s.SlowestTimeRatio, s.SlowestPage)
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "write perception.md and perception.json here (default: the table on stdout)")
	cmd.Flags().StringVar(&wordpress, "wordpress", "", "also compare a WordPress admin at this base URL")
	cmd.Flags().StringVar(&wpUser, "wp-user", "admin", "WordPress user (as scripts/wordpress seeds it)")
	cmd.Flags().StringVar(&wpPassword, "wp-password", "rote-admin-password", "WordPress password (as scripts/wordpress seeds it)")
	cmd.Flags().StringVar(&playwright, "playwright-mcp", "", "@playwright/mcp's cli.js (default: e2e/node/node_modules/@playwright/mcp/cli.js, as scripts/setup installs it)")
	cmd.Flags().IntVar(&reps, "reps", 3, "times each page is loaded and read on each side")
	cmd.Flags().BoolVar(&noPortal, "no-portal", false, "leave the fixture portal out")
	return cmd
}

// playwrightCLI finds @playwright/mcp's cli.js.
func playwrightCLI(given string) (string, error) {
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

// servePortal serves a fresh fixture portal on 127.0.0.1 (and so on
// localhost, its other origin) until stop.
func servePortal(ctx context.Context) (base string, stop func(), err error) {
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
	go func() { done <- serveUntilDone(ctx, ln, p) }()
	return "http://" + ln.Addr().String(), func() {
		cancel()
		if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
			fmt.Fprintln(os.Stderr, "rote compare: the portal:", err)
		}
	}, nil
}
