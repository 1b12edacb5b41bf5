package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/schema"
)

// natsNode is one real nats-server process of a loopback cluster.
type natsNode struct {
	name, client string
	log          string // the file its output goes to
	cmd          *exec.Cmd
	exited       chan struct{}
}

// natsCluster starts three nats-server processes (the binary built from
// the nats-server module Rote embeds) with JetStream, routed to each
// other on loopback, and returns them once JetStream answers.
func natsCluster(t *testing.T) []*natsNode {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "nats-server")
	build := exec.Command("go", "build", "-o", bin, "github.com/nats-io/nats-server/v2")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build nats-server: %v\n%s", err, out)
	}
	var routes []string
	clusterAddrs := make([]string, 3)
	for i := range clusterAddrs {
		clusterAddrs[i] = freeAddr(t)
		routes = append(routes, "nats://"+clusterAddrs[i])
	}
	var nodes []*natsNode
	for i := range 3 {
		n := &natsNode{name: fmt.Sprintf("n%d", i+1), client: freeAddr(t), exited: make(chan struct{})}
		host, port, _ := strings.Cut(n.client, ":")
		n.cmd = exec.Command(bin, "-a", host, "-p", port, "-n", n.name, "-js", "-sd", filepath.Join(t.TempDir(), n.name),
			"--cluster_name", "rote", "--cluster", "nats://"+clusterAddrs[i], "--routes", strings.Join(routes, ","))
		n.log = filepath.Join(t.TempDir(), n.name+".log")
		log, err := os.Create(n.log)
		if err != nil {
			t.Fatal(err)
		}
		n.cmd.Stdout, n.cmd.Stderr = log, log
		if err := n.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() { n.cmd.Wait(); close(n.exited) }()
		t.Cleanup(func() {
			_ = n.cmd.Process.Kill()
			<-n.exited
		})
		nodes = append(nodes, n)
	}
	// Three servers elect a meta leader within seconds on an idle machine;
	// CI's machines are shared and were seen to need more than 30 s.
	const wait = 120 * time.Second
	deadline := time.Now().Add(wait)
	for {
		nc, err := nats.Connect(clusterURL(nodes))
		if err == nil {
			js, _ := nc.JetStream()
			_, err = js.AccountInfo()
			nc.Close()
		}
		if err == nil {
			return nodes
		}
		if time.Now().After(deadline) {
			t.Fatalf("the cluster's JetStream did not answer in %s: %v\n%s", wait, err, clusterLogs(nodes))
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// clusterLogs returns the last lines each node printed, for a failure
// message that says why the cluster did not form.
func clusterLogs(nodes []*natsNode) string {
	var b strings.Builder
	for _, n := range nodes {
		out, _ := os.ReadFile(n.log)
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		fmt.Fprintf(&b, "--- %s (%s):\n%s\n", n.name, n.client, strings.Join(lines[max(0, len(lines)-15):], "\n"))
	}
	return b.String()
}

func clusterURL(nodes []*natsNode) string {
	var urls []string
	for _, n := range nodes {
		urls = append(urls, "nats://"+n.client)
	}
	return strings.Join(urls, ",")
}

// TestClusterNodeLossLosesNothing runs a bench over a three-node cluster
// with Rote's streams at three replicas, and kills the ROTE_RUNS stream's
// leader (SIGKILL) while the bench runs. Meanwhile a writer publishes run
// events the whole time and counts those the cluster acknowledged. The
// bench completes with every result verified by the stream, rote audit
// agrees with every one of its runs, and every acknowledged event of the
// writer is found afterwards: acknowledged = found.
func TestClusterNodeLossLosesNothing(t *testing.T) {
	long(t, "a 3-node NATS cluster losing its leader under a bench")
	// Not parallel: it measures, and must not share the machine with
	// other tests.
	nodes := natsCluster(t)
	url := clusterURL(nodes)
	b, err := bus.Open(testContext(t), bus.Config{URL: url, Replicas: 3, Name: "e2e-writer"})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()

	dir := t.TempDir()
	out := filepath.Join(dir, "bench")
	bench := exec.Command(roteBinary, "bench", "--reps", "1", "--model-latency", "none", "--out", out, "--nats", url, "--nats-replicas", "3")
	bench.Dir = dir
	benchLog := &strings.Builder{}
	bench.Stdout, bench.Stderr = benchLog, benchLog
	if err := bench.Start(); err != nil {
		t.Fatal(err)
	}
	benchDone := make(chan error, 1)
	go func() { benchDone <- bench.Wait() }()

	ctx, stop := context.WithCancel(testContext(t))
	var mu sync.Mutex
	var acked, refused []string
	writerDone := make(chan struct{})
	go func() {
		defer close(writerDone)
		for i := 0; ctx.Err() == nil; i++ {
			ev := &schema.LLMCall{Meta: schema.Meta{ID: fmt.Sprintf("w-%d", i), Time: time.Now()}, RunID: "cluster-writer", Source: schema.SourcePlanner, Model: "none",
				Usage: schema.TokenUsage{Uncached: 1, Output: 1}}
			pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			_, err := b.Runs().Publish(pctx, ev)
			cancel()
			mu.Lock()
			if err == nil {
				acked = append(acked, ev.ID)
			} else {
				refused = append(refused, ev.ID)
			}
			mu.Unlock()
			time.Sleep(5 * time.Millisecond)
		}
	}()

	// Kill the run log's leader once the bench has runs in it.
	time.Sleep(20 * time.Second)
	info, err := b.JetStream().Stream(testContext(t), bus.StreamRuns)
	if err != nil {
		t.Fatal(err)
	}
	si, err := info.Info(testContext(t))
	if err != nil {
		t.Fatal(err)
	}
	if si.Cluster == nil || len(si.Cluster.Replicas) != 2 {
		t.Fatalf("ROTE_RUNS is not replicated three ways: %+v", si.Cluster)
	}
	var victim *natsNode
	for _, n := range nodes {
		if n.name == si.Cluster.Leader {
			victim = n
		}
	}
	if victim == nil {
		t.Fatalf("no node is the leader %q", si.Cluster.Leader)
	}
	mu.Lock()
	before := len(acked)
	mu.Unlock()
	if err := victim.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-victim.exited
	t.Logf("killed %s, the leader of %s, after %d acknowledged writes", victim.name, bus.StreamRuns, before)

	select {
	case err := <-benchDone:
		if _, gateFail := err.(*exec.ExitError); err != nil && !gateFail {
			t.Fatalf("bench: %v\n%s", err, benchLog)
		}
	case <-time.After(10 * time.Minute):
		t.Fatalf("the bench did not finish in 10 minutes:\n%s", benchLog)
	}
	stop()
	<-writerDone
	if _, err := os.Stat(filepath.Join(out, "summary.json")); err != nil {
		t.Fatalf("the bench wrote no summary (%v):\n%s", err, benchLog)
	}

	// Every acknowledged write is in the stream, read back on a fresh
	// connection to what is left of the cluster.
	r, err := bus.Open(testContext(t), bus.Config{URL: url, Replicas: 3, Name: "e2e-reader"})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	envs, err := r.Runs().ReadRun(testContext(t), "cluster-writer")
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]bool{}
	for _, e := range envs {
		found[e.Event.(*schema.LLMCall).ID] = true
	}
	var lost []string
	for _, id := range acked {
		if !found[id] {
			lost = append(lost, id)
		}
	}
	t.Logf("writer: %d events acknowledged (%d before the kill), %d found, %d refused while the cluster failed over", len(acked), before, len(found), len(refused))
	if len(lost) > 0 || len(acked) <= before {
		t.Fatalf("%d acknowledged events lost (%v), %d acknowledged after the kill", len(lost), lost[:min(len(lost), 5)], len(acked)-before)
	}

	// Every run the bench reported is whole: rote audit re-derives it
	// from the stream and agrees with its manifest.
	f, err := os.Open(filepath.Join(out, "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	runs := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var res struct{ Runs []string }
		if err := json.Unmarshal(sc.Bytes(), &res); err != nil {
			t.Fatal(err)
		}
		for _, id := range res.Runs {
			runs++
			if code, text := rote(t, dir, "audit", id, "--nats", url); code != 0 {
				t.Errorf("audit %s: exit %d\n%s", id, code, text)
			}
		}
	}
	if runs == 0 {
		t.Fatalf("the bench reported no runs:\n%s", benchLog)
	}
	t.Logf("bench: %d runs, each audited against the stream", runs)
}
