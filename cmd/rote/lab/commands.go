package lab

import (
	"github.com/rote-agent/rote/cmd/rote/cli"
	"github.com/spf13/cobra"
)

// Commands are the commands that exist only with the suites: rote demo,
// rote bench and rote model.
func Commands(app *cli.App) []*cobra.Command {
	return []*cobra.Command{newModelCommand(app), newDemoCommand(app), newBenchCommand(app)}
}
