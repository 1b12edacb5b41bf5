package bus

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/micro"
	"github.com/rote-agent/rote/schema"
	"github.com/vmihailenco/msgpack/v5"
)

// ErrNoService means no instance of a service answered a request.
var ErrNoService = errors.New("bus: no service instance answered")

// headerError marks a reply whose body is a msgpack schema.Error.
const headerError = "Rote-Error"

// RPC sends requests to services and registers the services of this
// process (NATS micro services, in queue groups).
type RPC struct {
	conn *nats.Conn
	log  *slog.Logger

	mu       sync.Mutex
	services []*Service // registered through NewService, for their stats
}

// Call sends req to a service endpoint as msgpack and decodes the reply
// into rep. An error the handler returned comes back as a *schema.Error
// (errors.Is compares its code); no instance listening is ErrNoService; a
// deadline is the context's error.
func (r *RPC) Call(ctx context.Context, subject string, req, rep any) error {
	data, err := msgpack.Marshal(req)
	if err != nil {
		return fmt.Errorf("bus: encode request to %s: %w", subject, err)
	}
	msg, err := r.conn.RequestWithContext(ctx, subject, data)
	switch {
	case errors.Is(err, nats.ErrNoResponders):
		return fmt.Errorf("%w on %s", ErrNoService, subject)
	case err != nil:
		return fmt.Errorf("bus: request %s: %w", subject, err)
	}
	return decodeReply(subject, msg, rep)
}

// decodeReply decodes a service's reply into rep, or the *schema.Error
// it carries.
func decodeReply(subject string, msg *nats.Msg, rep any) error {
	if msg.Header.Get(headerError) != "" {
		var e schema.Error
		if err := schema.DecodeMsgpack(msg.Data, &e); err != nil {
			return fmt.Errorf("bus: undecodable error reply from %s: %w", subject, err)
		}
		return &e
	}
	if err := schema.DecodeMsgpack(msg.Data, rep); err != nil {
		return fmt.Errorf("bus: decode reply from %s: %w", subject, err)
	}
	return nil
}

// Service is a NATS micro service of this process. Its endpoints log the
// requests they fail for a reason of their own (see LogFailures).
type Service struct {
	micro micro.Service
	log   *slog.Logger
	calls calls // served calls, by id (see RPC.CallOnce)
}

// NewService registers a NATS micro service on the connection.
func (r *RPC) NewService(name, version, description string) (*Service, error) {
	svc, err := micro.AddService(r.conn, micro.Config{Name: name, Version: version, Description: description})
	if err != nil {
		return nil, fmt.Errorf("bus: add service %s: %w", name, err)
	}
	s := &Service{micro: svc, log: r.log.With("service", name)}
	r.mu.Lock()
	r.services = append(r.services, s)
	r.mu.Unlock()
	return s, nil
}

// Stop stops serving the service's endpoints.
func (s *Service) Stop() error { return s.micro.Stop() }

// Stats returns the request statistics of every service registered
// through this client, in registration order.
func (r *RPC) Stats() []micro.Stats {
	r.mu.Lock()
	svcs := slices.Clone(r.services)
	r.mu.Unlock()
	out := make([]micro.Stats, 0, len(svcs))
	for _, s := range svcs {
		out = append(out, s.micro.Stats())
	}
	return out
}

// Handler serves one request of an endpoint.
type Handler[Req, Rep any] func(ctx context.Context, req *Req) (*Rep, error)

// AddEndpoint adds a typed msgpack endpoint to svc on subject, in the
// service's queue group unless queue is false. Each request runs in its own
// goroutine under ctx, so a slow request does not hold up the others; the
// copies of one call sent by RPC.CallOnce are served once. A
// *schema.Error from h reaches the caller as is; any other error as
// CodeInternal. Failures that are the service's own are logged
// (LogFailures).
func AddEndpoint[Req, Rep any](ctx context.Context, svc *Service, name, subject string, queue bool, h Handler[Req, Rep]) error {
	opts := []micro.EndpointOpt{micro.WithEndpointSubject(subject)}
	if !queue {
		opts = append(opts, micro.WithEndpointQueueGroupDisabled())
	}
	logged := LogFailures[Req, Rep](svc.log.With("endpoint", name))(h)
	return svc.micro.AddEndpoint(name, micro.HandlerFunc(func(r micro.Request) {
		if !inbox(r.Reply()) {
			// A reply goes where the requester says, written as this
			// process's user: aimed at a stream's subject, it would put
			// this process's words into the run log or the playbook
			// store on a requester's behalf.
			svc.log.Warn("a request whose reply subject is no inbox was dropped", "endpoint", name, "reply", r.Reply())
			return
		}
		go func() {
			id := r.Headers().Get(headerCall)
			if id == "" {
				respond(r, serve(ctx, r.Data(), logged))
				return
			}
			// The id is the requester's; the subject keeps one
			// endpoint's calls from answering another's.
			if rep, ok := svc.calls.once(ctx, r.Subject()+" "+id, func() reply { return serve(ctx, r.Data(), logged) }); ok {
				respond(r, rep)
			}
		}()
	}), opts...)
}

// inbox reports whether subject is a requester's reply inbox.
func inbox(subject string) bool {
	return strings.HasPrefix(subject, "_INBOX.") || strings.HasPrefix(subject, inboxPrefix(""))
}

// serve decodes a request, runs h on it and encodes its answer.
func serve[Req, Rep any](ctx context.Context, data []byte, h Handler[Req, Rep]) reply {
	var req Req
	if err := schema.DecodeMsgpack(data, &req); err != nil {
		return errorReply(schema.Errorf(schema.CodeInvalid, "undecodable request: %v", err))
	}
	rep, err := h(ctx, &req)
	if err != nil {
		return errorReply(err)
	}
	out, err := msgpack.Marshal(rep)
	if err != nil {
		return errorReply(schema.Errorf(schema.CodeInternal, "encode reply: %v", err))
	}
	return reply{data: out}
}

// errorReply is err as a schema.Error reply (see schema.AsError).
func errorReply(err error) reply {
	e := schema.AsError(err)
	data, _ := msgpack.Marshal(e)
	return reply{data: data, headers: micro.Headers{headerError: []string{string(e.Code)}}}
}

// respond sends rep to the requester.
func respond(r micro.Request, rep reply) {
	if rep.headers != nil {
		_ = r.Respond(rep.data, micro.WithHeaders(rep.headers))
		return
	}
	_ = r.Respond(rep.data)
}
