package e2e

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/schema"
)

// TestRecordsPageMetrics measures perception on the portal's 120-row
// records list (100 rows per page): the size of the full render, how
// small diffs are after typical actions, and that ids do not vary over 15
// loads of the page (5 under -short).
func TestRecordsPageMetrics(t *testing.T) {
	t.Parallel()
	b := planes(t)
	base, _ := portalSite(t, "")
	s := loggedIn(t, b, base)

	var first []string
	var stats schema.ObservationStats
	loads := 15
	if testing.Short() {
		loads = 5
	}
	for rep := 0; rep < loads; rep++ {
		act(t, s, schema.Action{Kind: schema.ActNavigate, URL: "/records"})
		obs, err := s.Observe(testContext(t), "", false, 0)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, n := range obs.Observation.Nodes {
			ids = append(ids, n.ID)
		}
		if rep == 0 {
			first, stats = ids, obs.Observation.Stats
			continue
		}
		if !slices.Equal(ids, first) {
			t.Fatalf("load %d: ids differ from the first load", rep+1)
		}
	}
	t.Logf("records page: %d DOM elements, %d distilled nodes (%d actionable), %d characters, %d tokens (o200k) in the full render; ids identical over %d loads",
		stats.DOMElements, stats.Nodes, stats.Actionable, stats.Chars, stats.Tokens, loads)

	// A full observation to diff against, then typical actions.
	if _, err := s.Observe(testContext(t), "", false, 0); err != nil {
		t.Fatal(err)
	}
	actions := []schema.Action{
		{Kind: schema.ActCheck, Target: &schema.Target{Role: "checkbox", Name: "Select Northwind Traders 10"}},
		{Kind: schema.ActCheck, Target: &schema.Target{Role: "checkbox", Name: "Select Summit Analytics 12"}},
		{Kind: schema.ActCheck, Target: &schema.Target{Role: "checkbox", Name: "Select Northwind Traders 10"}, Value: "false"},
		{Kind: schema.ActHover, Target: &schema.Target{Role: "link", Name: "Redwood Logistics 13"}},
		{Kind: schema.ActClick, Target: &schema.Target{Role: "button", Name: "Archive", Near: "Granite Builders 15"}},
	}
	var sizes []int
	for _, a := range actions {
		act(t, s, a)
		obs, err := s.Observe(testContext(t), "", true, 0)
		if err != nil {
			t.Fatal(err)
		}
		if obs.Observation.Kind != schema.ObservationDiff {
			t.Fatalf("after %s: a %s observation, want a diff:\n%.500s", a.Kind, obs.Observation.Kind, obs.Observation.Render)
		}
		sizes = append(sizes, obs.Observation.Stats.Chars)
		t.Logf("after %s %s: %d-character diff: %s", a.Kind, a.Target.Name, obs.Observation.Stats.Chars, strings.ReplaceAll(obs.Observation.Render, "\n", " | "))
	}
	sorted := slices.Clone(sizes)
	slices.Sort(sorted)
	median := sorted[len(sorted)/2]
	t.Logf("median diff after typical actions: %d characters (%v); the full page is %d", median, sizes, stats.Chars)
	if median > 200 {
		t.Fatalf("median diff %d characters: diffs should be a line or two", median)
	}
}

// BenchmarkCaptureDistill measures perception on the records page: one
// capture (DOM snapshot and accessibility tree), distillation, ids and
// render, through the perception service. capture-ms and distill-ms are
// the service's own timings.
func BenchmarkCaptureDistill(b *testing.B) {
	bs := planes(b)
	base, _ := portalSite(b, "")
	s := loggedIn(b, bs, base)
	act(b, s, schema.Action{Kind: schema.ActNavigate, URL: "/records"})
	if _, err := s.Observe(testContext(b), "", false, 0); err != nil {
		b.Fatal(err)
	}
	var capture, distill time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var rep schema.ObserveReply
		if err := bs.RPC().Call(testContext(b), schema.ObserveSubject(bus.Host()), &schema.ObserveRequest{Browser: s.Browser}, &rep); err != nil {
			b.Fatal(err)
		}
		capture += rep.Observation.Stats.Capture
		distill += rep.Observation.Stats.Distill
	}
	b.StopTimer()
	b.ReportMetric(float64(capture.Microseconds())/1000/float64(b.N), "capture-ms")
	b.ReportMetric(float64(distill.Microseconds())/1000/float64(b.N), "distill-ms")
}
