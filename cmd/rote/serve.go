package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
)

// role is one of the six services; issue says where an unbuilt one lands.
type role struct {
	name  string
	issue string // the issue that builds it, while it is not built
}

// roles lists every service role. None runs yet: each arrives with the
// issue named here, and until then `rote serve` refuses it.
var roles = []role{
	{"perception", "issue 4"},
	{"planner", "issue 6"},
	{"actuator", "issues 4 and 5"},
	{"recorder", "issue 3"},
	{"distiller", "issue 7"},
	{"matcher", "issue 7"},
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
				if roleFlag == "all" || roleFlag == r.name {
					missing = append(missing, fmt.Sprintf("%s (%s)", r.name, r.issue))
				}
			}
			return &exitError{code: exitNotBuilt, err: fmt.Errorf("role not built yet: %s", strings.Join(missing, ", "))}
		},
	}
	cmd.Flags().StringVar(&roleFlag, "role", "all", "which service to run: all, perception, planner, actuator, recorder, distiller, matcher")
	return cmd
}
