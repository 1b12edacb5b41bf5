package schema

import (
	"regexp"
	"strconv"
	"strings"
)

// Selector picks a page node for an expect assertion: either a stable
// element id (`k3f9q2`) or a role and exact accessible name
// (`button "Save draft"`, the name quoted as a Go string).
type Selector struct {
	ID   string
	Role string
	Name string
}

var (
	idPattern   = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)
	rolePattern = regexp.MustCompile(`^[a-z][a-z0-9_-]*$`)
)

// ParseSelector parses s. A malformed selector is an *Error with
// CodeInvalid.
func ParseSelector(s string) (Selector, error) {
	role, quoted, found := strings.Cut(s, " ")
	if !found {
		if !idPattern.MatchString(s) {
			return Selector{}, Errorf(CodeInvalid, "selector %q: want an element id or role \"name\"", s)
		}
		return Selector{ID: s}, nil
	}
	name, err := strconv.Unquote(strings.TrimSpace(quoted))
	if err != nil || !rolePattern.MatchString(role) || !strings.HasPrefix(strings.TrimSpace(quoted), `"`) {
		return Selector{}, Errorf(CodeInvalid, "selector %q: want role \"name\" with the name in double quotes", s)
	}
	return Selector{Role: role, Name: name}, nil
}

// Matches reports whether n is the node s selects. Names compare without
// regard to case, since a stylesheet's text-transform changes the case of
// the names browsers compute.
func (s Selector) Matches(n WorldNode) bool {
	if s.ID != "" {
		return n.ID == s.ID
	}
	return n.Role == s.Role && strings.EqualFold(n.Name, s.Name)
}

// String returns the selector in the syntax ParseSelector reads.
func (s Selector) String() string {
	if s.ID != "" {
		return s.ID
	}
	return s.Role + " " + strconv.Quote(s.Name)
}
