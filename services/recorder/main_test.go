package recorder

import (
	"os"
	"testing"

	"github.com/rote-agent/rote/services/recorder/recordertest"
)

func TestMain(m *testing.M) {
	recordertest.ServeIfAsked() // the test binary doubles as the fixture MCP server
	os.Exit(m.Run())
}
