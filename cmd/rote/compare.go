package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/chromium"
	"github.com/rote-agent/rote/cmd/rote/cli"
	"github.com/rote-agent/rote/cmd/rote/compare"
	"github.com/rote-agent/rote/cmd/rote/node"
	"github.com/rote-agent/rote/portal"
	"github.com/spf13/cobra"
)

func newCompareCommand(app *cli.App) *cobra.Command {
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
		Args: cli.Args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			if out != "" {
				// Where the report goes is checked before a minute of work.
				if err := os.MkdirAll(out, 0o755); err != nil {
					return cli.Usagef("--out %s: %v", out, err)
				}
			}
			playwrightCLI, err := compare.PlaywrightCLI(playwright)
			if err != nil {
				return cli.Usagef("%v", err)
			}
			tmp, err := os.MkdirTemp("", "rote-compare-pw-")
			if err != nil {
				return err
			}
			defer os.RemoveAll(tmp)
			cfg := compare.Config{Reps: reps, Progress: func(s string) { fmt.Fprintln(app.Stderr, s) },
				Playwright: []string{"env", "TMPDIR=" + tmp, "node", playwrightCLI, "--headless", "--no-sandbox", "--isolated",
					"--executable-path", chromium.Path, "--output-dir", tmp}}
			if !noPortal {
				base, stop, err := compare.ServePortal(ctx)
				if err != nil {
					return err
				}
				defer stop()
				cfg.Sites = append(cfg.Sites, compare.PortalSite(base, portal.Username, portal.Password))
			}
			if wordpress != "" {
				cfg.Sites = append(cfg.Sites, compare.WordPressSite(strings.TrimRight(wordpress, "/"), wpUser, wpPassword))
			}
			if len(cfg.Sites) == 0 {
				return cli.Usagef("nothing to compare: --no-portal and no --wordpress")
			}
			var rows []compare.Row
			if err := node.CheckBrowser(app.Browser); err != nil {
				return cli.Usagef("%v", err)
			}
			if err := node.WithBrowsers(ctx, app.Browser, "rote-compare", app.Log, func(browsers *bus.Browsers) (err error) {
				rows, err = compare.Compare(ctx, browsers, cfg)
				return err
			}); err != nil {
				return err
			}
			command := "rote " + strings.Join(os.Args[1:], " ")
			if out == "" {
				return compare.WriteMarkdown(app.Stdout, command, rows, reps)
			}
			s, err := compare.WriteFiles(out, command, rows, reps)
			if err != nil {
				return err
			}
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
