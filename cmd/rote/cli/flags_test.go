package cli

import (
	"errors"
	"testing"
)

// TestTaskValues: --param and --secret parse name=value, take a name
// alone from $ROTE_SECRET_NAME, and refuse a name given as both or twice.
func TestTaskValues(t *testing.T) {
	t.Setenv("ROTE_SECRET_PASSWORD", "hunter2")
	params, secrets, err := TaskValues([]string{"user=ann", "note=a=b"}, []string{"password"})
	if err != nil || params["user"] != "ann" || params["note"] != "a=b" || secrets["password"] != "hunter2" {
		t.Fatalf("got %v %v %v", params, secrets, err)
	}
	for _, c := range []struct{ params, secrets []string }{
		{[]string{"user=ann"}, []string{"user=x"}},
		{[]string{"user=ann", "user=bob"}, nil},
		{[]string{"=ann"}, nil},
		{nil, []string{"token"}},
	} {
		var exit *ExitError
		if _, _, err := TaskValues(c.params, c.secrets); !errors.As(err, &exit) || exit.Code != ExitUsage {
			t.Errorf("%v %v: %v, want a usage error", c.params, c.secrets, err)
		}
	}
}
