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
	// Two arguments hold it: the one that is the secret is named, on
	// every call alike.
	twice := map[string]any{"a": "note hunter2", "b": "hunter2", "c": "hunter2 again"}
	for range 20 {
		if got := tools.SecretArgs(twice, map[string]string{"pw": "hunter2"}); got["pw"] != "b" {
			t.Fatalf("secret args %v, want pw in b", got)
		}
	}
}
