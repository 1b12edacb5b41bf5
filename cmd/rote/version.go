package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/rote-agent/rote/cmd/rote/cli"
	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=v1.2.3".
var version = ""

func newVersionCommand(app *cli.App) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version of rote and of what it embeds",
		Args:  cli.Args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprintf(app.Stdout, "rote %s (%s, nats-server %s)\n", buildVersion(), runtime.Version(), server.VERSION)
			return nil
		},
	}
}

// buildVersion returns the linked version, else the module version and VCS
// revision the binary was built from.
func buildVersion() string {
	if version != "" {
		return version
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := info.Main.Version
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			v += "+" + s.Value[:12]
		}
	}
	return v
}
