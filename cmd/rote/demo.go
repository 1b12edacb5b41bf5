package main

import (
	"errors"

	"github.com/spf13/cobra"
)

func newDemoCommand(app *App) *cobra.Command {
	return &cobra.Command{
		Use:   "demo",
		Short: "Run the whole loop on embedded defaults: cold run, distill, warm replay, drift (not built yet)",
		Args:  args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return &exitError{code: exitNotBuilt, err: errors.New("demo is not built yet: it needs the learning loop, the distiller and the matcher (issue 7); meanwhile rote run --suite-task B2 runs a task cold, and with --playbook replays one")}
		},
	}
}
