package bus

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/nats-io/nats.go"
)

// The JetStream API answers wherever a request's reply subject says, and
// delivers a push consumer's messages wherever its config says: a user
// that may call it at all could aim a reply, or a copy of every event,
// at a subject a stream keeps (the task queue, the run log, the playbook
// store). Subject permissions cannot see either. So no user but rote
// calls $JS.API itself: the others call it through the gate, a service
// of every process of user rote, on APIPrefix(USER). The gate forwards a
// request only when its reply is the caller's own inbox, its operation
// is one the caller's role may make, and a consumer it creates delivers
// nowhere but that inbox (and is durable only as the planners' task
// consumer); it forwards a role's events and playbook writes to their
// subjects on the same terms, so that their acknowledgements, too, go
// nowhere else. The server answers the caller directly.

// APIPrefix is the JetStream API prefix of a user other than rote (a
// role, or client): jetstream.NewWithAPIPrefix(nc, bus.APIPrefix(user)).
func APIPrefix(user string) string { return "rote.js." + user + ".API." }

// gateSubject is every user's API prefix.
const gateSubject = "rote.js.*.API.>"

// gateQueue is the queue group of the processes that serve the gate.
const gateQueue = "rote-js-gate"

// jsAPI is the prefix of the server's own JetStream API.
const jsAPI = "$JS.API."

// ServeGate serves the JetStream gate on this connection (a process of
// user rote), until the bus closes. Serving it twice is serving it once.
func (b *Bus) ServeGate() error {
	b.gateOnce.Do(func() {
		_, b.gateErr = b.conn.QueueSubscribe(gateSubject, gateQueue, b.forward)
		if b.gateErr != nil {
			b.gateErr = fmt.Errorf("bus: serve the JetStream gate: %w", b.gateErr)
		}
	})
	return b.gateErr
}

// forward sends on a request the gate allows, and answers one it refuses
// with a JetStream error (at the caller's own inbox only).
func (b *Bus) forward(m *nats.Msg) {
	user, rest, _ := strings.Cut(strings.TrimPrefix(m.Subject, "rote.js."), ".API.")
	to, body, why := judge(user, rest, m.Reply, m.Data)
	if why == "" {
		why = b.judgeConsumers(user, rest)
	}
	if why != "" {
		b.log.Warn("the JetStream gate refused a request", "user", user, "request", rest, "reason", why)
		if m.Reply != "" && strings.HasPrefix(m.Reply, replyPrefix(user)) {
			body, _ := json.Marshal(map[string]any{"error": map[string]any{"code": 403, "err_code": 10403, "description": "rote: " + why}})
			b.conn.Publish(m.Reply, body)
		}
		return
	}
	if err := b.conn.PublishMsg(&nats.Msg{Subject: to, Reply: m.Reply, Header: m.Header, Data: body}); err != nil {
		b.log.Warn("the JetStream gate could not forward a request", "user", user, "request", rest, "err", err)
	}
}

// replyPrefix is where user's replies must go: its own inbox.
func replyPrefix(user string) string {
	if user == clientUser {
		return "_INBOX."
	}
	return inboxPrefix(user) + "."
}

// judge decides on a request user sent to the gate: the subject to
// forward it to and the body to send, or why it is refused.
func judge(user, rest, reply string, body []byte) (to string, out []byte, why string) {
	g, role := roleGrants[user]
	if !role && user != clientUser {
		return "", nil, fmt.Sprintf("no user %q", user)
	}
	if reply != "" && (!strings.HasPrefix(reply, replyPrefix(user)) || strings.ContainsAny(reply, "*> \t")) {
		return "", nil, fmt.Sprintf("a reply to %q: replies go to the caller's own inbox, %s", reply, replyPrefix(user))
	}
	// A write: an event, or a playbook.
	if run, ok := strings.CutPrefix(rest, "rote.runs."); ok {
		_, kind, _ := strings.Cut(run, ".")
		if !role || !slices.Contains(g.kinds, kind) || strings.ContainsAny(rest, "*>") {
			return "", nil, fmt.Sprintf("%s may not write %s", user, rest)
		}
		return rest, body, ""
	}
	if strings.HasPrefix(rest, "$KV."+BucketPlaybooks+".") {
		if !g.playbooks || strings.ContainsAny(rest, "*>") {
			return "", nil, fmt.Sprintf("%s may not write the playbook store", user)
		}
		return rest, body, ""
	}
	if strings.HasPrefix(rest, "$KV."+BucketSites+".") {
		if !g.sites || strings.ContainsAny(rest, "*>") {
			return "", nil, fmt.Sprintf("%s may not write site memory", user)
		}
		return rest, body, ""
	}
	out, why = judgeAPI(user, g, rest, body)
	if why != "" {
		return "", nil, why
	}
	return jsAPI + rest, out, ""
}

