package bus

import (
	"context"
	"log/slog"
	"reflect"
	"time"

	"github.com/rote-agent/rote/schema"
)

// Middleware wraps a Handler with behaviour every endpoint shares.
type Middleware[Req, Rep any] func(Handler[Req, Rep]) Handler[Req, Rep]

// LogFailures logs, at error level, each request the handler fails with
// an internal error (CodeInternal, or any error that is no
// *schema.Error): those reach the caller only as a message, and an
// operator needs to see them where the service runs. Refusals the caller
// caused (an invalid request, a step that does not fit) are the caller's
// to report and are logged at debug level. The request's run id, when it
// has one, is an attribute.
func LogFailures[Req, Rep any](log *slog.Logger) Middleware[Req, Rep] {
	return func(h Handler[Req, Rep]) Handler[Req, Rep] {
		return func(ctx context.Context, req *Req) (*Rep, error) {
			began := time.Now()
			rep, err := h(ctx, req)
			if err == nil {
				return rep, nil
			}
			attrs := []any{"err", err, "took", time.Since(began)}
			if run := runOf(req); run != "" {
				attrs = append(attrs, "run", run)
			}
			if schema.AsError(err).Code == schema.CodeInternal {
				log.Error("request failed", attrs...)
			} else {
				log.Debug("request refused", attrs...)
			}
			return rep, err
		}
	}
}

// runOf is the RunID field of a request, if it has one.
func runOf(req any) string {
	v := reflect.ValueOf(req)
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return ""
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return ""
	}
	if f := v.FieldByName("RunID"); f.IsValid() && f.Kind() == reflect.String {
		return f.String()
	}
	return ""
}
