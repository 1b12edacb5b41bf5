package bus

import (
	"context"
	"fmt"

	"github.com/nats-io/nats.go"
)

// Health reports whether this process can do its work over the bus now:
// the connection is up and JetStream answers. A connection that is
// reconnecting is ErrUnreachable; it may come back.
func (b *Bus) Health(ctx context.Context) error {
	if !b.Connected() {
		return fmt.Errorf("%w: the connection is %s", ErrUnreachable, b.conn.Status())
	}
	if _, err := b.js.AccountInfo(ctx); err != nil {
		return fmt.Errorf("bus: jetstream does not answer: %w", err)
	}
	return nil
}

// Connected reports whether the connection is up now.
func (b *Bus) Connected() bool { return b.conn.Status() == nats.CONNECTED }

// Closed reports whether the connection is closed for good: it will not
// reconnect, and the process should be restarted.
func (b *Bus) Closed() bool { return b.conn.IsClosed() }

// Reconnects counts how often the connection was re-established.
func (b *Bus) Reconnects() uint64 { return b.conn.Stats().Reconnects }
