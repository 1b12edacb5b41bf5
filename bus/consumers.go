package bus

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// Every consumer costs the server, and a stream takes at most
// JSDefaultMaxConsumersPerStream (1000): a caller that made them all, and
// kept them, would leave none for the owner's own reads. So a consumer
// made through the gate goes idle-deleted within maxIdleConsumer, carries
// its maker's name in its metadata (ownerKey), and once a stream has
// crowdedConsumers, a user that holds perUserConsumers of them makes no
// more: with the roles and the client all at their most, the stream
// keeps room for the owner's. Only its maker may delete one. The
// planners' consumer on the task queue is apart.

const (
	maxIdleConsumer   = 5 * time.Minute // nats.go's ordered consumers' own
	crowdedConsumers  = 200
	perUserConsumers  = 100
	ownerKey          = "rote.owner"
	consumerCallLimit = 5 * time.Second
)

// stampConsumer checks a consumer create request's idle time and writes
// its maker into its metadata, keeping every other field as sent.
func stampConsumer(user string, body []byte) ([]byte, string) {
	var req map[string]json.RawMessage
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, "a consumer request that is no JSON"
	}
	var cfg map[string]json.RawMessage
	if err := json.Unmarshal(req["config"], &cfg); err != nil || cfg == nil {
		return nil, "a consumer request without a config"
	}
	var idle time.Duration
	if raw, ok := cfg["inactive_threshold"]; ok {
		if err := json.Unmarshal(raw, &idle); err != nil {
			return nil, "a consumer's inactive_threshold that is no number"
		}
	}
	if idle < 0 || idle > maxIdleConsumer {
		return nil, fmt.Sprintf("a consumer idle for %s before it goes: at most %s", idle, maxIdleConsumer)
	}
	meta := map[string]string{}
	if raw, ok := cfg["metadata"]; ok && json.Unmarshal(raw, &meta) != nil {
		return nil, "a consumer's metadata that is no map of strings"
	}
	meta[ownerKey] = user
	cfg["metadata"], _ = json.Marshal(meta)
	req["config"], _ = json.Marshal(cfg)
	out, err := json.Marshal(req)
	if err != nil {
		return nil, "a consumer request that cannot be written back"
	}
	return out, ""
}

// consumerBudget says why user may not make one more consumer on stream,
// or "" when it may: a stream with few consumers is not counted.
func (b *Bus) consumerBudget(user, stream string) string {
	ctx, cancel := context.WithTimeout(context.Background(), consumerCallLimit)
	defer cancel()
	s, err := b.js.Stream(ctx, stream)
	if err != nil {
		return fmt.Sprintf("the gate cannot count the consumers of %s: %v", stream, err)
	}
	if s.CachedInfo().State.Consumers < crowdedConsumers {
		return ""
	}
	held := 0
	infos := s.ListConsumers(ctx)
	for info := range infos.Info() {
		if info.Config.Metadata[ownerKey] == user {
			held++
		}
	}
	if err := infos.Err(); err != nil {
		return fmt.Sprintf("the gate cannot count the consumers of %s: %v", stream, err)
	}
	if held >= perUserConsumers {
		return fmt.Sprintf("%s holds %d consumers on %s, the most one user may while it is crowded: delete some, or let idle ones go", user, held, stream)
	}
	return ""
}

// consumerOwner says why user may not delete consumer name on stream, or
// "" when it made it.
func (b *Bus) consumerOwner(user, stream, name string) string {
	ctx, cancel := context.WithTimeout(context.Background(), consumerCallLimit)
	defer cancel()
	c, err := b.js.Consumer(ctx, stream, name)
	if err == jetstream.ErrConsumerNotFound {
		return "" // the server says so itself
	}
	if err != nil {
		return fmt.Sprintf("the gate cannot read consumer %s: %v", name, err)
	}
	if owner := c.CachedInfo().Config.Metadata[ownerKey]; owner != user {
		return fmt.Sprintf("consumer %s on %s is not %s's to delete", name, stream, user)
	}
	return ""
}
