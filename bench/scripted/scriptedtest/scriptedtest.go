// Package scriptedtest starts the offline scripted model for a test.
package scriptedtest

import (
	"net/http/httptest"
	"testing"

	"github.com/rote-agent/rote/bench/scripted"
)

// Start serves the scripted model with oracle on loopback until the test
// ends, and returns its OpenAI base URL (ending in /v1) and the server,
// whose FailNext injects failures.
func Start(t testing.TB, oracle scripted.Oracle) (string, *scripted.Server) {
	t.Helper()
	srv := scripted.NewServer(oracle)
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	return hs.URL + "/v1", srv
}
