package lab

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/rote-agent/rote/bench/widgets"
	"github.com/rote-agent/rote/chromium"
	"github.com/rote-agent/rote/cmd/rote/cli"
	"github.com/rote-agent/rote/cmd/rote/compare"
	"github.com/rote-agent/rote/cmd/rote/view"
	"github.com/spf13/cobra"
)

// SuiteWidgets is the widget suite (bench/widgets): task kinds learned
// from one demonstration and replayed on new instances, through rote mcp
// browser and @playwright/mcp.
const SuiteWidgets = "widgets"

// widgetFlags are the widget suite's own flags.
type widgetFlags struct {
	playwright string
	kinds      []string
	seeds      int
	servers    []string
}

// runWidgets runs the widget suite with this very binary as rote, and
// writes cfg.Out's report.md and summary.json.
func runWidgets(cmd *cobra.Command, app *cli.App, cfg Config, wf widgetFlags, asJSON bool) error {
	if wf.seeds < 1 || wf.seeds > 100 {
		return cli.Usagef("--seeds must be 1 to 100")
	}
	for _, k := range wf.kinds {
		if _, ok := widgets.Lookup(k); !ok {
			return cli.Usagef("--kinds: no kind %q", k)
		}
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	wcfg := widgets.Config{Rote: self, Kinds: wf.kinds, Learn: 100, Progress: app.Stderr}
	for i := range wf.seeds {
		wcfg.Seeds = append(wcfg.Seeds, 101+i)
	}
	for _, name := range wf.servers {
		switch name {
		case "rote":
			wcfg.Servers = append(wcfg.Servers, func(store string) widgets.Server { return widgets.RoteBrowser(self, store) })
		case "playwright":
			cliJS, err := compare.PlaywrightCLI(wf.playwright)
			if err != nil {
				return err
			}
			wcfg.Servers = append(wcfg.Servers, func(store string) widgets.Server {
				tmp := filepath.Join(store, "pw") // what it writes, and its Chromium's singleton socket
				os.MkdirAll(tmp, 0o700)
				return widgets.PlaywrightMCP(cliJS, chromium.Path, tmp)
			})
		default:
			return cli.Usagef("--servers: %q is neither rote nor playwright", name)
		}
	}
	results, err := widgets.Run(cmd.Context(), wcfg)
	if err != nil {
		return err
	}
	s := widgets.Summarize("rote "+strings.Join(os.Args[1:], " "), wcfg.Learn, wcfg.Seeds, results)
	if err := os.MkdirAll(cfg.Out, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(cfg.Out, "report.md"), []byte(s.Markdown()), 0o644); err != nil {
		return err
	}
	js, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(cfg.Out, "summary.json"), append(js, '\n'), 0o644); err != nil {
		return err
	}
	if asJSON {
		if err := view.JSON(app.Stdout, s); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(app.Stdout, "suite: widgets (scripted demonstrations, no model)\nwrote %s/report.md and summary.json\n%s\n", cfg.Out, s.Gate)
	}
	if !s.Pass {
		return fmt.Errorf("a gate failed: see %s/report.md", cfg.Out)
	}
	return nil
}
