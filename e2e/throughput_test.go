package e2e

import (
	"fmt"
	"testing"
	"time"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/portal"
	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/schema/tools"
)

// BenchmarkTaskThroughput measures tasks per minute through the scaled-out
// deployment: every role its own process over one NATS server, four
// planners (so that four tasks can be in flight), one perception for the
// host, and one or two actuators (each with its own Chromium). Each task
// is B1 replayed from its stored playbook: no model call, so the work is
// the browser's and the bus's, which is what actuators add capacity for.
// Run it with a fixed count, e.g.
//
//	go test ./e2e -run '^$' -bench TaskThroughput -benchtime 24x
func BenchmarkTaskThroughput(b *testing.B) {
	for _, actuators := range []int{1, 2} {
		b.Run(fmt.Sprintf("actuators=%d", actuators), func(b *testing.B) {
			_, url := hostBus(b)
			serveRole(b, "perception", nil, "--nats", url)
			for range actuators {
				serveRole(b, "actuator", nil, "--nats", url)
			}
			env := []string{"ROTE_SECRET_PASSWORD=" + portal.Password, "ROTE_SECRET_KEY=00112233445566778899aabbccddeeff"}
			for range 4 {
				serveRole(b, "planner", env, "--nats", url)
			}
			base, site := portalSite(b, "")
			bs, err := bus.Open(testContext(b), bus.Config{URL: url, Name: "e2e-bench"})
			if err != nil {
				b.Fatal(err)
			}
			defer bs.Close()
			p := examplePlaybook(b, "download-latest-report")
			if p.Fingerprint, err = schema.Fingerprint(tools.BrowserEnvironment(base)); err != nil {
				b.Fatal(err)
			}
			if _, err := bs.Playbooks().Put(testContext(b), p, "import", ""); err != nil {
				b.Fatal(err)
			}
			prefix := fmt.Sprintf("tp%d-%d-", actuators, time.Now().UnixNano())
			b.ResetTimer()
			began := time.Now()
			for i := range b.N {
				id := fmt.Sprintf("%s%d", prefix, i)
				data, err := msgpack.Marshal(map[string]any{"id": "req-" + id, "time": time.Now().UTC(), "task_id": id, "playbook": p.Name,
					"task": map[string]any{"suite": "B1", "target": base}})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := bs.Conn().Request(schema.SubjectTasks, data, 5*time.Second); err != nil {
					b.Fatal(err)
				}
			}
			done := 0
			for done < b.N {
				if time.Since(began) > 10*time.Minute {
					b.Fatalf("%d of %d tasks finished in 10 minutes", done, b.N)
				}
				time.Sleep(200 * time.Millisecond)
				envs, err := bs.Runs().Read(testContext(b), schema.RunKindFilter(schema.KindFinished))
				if err != nil {
					b.Fatal(err)
				}
				done = 0
				for _, e := range envs {
					f := e.Event.(*schema.RunFinished)
					if len(f.RunID) > len(prefix) && f.RunID[:len(prefix)] == prefix {
						if f.Outcome != schema.OutcomeSuccess || f.Mode != schema.ModeReplay {
							b.Fatalf("run %s: %s %s (%v)", f.RunID, f.Mode, f.Outcome, f.Reason)
						}
						done++
					}
				}
			}
			elapsed := time.Since(began)
			b.StopTimer()
			if got := len(site.State().Downloads); got != b.N {
				b.Fatalf("the portal counted %d downloads for %d tasks", got, b.N)
			}
			b.ReportMetric(float64(b.N)/elapsed.Minutes(), "tasks/min")
		})
	}
}
