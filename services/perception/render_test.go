package perception

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/bus/bustest"
	"github.com/rote-agent/rote/schema"
)

func TestRenderDiff(t *testing.T) {
	grounded := &schema.Observation{URL: "http://x/a", Title: "A", Nodes: []schema.ObservedNode{
		{ID: "aaaaaa", Role: "textbox", Name: "Name"}, {ID: "bbbbbb", Role: "button", Name: "Next"}, {ID: "cccccc", Role: "text", Name: "Intro"},
	}}
	now := []schema.ObservedNode{
		{ID: "aaaaaa", Role: "textbox", Name: "Name", Value: "Acme"}, {ID: "bbbbbb", Role: "button", Name: "Next"}, {ID: "dddddd", Role: "alert", Name: "Saved"},
	}
	got := renderDiff(grounded, "http://x/a", "A", now)
	want := "- cccccc\n~ aaaaaa = \"Acme\"\n+ dddddd alert \"Saved\""
	if got != want {
		t.Fatalf("diff:\n%s\nwant:\n%s", got, want)
	}
	if got := renderDiff(grounded, "http://x/a", "A", grounded.Nodes); got != "=" {
		t.Fatalf("no change renders %q", got)
	}
	if got := renderDiff(grounded, "http://x/b", "B", grounded.Nodes); got != `~ page "B" http://x/b` {
		t.Fatalf("navigation renders %q", got)
	}
}

func TestBudgetBootstrapAndCeiling(t *testing.T) {
	many := func(n int, withText bool) []schema.ObservedNode {
		var nodes []schema.ObservedNode
		for i := 0; i < n; i++ {
			nodes = append(nodes, schema.ObservedNode{ID: fmt.Sprintf("b%05d", i), Role: "button", Name: fmt.Sprintf("Action number %d", i)})
			if withText {
				nodes = append(nodes, schema.ObservedNode{ID: fmt.Sprintf("t%05d", i), Role: "text", Name: strings.Repeat("words ", 12)})
			}
		}
		return nodes
	}
	small, boot, err := renderFull("u", "t", many(10, true), 32000)
	if err != nil || boot || !strings.Contains(small, "words") {
		t.Fatalf("small page: boot=%v err=%v", boot, err)
	}
	// Over budget with text, under it without: loose text is dropped first.
	compact, boot, err := renderFull("u", "t", many(300, true), 32000)
	if err != nil || boot || strings.Contains(compact, "words") || runes(compact) > 32000 {
		t.Fatalf("compaction: boot=%v err=%v len=%d", boot, err, runes(compact))
	}
	// Over budget even compacted, under the ceiling: one bootstrap.
	big, boot, err := renderFull("u", "t", many(1500, false), 32000)
	if err != nil || !boot || runes(big) <= 32000 || runes(big) > EmergencyCeiling {
		t.Fatalf("bootstrap: boot=%v err=%v len=%d", boot, err, runes(big))
	}
	// Over the ceiling: a typed error, never a summary.
	_, _, err = renderFull("u", "t", many(5000, false), 32000)
	if !errors.Is(err, schema.ErrTooLarge) {
		t.Fatalf("over the ceiling: %v", err)
	}
}

