package e2e

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"

	"github.com/rote-agent/rote/services/recorder/recordertest"
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
