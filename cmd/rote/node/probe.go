package node

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/services/planner"
)

// Probe serves what an orchestrator and a monitor ask of a role over HTTP:
//
//	/healthz  200 while the process can still work: its NATS connection
//	          is not closed for good (a reconnecting one is alive)
//	/readyz   200 once the role's services run and NATS with JetStream
//	          answers; 503 with the reason otherwise
//	/metrics  Prometheus metrics: requests per service endpoint and their
//	          processing time, the NATS connection, tasks by outcome, and
//	          the Go runtime and process
type Probe struct {
	b        *bus.Bus
	ready    atomic.Bool
	tasks    *prometheus.CounterVec
	rejected *prometheus.CounterVec // by reason
	reg      *prometheus.Registry
}

// NewProbe returns the probe of a process on b running roleName ("all"
// for every role).
func NewProbe(b *bus.Bus, roleName string) *Probe {
	o := &Probe{b: b, reg: prometheus.NewRegistry()}
	o.tasks = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "rote_tasks_total", Help: "Deliveries of rote.tasks this planner finished, by outcome (retried: handed back for another attempt; rejected: cannot be done as asked; given_up: no run finished in any attempt).",
	}, []string{"outcome"})
	o.rejected = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "rote_tasks_rejected_total", Help: "Tasks on rote.tasks this planner rejected, by reason (the error code: invalid for one that did not decode or needed a secret it was not given, not_found for an unknown suite task, ...).",
	}, []string{"reason"})
	o.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}), o.tasks, o.rejected,
		&busCollector{b: b, role: roleName})
	return o
}

// TaskDone counts one finished delivery of a task: Config.TaskDone.
func (o *Probe) TaskDone(d planner.TaskDone) {
	outcome := string(d.Outcome)
	switch {
	case d.Retried:
		outcome = "retried"
	case d.Rejected:
		outcome = "rejected"
	case outcome == "":
		outcome = "given_up"
	}
	o.tasks.WithLabelValues(outcome).Inc()
	if d.Rejected && d.Err != nil {
		o.rejected.WithLabelValues(string(schema.AsError(d.Err).Code)).Inc()
	}
}

// Ready says the role's services run: /readyz answers 200 from now on,
// while NATS with JetStream does.
func (o *Probe) Ready() { o.ready.Store(true) }

// Handler serves /healthz, /readyz and /metrics.
func (o *Probe) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		if o.b.Closed() {
			http.Error(w, "the NATS connection is closed", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		if !o.ready.Load() {
			http.Error(w, "the role's services are starting", http.StatusServiceUnavailable)
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		if err := o.b.Health(ctx); err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ready")
	})
	mux.Handle("GET /metrics", promhttp.HandlerFor(o.reg, promhttp.HandlerOpts{}))
	return mux
}

// Serve listens on addr until ctx ends; it returns once it listens.
func (o *Probe) Serve(ctx context.Context, addr string) (net.Addr, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--http %s: %w", addr, err)
	}
	srv := &http.Server{Handler: o.Handler(), ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			l.Close()
		}
	}()
	go func() {
		<-ctx.Done()
		shut, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shut)
	}()
	return l.Addr(), nil
}

// busCollector reads the bus's service statistics and connection state at
// each scrape.
type busCollector struct {
	b    *bus.Bus
	role string
}

var (
	requestsDesc = prometheus.NewDesc("rote_requests_total", "Requests a service endpoint of this process answered.",
		[]string{"role", "service", "endpoint"}, nil)
	processingDesc = prometheus.NewDesc("rote_request_processing_seconds_total", "Time a service endpoint of this process spent answering.",
		[]string{"role", "service", "endpoint"}, nil)
	connectedDesc  = prometheus.NewDesc("rote_nats_connected", "1 while the NATS connection is up.", []string{"role"}, nil)
	reconnectsDesc = prometheus.NewDesc("rote_nats_reconnects_total", "Times the NATS connection was re-established.", []string{"role"}, nil)
)

func (c *busCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- requestsDesc
	ch <- processingDesc
	ch <- connectedDesc
	ch <- reconnectsDesc
}

func (c *busCollector) Collect(ch chan<- prometheus.Metric) {
	for _, s := range c.b.RPC().Stats() {
		for _, e := range s.Endpoints {
			ch <- prometheus.MustNewConstMetric(requestsDesc, prometheus.CounterValue, float64(e.NumRequests), c.role, s.Name, e.Name)
			ch <- prometheus.MustNewConstMetric(processingDesc, prometheus.CounterValue, e.ProcessingTime.Seconds(), c.role, s.Name, e.Name)
		}
	}
	connected := 0.0
	if c.b.Connected() {
		connected = 1
	}
	ch <- prometheus.MustNewConstMetric(connectedDesc, prometheus.GaugeValue, connected, c.role)
	ch <- prometheus.MustNewConstMetric(reconnectsDesc, prometheus.CounterValue, float64(c.b.Reconnects()), c.role)
}
