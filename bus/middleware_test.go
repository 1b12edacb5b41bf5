package bus_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/schema"
)

type request struct{ RunID string }
type reply struct{}

// TestLogFailures: a failure of the service's own is logged at error
// level with the request's run; a refusal the caller caused only at
// debug; a success not at all. The error reaches the caller either way.
func TestLogFailures(t *testing.T) {
	var out bytes.Buffer
	log := slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: slog.LevelDebug}))
	for _, c := range []struct {
		err  error
		want string
	}{
		{errors.New("disk full"), `level=ERROR msg="request failed" err="disk full"`},
		{schema.Errorf(schema.CodeInternal, "boom"), `level=ERROR msg="request failed" err="internal: boom"`},
		{schema.Errorf(schema.CodeNotFound, "no such step"), `level=DEBUG msg="request refused" err="not_found: no such step"`},
		{nil, ""},
	} {
		out.Reset()
		h := bus.LogFailures[request, reply](log)(func(context.Context, *request) (*reply, error) { return &reply{}, c.err })
		if _, err := h(context.Background(), &request{RunID: "R7"}); err != c.err {
			t.Fatalf("the error changed on its way: %v, want %v", err, c.err)
		}
		got := out.String()
		if c.want == "" {
			if got != "" {
				t.Fatalf("a success was logged: %s", got)
			}
			continue
		}
		if !strings.Contains(got, c.want) || !strings.Contains(got, "run=R7") {
			t.Fatalf("logged %q, want %q with run=R7", got, c.want)
		}
	}
}

// TestInternalErrorsAreLoggedWhereTheyHappen: over a real server, an
// endpoint's internal failure reaches the caller as CodeInternal and is
// logged by the serving process.
func TestInternalErrorsAreLoggedWhereTheyHappen(t *testing.T) {
	var out bytes.Buffer
	b, err := bus.Open(ctx(t), bus.Config{DataDir: t.TempDir(), Log: slog.New(slog.NewTextHandler(&syncWriter{w: &out}, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	svc, err := b.RPC().NewService("failing", "0.0.1", "fails")
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Stop()
	if err := bus.AddEndpoint(ctx(t), svc, "fail", "test.fail", true, func(context.Context, *request) (*reply, error) {
		return nil, errors.New("the disk is full")
	}); err != nil {
		t.Fatal(err)
	}
	err = b.RPC().Call(ctx(t), "test.fail", &request{RunID: "R9"}, &reply{})
	if !errors.Is(err, schema.ErrInternal) {
		t.Fatalf("the caller got %v", err)
	}
	got := out.String()
	for _, want := range []string{"level=ERROR", "service=failing", "endpoint=fail", "run=R9", "the disk is full"} {
		if !strings.Contains(got, want) {
			t.Fatalf("the service logged %q, want %q in it", got, want)
		}
	}
}

// syncWriter serializes writes to w, for a log read while services write.
type syncWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}
