// Command publish-task asks a Rote deployment to do a task, the way any
// NATS client can: it publishes one msgpack-encoded task.requested.v1 on
// rote.tasks, waits for the server's acknowledgement (the task is then
// stored, and exactly one planner will claim it), and, with -wait, follows
// the task's run in ROTE_RUNS until it finishes or a planner rejects the
// task (task.rejected.v1, with its reason).
//
// It deliberately does not import Rote: the message below is the whole
// wire contract.
//
// Against rote serve's embedded server, it connects as the client user,
// whose password is in the server's data directory:
//
//	go run ./examples/publish-task -nats nats://client:$(cat .rote/client.token)@127.0.0.1:4222 \
//	  -suite B1 -target http://127.0.0.1:8080 -wait
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/vmihailenco/msgpack/v5"
)

// taskRequested is task.requested.v1 as msgpack. id and time identify the
// message (id is its dedup key); task_id names the run that does it.
type taskRequested struct {
	ID       string            `msgpack:"id"`
	Time     time.Time         `msgpack:"time"`
	TaskID   string            `msgpack:"task_id"`
	Task     taskSpec          `msgpack:"task"`
	Playbook string            `msgpack:"playbook,omitempty"` // force a stored playbook by name
	Secrets  []string          `msgpack:"secrets,omitempty"`  // parameter names the planner reads from $ROTE_SECRET_<NAME>
	Verify   []verifyCondition `msgpack:"verify,omitempty"`   // the verify gate; a suite task brings its own
	MaxSteps int               `msgpack:"max_steps,omitempty"`
}

type taskSpec struct {
	Suite  string            `msgpack:"suite,omitempty"`  // a frozen suite task id: B1 ... B6, W1 ... W4
	Name   string            `msgpack:"name,omitempty"`   // task class name
	Text   string            `msgpack:"text,omitempty"`   // the task in words
	Params map[string]string `msgpack:"params,omitempty"` // parameter values (never secrets)
	Target string            `msgpack:"target,omitempty"` // the site's URL (a suite task: its base URL)
}

// verifyCondition is one expect, e.g. {op: "text_visible", arg: "Saved"}.
type verifyCondition struct {
	Op  string `msgpack:"op"`
	Arg string `msgpack:"arg,omitempty"`
}

// finished is the part of run.finished.v1 this publisher reads.
type finished struct {
	RunID   string `msgpack:"run_id"`
	Outcome string `msgpack:"outcome"`
	Reason  *struct {
		Code    string `msgpack:"code"`
		Message string `msgpack:"message"`
	} `msgpack:"reason"`
}

// rejected is the part of task.rejected.v1 this publisher reads: a
// planner will not do the task, and says why.
type rejected struct {
	Reason struct {
		Code    string `msgpack:"code"`
		Message string `msgpack:"message"`
	} `msgpack:"reason"`
}

// started is the part of run.started.v1 that links a fallback run to the
// replay it continues.
type started struct {
	RunID  string `msgpack:"run_id"`
	Parent string `msgpack:"parent"`
}

func main() {
	url := flag.String("nats", nats.DefaultURL, "NATS URL of the deployment")
	suite := flag.String("suite", "", "a frozen suite task id, e.g. B1")
	text := flag.String("text", "", "the task in words (not needed for a suite task)")
	target := flag.String("target", "", "the site's URL")
	taskID := flag.String("id", "", "the task id, which names its run (default: random)")
	verify := flag.String("verify-text", "", "succeed only when this text shows at the end")
	wait := flag.Duration("wait", 0, "follow the task's run for this long and print its outcome")
	ca := flag.String("ca", "", "CA certificate that signed the NATS servers' TLS certificates")
	flag.Parse()
	if *taskID == "" {
		*taskID = "task-" + randomHex(8)
	}
	msg := taskRequested{ID: "req-" + randomHex(8), Time: time.Now().UTC(), TaskID: *taskID,
		Task: taskSpec{Suite: *suite, Text: *text, Target: *target}}
	if *verify != "" {
		msg.Verify = []verifyCondition{{Op: "text_visible", Arg: *verify}}
	}
	opts := []nats.Option{nats.Name("publish-task")}
	if *ca != "" {
		opts = append(opts, nats.RootCAs(*ca))
	}
	if err := run(*url, opts, msg, *wait); err != nil {
		fmt.Fprintln(os.Stderr, "publish-task:", err)
		os.Exit(1)
	}
}

