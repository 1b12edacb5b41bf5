package node

import (
	"fmt"
	"slices"
	"strings"
)

// serveRoles are the roles --role names: every role for "all".
// ServeRoles are the roles `rote serve --role` names: all of them, or
// one.
func ServeRoles(role string) ([]string, error) {
	switch {
	case role == "all":
		return Roles, nil
	case role == "recorder":
		return nil, fmt.Errorf("the recorder runs once per MCP session, in front of the server: rote record -- COMMAND")
	case slices.Contains(Roles, role):
		return []string{role}, nil
	}
	return nil, fmt.Errorf("unknown role %q: want all, %s", role, strings.Join(Roles, ", "))
}
