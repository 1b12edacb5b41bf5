package schema

import (
	"maps"
	"testing"
)

func TestSecretsFromEnv(t *testing.T) {
	env := []string{"ROTE_SECRET_PASSWORD=hunter2", "ROTE_SECRET_API_TOKEN=t=1", "ROTE_SECRET_KEY=00112233", "ROTE_SECRET_=x", "ROTE_SECRET_EMPTY=", "PATH=/bin", "ROTE_SECRETX=y"}
	want := map[string]string{"password": "hunter2", "api_token": "t=1"}
	if got := SecretsFromEnv(env); !maps.Equal(got, want) {
		t.Fatalf("%v, want %v", got, want)
	}
	if got := SecretsFromEnv(SecretEnviron(map[string]string{"pass-word": "s3"})); got["pass_word"] != "s3" {
		t.Fatalf("round trip: %v", got)
	}
}