// TestServiceOverTheBus asks the running service for observations of a
// page that changes, and reads the recorded events back.
func TestServiceOverTheBus(t *testing.T) {
	base := serve(t, map[string]string{"/": formPage, "/frame": framePage})
	p := openPage(t, base+"/")
	b := bustest.Start(t)
	svc, err := New(Config{}, b.RPC(), b.Runs())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- svc.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	<-svc.Ready()

	call := func(req schema.ObserveRequest) schema.Observation {
		t.Helper()
		c, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		var rep schema.ObserveReply
		if err := b.RPC().Call(c, schema.ObserveSubject(bus.Host()), &req, &rep); err != nil {
			t.Fatal(err)
		}
		return rep.Observation
	}
	first := call(schema.ObserveRequest{RunID: "RUN", Seq: 1, Browser: p.ref, Diff: true})
	if first.Kind != schema.ObservationFull || first.Stats.Nodes == 0 || first.Stats.Tokens == 0 || first.Stats.DOMElements == 0 || !strings.Contains(first.Text, "Register a vendor") {
		t.Fatalf("first observation: %s %+v", first.Kind, first.Stats)
	}
	p.run(t, `document.getElementById('co').value = 'Globex'; document.querySelector('[role=status]').textContent = 'Draft saved again'`)
	second := call(schema.ObserveRequest{RunID: "RUN", Seq: 2, Browser: p.ref, Diff: true})
	if second.Kind != schema.ObservationDiff || !strings.Contains(second.Render, `= "Globex"`) || len(second.Render) > 120 {
		t.Fatalf("second observation is not a small diff (%s):\n%s", second.Kind, second.Render)
	}
	if len(second.Nodes) != len(first.Nodes) {
		t.Fatalf("a diff still carries every node: %d vs %d", len(second.Nodes), len(first.Nodes))
	}
	// A new page is a replacement: full again.
	p.navigate(t, base+"/frame")
	third := call(schema.ObserveRequest{RunID: "RUN", Seq: 3, Browser: p.ref, Diff: true})
	if third.Kind != schema.ObservationFull {
		t.Fatalf("after navigation: %s\n%s", third.Kind, third.Render)
	}
	envs, err := b.Runs().ReadRun(context.Background(), "RUN")
	if err != nil || len(envs) != 3 {
		t.Fatalf("recorded %d observations (%v)", len(envs), err)
	}
	if ev := envs[1].Event.(*schema.BrowserObserved); ev.Kind != schema.ObservationDiff || ev.Seq != 2 || ev.Stats.Chars != len([]rune(second.Render)) {
		t.Fatalf("recorded event %+v", ev)
	}
	// Bad requests are typed errors.
	var rep schema.ObserveReply
	if err := b.RPC().Call(context.Background(), schema.ObserveSubject(bus.Host()), &schema.ObserveRequest{}, &rep); !errors.Is(err, schema.ErrInvalid) {
		t.Fatalf("empty request: %v", err)
	}
}

func TestChangedLines(t *testing.T) {
	was := schema.ObservedNode{ID: "k3f9q2", Role: "checkbox", Name: "Gift", States: []string{"required"}}
	for _, c := range []struct {
		now  schema.ObservedNode
		want string
	}{
		{schema.ObservedNode{ID: "k3f9q2", Role: "checkbox", Name: "Gift", States: []string{"checked", "required"}}, `k3f9q2 [checked required]`},
		{schema.ObservedNode{ID: "k3f9q2", Role: "checkbox", Name: "Gift"}, `k3f9q2 []`},
		{schema.ObservedNode{ID: "k3f9q2", Role: "checkbox", Name: "Gift", Value: "x", States: []string{"required"}}, `k3f9q2 = "x"`},
		{schema.ObservedNode{ID: "k3f9q2", Role: "checkbox", Name: "Gift wrap"}, `k3f9q2 checkbox "Gift wrap"`},
	} {
		if got := changed(was, c.now); got != c.want {
			t.Errorf("changed = %q, want %q", got, c.want)
		}
	}
}

// TestLongValuesAndSecrets: a field's value is kept whole for the checks
// and shown cut in the render; a secret longer than the render shows is
// masked whole, not shown cut (masked before the render).
func TestLongValuesAndSecrets(t *testing.T) {
	long := strings.Repeat("Consolidated Widget Manufacturing ", 8)
	secret := strings.Repeat("s3cret-", 40)
	nodes := []schema.ObservedNode{
		{ID: "aaaaaa", Role: "textbox", Name: "Company", Value: long},
		{ID: "bbbbbb", Role: "textbox", Name: "Token", Value: secret},
	}
	schema.MaskNodeSecrets(nodes, map[string]string{"token": secret})
	if nodes[0].Value != long || nodes[1].Value != "{{token}}" {
		t.Fatalf("values %q, %q", nodes[0].Value, nodes[1].Value)
	}
	shown := line(nodes[0])
	if strings.Contains(shown, long) || !strings.Contains(shown, schema.Clip(long, maxTextChars)) {
		t.Fatalf("the render shows %q", shown)
	}
	if shown := line(nodes[1]); strings.Contains(shown, "s3cret") {
		t.Fatalf("the render shows the secret: %q", shown)
	}
}