func run(url string, opts []nats.Option, msg taskRequested, wait time.Duration) error {
	nc, err := nats.Connect(url, opts...)
	if err != nil {
		return err
	}
	defer nc.Close()
	// The client user calls JetStream through Rote's gate, which lets it
	// read the run log with consumers delivering to its own inbox: its
	// API is at rote.js.client.API, not $JS.API.
	js, err := jetstream.NewWithAPIPrefix(nc, "rote.js.client.API")
	if err != nil {
		return err
	}
	data, err := msgpack.Marshal(&msg)
	if err != nil {
		return err
	}
	// With -wait, the run log is followed from before the task is stored
	// (an ordered consumer starts when first read): a rejection comes at
	// once.
	var cons jetstream.Consumer
	if wait > 0 {
		from := time.Now().Add(-time.Second)
		if cons, err = js.OrderedConsumer(context.Background(), "ROTE_RUNS", jetstream.OrderedConsumerConfig{
			FilterSubjects: []string{"rote.runs.*.started", "rote.runs.*.finished", "rote.runs.*.rejected"},
			DeliverPolicy:  jetstream.DeliverByStartTimePolicy, OptStartTime: &from,
		}); err != nil {
			return err
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out := nats.NewMsg("rote.tasks")
	out.Data = data
	out.Header.Set("Rote-Event-Type", "task.requested.v1") // optional on rote.tasks
	out.Header.Set(jetstream.MsgIDHeader, msg.ID)
	ack, err := js.PublishMsg(ctx, out)
	if err != nil {
		return err
	}
	fmt.Printf("task %s stored as %s #%d\n", msg.TaskID, ack.Stream, ack.Sequence)
	if wait <= 0 {
		return nil
	}
	return follow(cons, msg.TaskID, wait)
}

// follow watches the run log for the task's outcome: the run named by the
// task id, or, when that replay fell back, the run that continues it; or
// the planner's word that it will not be done.
func follow(cons jetstream.Consumer, taskID string, wait time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	runs := map[string]bool{taskID: true}
	for {
		m, err := cons.Next(jetstream.FetchContext(ctx))
		if err != nil {
			return fmt.Errorf("no outcome for task %s within %s: %w", taskID, wait, err)
		}
		switch {
		case m.Subject() == "rote.runs."+taskID+".rejected":
			var r rejected
			if msgpack.Unmarshal(m.Data(), &r) != nil {
				continue
			}
			fmt.Printf("task %s rejected: %s: %s\n", taskID, r.Reason.Code, r.Reason.Message)
			return fmt.Errorf("task %s was rejected", taskID)
		case strings.HasSuffix(m.Subject(), ".rejected"):
			continue
		case strings.HasSuffix(m.Subject(), ".started"):
			var s started
			if msgpack.Unmarshal(m.Data(), &s) == nil && (runs[s.Parent] || strings.HasPrefix(s.RunID, taskID+"-")) {
				runs[s.RunID] = true
			}
		default:
			var f finished
			if msgpack.Unmarshal(m.Data(), &f) != nil || !runs[f.RunID] || f.Outcome == "fallback" {
				continue
			}
			fmt.Printf("run %s: %s\n", f.RunID, f.Outcome)
			if f.Reason != nil {
				fmt.Printf("  %s: %s\n", f.Reason.Code, f.Reason.Message)
				switch f.Reason.Code {
				case "browser_crashed", "no_session", "unavailable":
					fmt.Println("  the browser under it went away: the task is handed out again")
					continue
				}
			}
			if f.Outcome != "success" {
				return fmt.Errorf("task %s did not succeed", taskID)
			}
			return nil
		}
	}
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
