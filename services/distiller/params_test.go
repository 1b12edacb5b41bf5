package distiller

import (
	"testing"

	"github.com/rote-agent/rote/schema"
)

// TestParametersAreWholeTokens: a parameter value is templated where it
// stands as a whole token (a path segment, a query value, a word) and
// never inside a constant: with username=admin, /wp-admin/ stays, and so
// does a host name; before a file name's extension it is the name.
func TestParametersAreWholeTokens(t *testing.T) {
	b := newBinder(schema.TaskSpec{Params: map[string]string{"username": "admin", "company": "Initech"}})
	for in, want := range map[string]string{
		"/wp-admin/users.php?user=admin&x=1":  "/wp-admin/users.php?user={{username}}&x=1",
		"/wp-admin/":                          "/wp-admin/",
		"/users/admin":                        "/users/{{username}}",
		"/users/admin.json":                   "/users/{{username}}.json",
		"notes/admin.md at admin.example.org": "notes/{{username}}.md at admin.example.org",
		"https://admin.example/admin.html":    "https://admin.example/{{username}}.html",
		"admin.example.com":                   "admin.example.com",
		"Welcome, admin!":                     "Welcome, {{username}}!",
		"Hello admin.":                        "Hello {{username}}.",
		"administrator sysadmin admin_1":      "administrator sysadmin admin_1",
		"admin@corp.example":                  "admin@corp.example",
		"Initech's invoice for admin":         "{{company}}'s invoice for {{username}}",
		"Vendor Initech registered":           "Vendor {{company}} registered",
		"Initech-Ltd":                         "Initech-Ltd",
		"Ünadmin admin":                       "Ünadmin {{username}}",
	} {
		if got := b.within(in); got != want {
			t.Errorf("within(%q) = %q, want %q", in, got, want)
		}
	}
}
