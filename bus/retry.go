package bus

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// attempt bounds one try of a publish or of opening a read: a stream
// whose leader is gone answers nothing, and a new leader is usually
// elected within it.
const attempt = 2 * time.Second

// patience is how long something a failover may interrupt keeps being
// tried (Config.PublishPatience); negative is not at all.
type patience time.Duration

// retry runs try, each time bounded by attempt, until it succeeds, fails
// for good, or patience or ctx runs out.
func (p patience) retry(ctx context.Context, try func(context.Context) error) error {
	b := p.backoff()
	for {
		actx, cancel := context.WithTimeout(ctx, attempt)
		err := try(actx)
		cancel()
		if err == nil {
			return nil
		}
		if err = b.again(ctx, err); err != nil {
			return err
		}
	}
}

// backoff paces the tries of something a failover may interrupt: after a
// transient failure it waits 50 ms, doubling up to 1 s, until patience
// runs out.
type backoff struct {
	giveUp time.Time
	wait   time.Duration
}

func (p patience) backoff() *backoff {
	return &backoff{giveUp: time.Now().Add(time.Duration(p)), wait: 50 * time.Millisecond}
}

// again waits before another try after err and returns nil, or returns
// the error to give up with: err itself when it is not transient or
// patience is spent, ctx's when ctx ends.
func (b *backoff) again(ctx context.Context, err error) error {
	if ctx.Err() != nil || !transient(err) || time.Now().Add(b.wait).After(b.giveUp) {
		return err
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(b.wait):
	}
	b.wait = min(2*b.wait, time.Second)
	return nil
}

// transient errors of a publish or a read may clear once the cluster has
// failed over: no stream leader answered, the try timed out, the
// connection was between servers, or the server said JetStream is
// unavailable for now (503: the meta leader is being elected).
func transient(err error) bool {
	var api *jetstream.APIError
	if errors.As(err, &api) && api.Code == 503 && !storeFull(err) {
		return true
	}
	return errors.Is(err, nats.ErrNoResponders) || errors.Is(err, jetstream.ErrNoStreamResponse) || errors.Is(err, nats.ErrTimeout) ||
		errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrReconnectBufExceeded) || errors.Is(err, nats.ErrConnectionReconnecting) ||
		errors.Is(err, nats.ErrDisconnected)
}

// storeFull reports whether err is a stream's refusal of a message it has
// no room for (discard new at its max_bytes or max_msgs): no retry makes
// room.
func storeFull(err error) bool {
	var api *jetstream.APIError
	return errors.As(err, &api) && strings.HasPrefix(api.Description, "maximum ") && strings.HasSuffix(api.Description, " exceeded")
}
