package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
)

// role is one of the six services. issue names where an unbuilt one
// lands; perSession says the role runs per session rather than as a
// server.
type role struct {
	name       string
	issue      string
	perSession string
}

// roles lists every service role. No server role runs yet: each arrives
// with the issue named here, and until then `rote serve` refuses it.
var roles = []role{
	{name: "perception", issue: "issue 4"},
	{name: "planner", issue: "issue 6"},
	{name: "actuator", issue: "issues 4 and 5"},
	{name: "recorder", perSession: "the recorder runs once per MCP session, in front of the server: rote record -- COMMAND"},
	{name: "distiller", issue: "issue 7"},
	{name: "matcher", issue: "issue 7"},
}

func newServeCommand(app *App) *cobra.Command {
	var roleFlag string
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run Rote's services: all in one process, or one role against --nats",
		Args:  args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			var names []string
			for _, r := range roles {
				names = append(names, r.name)
			}
			if roleFlag != "all" && !slices.Contains(names, roleFlag) {
				return usageError("unknown role %q: want all, %s", roleFlag, strings.Join(names, ", "))
			}
			var missing []string
			for _, r := range roles {
				switch {
				case roleFlag == r.name && r.perSession != "":
					return usageError("%s", r.perSession)
				case r.perSession != "":
				case roleFlag == "all" || roleFlag == r.name:
					missing = append(missing, fmt.Sprintf("%s (%s)", r.name, r.issue))
				}
			}
			return &exitError{code: exitNotBuilt, err: fmt.Errorf("role not built yet: %s", strings.Join(missing, ", "))}
		},
	}
	cmd.Flags().StringVar(&roleFlag, "role", "all", "which service to run: all, perception, planner, actuator, recorder, distiller, matcher")
	return cmd
}
