package tools_test

import (
	"maps"
	"testing"

	"github.com/rote-agent/rote/schema/tools"
)

// TestSecretArgs: an argument that holds a secret is named by the
// secret's name; an empty secret names none.
func TestSecretArgs(t *testing.T) {
	args := map[string]any{"user": "ada", "password": "pin hunter2", "count": 3}
	if got := tools.SecretArgs(args, map[string]string{"pw": "hunter2", "empty": ""}); !maps.Equal(got, map[string]string{"pw": "password"}) {
		t.Errorf("secret args %v", got)
	}
	if got := tools.SecretArgs(args, map[string]string{"other": "swordfish"}); got != nil {
		t.Errorf("no secret in the arguments named %v", got)
	}
}