// judgeAPI decides on a JetStream API call (rest is what follows
// $JS.API.): reads of the streams user's role reads, and consumers of
// its own on them. It returns the body to send.
func judgeAPI(user string, g roleGrant, rest string, body []byte) ([]byte, string) {
	if why := checkAPIBody(body); why != "" {
		return nil, why
	}
	if rest == "INFO" {
		return body, ""
	}
	op, stream := apiParts(rest)
	if op == "" || !readable(user, g, stream) {
		return nil, fmt.Sprintf("%s may not call %s", user, rest)
	}
	switch op {
	case "STREAM.INFO", "STREAM.MSG.GET", "DIRECT.GET", "CONSUMER.INFO", "CONSUMER.MSG.NEXT":
		return body, ""
	case "CONSUMER.DELETE":
		if stream == StreamTasks {
			return nil, "the planners' task consumer is not a caller's to delete"
		}
		return body, ""
	case "CONSUMER.CREATE", "CONSUMER.DURABLE.CREATE":
		if why := judgeConsumer(user, stream, op == "CONSUMER.DURABLE.CREATE", body); why != "" {
			return nil, why
		}
		if stream == StreamTasks {
			return body, ""
		}
		return stampConsumer(user, body)
	}
	return nil, fmt.Sprintf("%s may not call %s", user, rest)
}

// judgeConsumers decides what judge cannot alone, asking the server: a
// new consumer must fit user's budget, and one deleted must be user's
// (consumers.go). The task queue is apart.
func (b *Bus) judgeConsumers(user, rest string) string {
	op, stream := apiParts(rest)
	if stream == StreamTasks {
		return ""
	}
	switch op {
	case "CONSUMER.CREATE":
		return b.consumerBudget(user, stream)
	case "CONSUMER.DELETE":
		name, _, _ := strings.Cut(strings.TrimPrefix(rest, op+"."+stream+"."), ".")
		return b.consumerOwner(user, stream, name)
	}
	return ""
}

// apiParts splits an API call's subject into its operation and stream
// ("" for a call the gate does not know).
func apiParts(rest string) (op, stream string) {
	for _, known := range []string{"STREAM.INFO", "STREAM.MSG.GET", "DIRECT.GET", "CONSUMER.INFO", "CONSUMER.MSG.NEXT",
		"CONSUMER.DELETE", "CONSUMER.DURABLE.CREATE", "CONSUMER.CREATE"} {
		if after, ok := strings.CutPrefix(rest, known+"."); ok {
			stream, _, _ = strings.Cut(after, ".")
			return known, stream
		}
	}
	return "", ""
}

// readable reports whether user reads stream: the client the run log;
// a role the log and the stores, the planner the task queue too.
func readable(user string, g roleGrant, stream string) bool {
	switch stream {
	case StreamRuns:
		return true
	case "KV_" + BucketPlaybooks, "KV_" + BucketSites, "OBJ_" + BucketBlobs:
		return user != clientUser
	case StreamTasks:
		return g.tasks
	}
	return false
}

// consumerRequest is the part of a consumer create request the gate
// reads.
type consumerRequest struct {
	Action string `json:"action"`
	Config struct {
		Durable        string `json:"durable_name"`
		DeliverSubject string `json:"deliver_subject"`
		DeliverGroup   string `json:"deliver_group"`
	} `json:"config"`
}

// judgeConsumer decides on a consumer user creates on stream: it may
// deliver only to the caller's own inbox, and be durable (or be updated)
// only as the planners' task consumer, the only one on the task queue.
func judgeConsumer(user, stream string, durable bool, body []byte) string {
	var req consumerRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return "a consumer request that is no JSON"
	}
	c := req.Config
	if c.DeliverSubject != "" && (!strings.HasPrefix(c.DeliverSubject, replyPrefix(user)) || strings.ContainsAny(c.DeliverSubject, "*>")) {
		return fmt.Sprintf("a consumer delivering to %q: a consumer delivers only to its caller's own inbox, %s", c.DeliverSubject, replyPrefix(user))
	}
	if c.DeliverGroup != "" {
		return "a consumer with a deliver group"
	}
	if stream == StreamTasks { // readable by the planner alone
		if c.Durable != TaskConsumer || c.DeliverSubject != "" {
			return fmt.Sprintf("a consumer %q on the task queue: only the planners' own, %s, pulls from it", c.Durable, TaskConsumer)
		}
		return ""
	}
	if durable || c.Durable != "" || req.Action == "update" {
		return fmt.Sprintf("a durable or updated consumer on %s: callers read with consumers of their own that go with them", stream)
	}
	return ""
}
