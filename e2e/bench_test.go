package e2e

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"

	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/services/recorder/recordertest"
	"github.com/rote-agent/rote/services/replay"
)

// BenchmarkRecordOverhead measures what `rote record` adds to a tool
// call: the same echo calls against our fixture server, once directly and
// once through the recorder (embedded bus, every call recorded), in one
// run. It reports round-trip p50 and p99 and calls per second.
func BenchmarkRecordOverhead(b *testing.B) {
	cmd, env := recordertest.Command()
	b.Run("direct", func(b *testing.B) {
		server := exec.Command(cmd[0], cmd[1:]...)
		server.Env = append(os.Environ(), env...)
		in, _ := server.StdinPipe()
		out, _ := server.StdoutPipe()
		if err := server.Start(); err != nil {
			b.Fatal(err)
		}
		defer func() { in.Close(); server.Wait() }()
		echoCalls(b, in, out)
	})
	b.Run("recorded", func(b *testing.B) {
		rec := startRecording(b, b.TempDir(), env, []string{"--task", "bench"}, cmd...)
		defer func() { rec.stdin.Close(); rec.cmd.Wait() }()
		echoCalls(b, rec.stdin, rec.stdout)
	})
}

// echoCalls initializes a session and makes b.N sequential echo calls,
// timing each round trip.
func echoCalls(b *testing.B, w io.Writer, r io.Reader) {
	br := bufio.NewReader(r)
	roundTrip := func(line string) {
		if _, err := io.WriteString(w, line); err != nil {
			b.Fatal(err)
		}
		if _, err := br.ReadBytes('\n'); err != nil {
			b.Fatal(err)
		}
	}
	roundTrip(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}` + "\n")
	io.WriteString(w, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	lines := make([]string, b.N)
	for i := range lines {
		lines[i] = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"call %d"}}}`+"\n", i+1, i+1)
	}
	rtts := make([]time.Duration, b.N)
	b.ResetTimer()
	for i, line := range lines {
		start := time.Now()
		roundTrip(line)
		rtts[i] = time.Since(start)
	}
	b.StopTimer()
	slices.Sort(rtts)
	b.ReportMetric(float64(rtts[len(rtts)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(rtts[len(rtts)*99/100].Microseconds()), "p99-µs")
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
}

// BenchmarkExecutorOverhead measures what the executor adds to each
// deterministic step beyond the tool call itself: the same echo calls to
// our fixture MCP server, once from a bare go-sdk client and once as a
// 20-step playbook replay (rendering, the call's trajectory event, one
// expect evaluated and recorded per step, the run's start, verify and
// finish), in one run. overhead-µs/step is the difference per step.
func BenchmarkExecutorOverhead(b *testing.B) {
	const steps = 20
	doc := "name: echoes\nintent: echo {{text}} twenty times\nparams:\n  text: {type: string, required: true}\nsteps:\n"
	for i := 0; i < steps; i++ {
		doc += fmt.Sprintf("  - {id: s%d, kind: deterministic, tool: echo, args: {text: \"{{text}} %d\"}, expect: [{text_visible: \"{{text}} %d\"}]}\n", i, i, i)
	}
	doc += "verify: [{output_matches: \"{{text}}\"}]\n"
	p, err := schema.DecodePlaybook([]byte(doc))
	if err != nil {
		b.Fatal(err)
	}
	n := start(b, nil)
	ex, open := n.Executor(), fixtureOpener(n.Bus())

	var bare time.Duration
	var replayed time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		// The bare calls: a fresh session to the same server, as each
		// replay has, making the same calls, with nothing recorded.
		raw, err := open(context.Background(), "", nil)
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		for s := 0; s < steps; s++ {
			if _, err := raw.Dispatch(context.Background(), "", "echo", map[string]any{"text": fmt.Sprintf("x %d", s)}, nil); err != nil {
				b.Fatal(err)
			}
		}
		bare += time.Since(start)
		raw.Close(context.Background())
		res, err := ex.Replay(context.Background(), replay.Request{Playbook: p, Params: map[string]string{"text": "x"}, AllowUnbound: true, Open: open})
		if err != nil || res.Outcome != schema.OutcomeSuccess {
			b.Fatalf("%v %+v", err, res)
		}
		var stepTime time.Duration
		for _, r := range res.Steps {
			stepTime += r.Duration
		}
		replayed += stepTime
	}
	b.StopTimer()
	perBare := float64(bare.Microseconds()) / float64(b.N*steps)
	perStep := float64(replayed.Microseconds()) / float64(b.N*steps)
	b.ReportMetric(perBare, "call-µs")
	b.ReportMetric(perStep, "step-µs")
	b.ReportMetric(perStep-perBare, "overhead-µs/step")
}
