package bus

import (
	"context"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/micro"
	"github.com/rote-agent/rote/schema"
	"github.com/vmihailenco/msgpack/v5"
)

// ErrNoService means no instance of a service answered a request.
var ErrNoService = errors.New("bus: no service instance answered")

// headerError marks a reply whose body is a msgpack schema.Error.
const headerError = "Rote-Error"

// Call sends req to a service endpoint as msgpack and decodes the reply
// into rep. An error the handler returned comes back as a *schema.Error
// (errors.Is compares its code); no instance listening is ErrNoService; a
// deadline is the context's error.
func (b *Bus) Call(ctx context.Context, subject string, req, rep any) error {
	data, err := msgpack.Marshal(req)
	if err != nil {
		return fmt.Errorf("bus: encode request to %s: %w", subject, err)
	}
	msg, err := b.conn.RequestWithContext(ctx, subject, data)
	switch {
	case errors.Is(err, nats.ErrNoResponders):
		return fmt.Errorf("%w on %s", ErrNoService, subject)
	case err != nil:
		return fmt.Errorf("bus: request %s: %w", subject, err)
	}
	if msg.Header.Get(headerError) != "" {
		var e schema.Error
		if err := msgpack.Unmarshal(msg.Data, &e); err != nil {
			return fmt.Errorf("bus: undecodable error reply from %s: %w", subject, err)
		}
		return &e
	}
	if err := msgpack.Unmarshal(msg.Data, rep); err != nil {
		return fmt.Errorf("bus: decode reply from %s: %w", subject, err)
	}
	return nil
}

// Handler serves one request of an endpoint.
type Handler[Req, Rep any] func(ctx context.Context, req *Req) (*Rep, error)

// AddEndpoint adds a typed msgpack endpoint to svc on subject, in the
// service's queue group unless queue is false. Each request runs in its own
// goroutine under ctx, so a slow request does not hold up the others. A
// *schema.Error from h reaches the caller as is; any other error as
// CodeInternal.
func AddEndpoint[Req, Rep any](ctx context.Context, svc micro.Service, name, subject string, queue bool, h Handler[Req, Rep]) error {
	opts := []micro.EndpointOpt{micro.WithEndpointSubject(subject)}
	if !queue {
		opts = append(opts, micro.WithEndpointQueueGroupDisabled())
	}
	return svc.AddEndpoint(name, micro.HandlerFunc(func(r micro.Request) {
		go serve(ctx, r, h)
	}), opts...)
}

func serve[Req, Rep any](ctx context.Context, r micro.Request, h Handler[Req, Rep]) {
	var req Req
	if err := msgpack.Unmarshal(r.Data(), &req); err != nil {
		respondError(r, schema.Errorf(schema.CodeInvalid, "undecodable request: %v", err))
		return
	}
	rep, err := h(ctx, &req)
	if err != nil {
		respondError(r, err)
		return
	}
	data, err := msgpack.Marshal(rep)
	if err != nil {
		respondError(r, schema.Errorf(schema.CodeInternal, "encode reply: %v", err))
		return
	}
	r.Respond(data)
}

// respondError replies with err as a schema.Error (see schema.AsError).
func respondError(r micro.Request, err error) {
	reply := schema.AsError(err)
	data, _ := msgpack.Marshal(reply)
	r.Respond(data, micro.WithHeaders(micro.Headers{headerError: []string{string(reply.Code)}}))
}

// NewService registers a NATS micro service on the bus connection.
func (b *Bus) NewService(name, version, description string) (micro.Service, error) {
	svc, err := micro.AddService(b.conn, micro.Config{Name: name, Version: version, Description: description})
	if err != nil {
		return nil, fmt.Errorf("bus: add service %s: %w", name, err)
	}
	b.mu.Lock()
	b.services = append(b.services, svc)
	b.mu.Unlock()
	return svc, nil
}
