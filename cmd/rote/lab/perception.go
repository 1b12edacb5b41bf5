package lab

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/rote-agent/rote/bench/report"
	"github.com/rote-agent/rote/bench/wordpress"
	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/schema"
)

// perceptionProbe measures perception on WordPress's posts list (120
// posts, 100 per page): each repetition signs in on a fresh site, opens
// the list, observes it whole, then types in its search box and ticks a
// row, observing the diff after each. Its table is read back from the
// runs' browser.observed events.
type perceptionProbe struct{ runs []string }

// probeListPath is the page the probe measures.
const probeListPath = "/wp-admin/edit.php"

func (p *perceptionProbe) run(bn *bench, rep int) error {
	ctx := bn.ctx
	if err := bn.lab.Site.Reset(ctx, ""); err != nil {
		return err
	}
	runID := bus.NewID()
	s, err := bn.lab.Node.Bus().Browsers().Open(ctx, runID)
	if err != nil {
		return err
	}
	defer s.Close(ctx)
	s.Secrets = map[string]string{"password": wordpress.Password}
	p.runs = append(p.runs, runID)
	posts := wordpress.Posts()
	row := posts[len(posts)-1-(rep%20)] // on the first page: newest first
	base := bn.lab.Site.Base()
	steps := []schema.Action{
		{Kind: schema.ActNavigate, URL: base + "/wp-login.php"},
		{Kind: schema.ActFill, Target: &schema.Target{Role: "textbox", Name: "Username or Email Address"}, Value: wordpress.Username},
		{Kind: schema.ActFill, Target: &schema.Target{Role: "textbox", Name: "Password"}, Value: wordpress.Password},
		{Kind: schema.ActClick, Target: &schema.Target{Role: "button", Name: "Log In"}},
		{Kind: schema.ActNavigate, URL: base + probeListPath},
	}
	for i, a := range steps {
		if err := probeAct(ctx, s, fmt.Sprintf("p%d", i), a); err != nil {
			return err
		}
	}
	if _, err := s.Observe(ctx, "list", false, 0); err != nil {
		return err
	}
	for i, a := range []schema.Action{
		{Kind: schema.ActFill, Target: &schema.Target{Role: "searchbox", Name: "Search Posts:"}, Value: row},
		{Kind: schema.ActCheck, Target: &schema.Target{Role: "checkbox", Name: "Select " + row}},
	} {
		step := fmt.Sprintf("d%d", i)
		if err := probeAct(ctx, s, step, a); err != nil {
			return err
		}
		if _, err := s.Observe(ctx, step, true, 0); err != nil {
			return err
		}
	}
	return nil
}

// probeAct performs one action; a refused one is an error.
func probeAct(ctx context.Context, s *bus.BrowserSession, step string, a schema.Action) error {
	ev, err := s.Act(ctx, step, a)
	if err != nil {
		return err
	}
	if ev.Error != nil {
		return fmt.Errorf("%s: %w", a.Kind, ev.Error)
	}
	return nil
}

// table reads the probe's runs back and measures them.
func (p *perceptionProbe) table(bn *bench) (*report.Perception, error) {
	t := &report.Perception{Page: wordpress.URL + probeListPath, Reps: len(p.runs)}
	var idSets [][]string
	var diffs []int
	for _, id := range p.runs {
		f, err := bn.lab.Node.Bus().Runs().Fold(bn.ctx, id)
		if err != nil {
			return nil, err
		}
		for _, ev := range f.Observations {
			switch {
			case ev.StepID == "list" && ev.Kind == schema.ObservationFull:
				t.DOMElements = append(t.DOMElements, ev.Stats.DOMElements)
				t.Nodes = append(t.Nodes, ev.Stats.Nodes)
				t.Chars = append(t.Chars, ev.Stats.Chars)
				t.Tokens = append(t.Tokens, ev.Stats.Tokens)
				idSets = append(idSets, renderIDs(ev.Render))
			case strings.HasPrefix(ev.StepID, "d") && ev.Kind == schema.ObservationDiff:
				diffs = append(diffs, ev.Stats.Chars)
			case strings.HasPrefix(ev.StepID, "d"):
				return nil, fmt.Errorf("run %s: step %s was observed whole, not as a diff", id, ev.StepID)
			}
		}
	}
	if len(idSets) != len(p.runs) {
		return nil, fmt.Errorf("%d of %d probe runs observed the posts list", len(idSets), len(p.runs))
	}
	t.DiffChars = diffs
	t.IDsVarying = varyingIDs(idSets)
	return t, nil
}

// renderIDs are the element ids of a full render, in order.
func renderIDs(render string) []string {
	var ids []string
	for i, line := range strings.Split(render, "\n") {
		id, _, ok := strings.Cut(line, " ")
		if i == 0 || !ok || id == "" || id == "page" {
			continue
		}
		ids = append(ids, id)
	}
	return ids
}

// varyingIDs counts the ids that some repetition's render has and
// another's lacks: 0 when every repetition gave the page the same ids.
func varyingIDs(sets [][]string) int {
	seen := map[string]int{}
	for _, set := range sets {
		for _, id := range slices.Compact(slices.Sorted(slices.Values(set))) {
			seen[id]++
		}
	}
	n := 0
	for _, c := range seen {
		if c != len(sets) {
			n++
		}
	}
	return n
}
