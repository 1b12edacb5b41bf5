package view

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/rote-agent/rote/cmd/rote/runlog"
	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/services/planner"
)

// AgentStep prints one step of the agent: its source, tokens, time,
// action and result.
func AgentStep(w io.Writer, l planner.StepLog) {
	what := string(l.Action.Kind)
	if t := l.Action.Target; t != nil {
		what += " " + t.Role + " " + strconv.Quote(t.Name)
	}
	switch {
	case l.Action.URL != "":
		what += " " + l.Action.URL
	case l.Action.Value != "":
		what += " = " + strconv.Quote(l.Action.Value)
	case l.Action.Reason != "":
		what += ": " + l.Action.Reason
	}
	source := "planner"
	if l.Tokens.Logical() == 0 {
		source = "-"
	}
	if l.Routine != "" {
		// Rote ran it, or the model called it (that call's tokens).
		what, source = "routine "+l.Routine+" (site memory)", "memory"
		if l.Tokens.Logical() > 0 {
			what, source = "run_routine "+l.Routine+" (site memory)", "planner"
		}
	}
	fmt.Fprintf(w, "  %3d %-8s %6d tok %6.0f ms  %s  [%s]\n", l.N, source, l.Tokens.Logical(), MS(l.Duration), what, l.Result)
}

// SiteCheck is what a suite task's site said of its own state after the
// run: Err is nil when it agrees.
type SiteCheck struct {
	Site, ID string
	Err      error
}

// Outcome prints how a task went: the match, a replay's fallback or
// repair, the verify gate, cost per source, the answer, and the site's
// own check when there is one.
func Outcome(w io.Writer, o *planner.Outcome, label string, site *SiteCheck) {
	if m := o.Match; m != nil {
		if m.Hit {
			fmt.Fprintf(w, "  matched %s (score %.2f, %d candidate(s) in this environment)\n", PlaybookLabel(m.Playbook.Name, m.Playbook.Version), m.Score, m.Candidates)
		} else {
			fmt.Fprintf(w, "  no playbook matched: %s\n", m.Reason)
		}
	}
	mode := "agent"
	switch {
	case o.Replay != nil && o.Agent != nil:
		mode = "replay, then agent fallback"
		fmt.Fprintf(w, "  replay fell back at %s: %v\n  completed before it: %s\n", o.Replay.FailedStep, o.Replay.Reason, strings.Join(o.Replay.Completed, ", "))
		if o.Replay.FailedStepActed() {
			fmt.Fprintf(w, "  %s itself acted before its check failed\n", o.Replay.FailedStep)
		}
	case o.Replay != nil:
		mode = "replay"
	}
	if o.Replay != nil && o.Replay.Patched != nil {
		fmt.Fprintf(w, "  repaired and saved as %s v%d\n", o.Replay.Patched.Name, o.Replay.Patched.Version)
	} else if o.Replay != nil && o.Replay.PatchNote != "" {
		fmt.Fprintf(w, "  %s\n", o.Replay.PatchNote)
	}
	var verify []schema.Check
	if o.Agent != nil {
		verify = o.Agent.Verify
	} else if o.Replay != nil {
		verify = o.Replay.Verify
	}
	runlog.WriteChecks(w, "  ", verify)
	var calls int
	var total schema.TokenUsage
	fmt.Fprintf(w, "summary (%s)\n", label)
	fmt.Fprintf(w, "  mode         %s\n", mode)
	for _, u := range o.Usage {
		calls += u.Calls
		total = total.Plus(u.Tokens)
		fmt.Fprintf(w, "  %-12s %d call(s), %d tokens logical, %.0f cache-adjusted (uncached %d, cache read %d, cache write %d, output %d)\n",
			u.Source, u.Calls, u.Tokens.Logical(), u.Tokens.Adjusted(), u.Tokens.Uncached, u.Tokens.CacheRead, u.Tokens.CacheWrite, u.Tokens.Output)
	}
	fmt.Fprintf(w, "  model calls  %d\n  tokens       %d logical, %.0f cache-adjusted\n  wall time    %s\n", calls, total.Logical(), total.Adjusted(), o.Duration.Round(time.Millisecond))
	fmt.Fprintf(w, "  runs         %s\n", strings.Join(o.Runs(), ", "))
	if a := o.Answer(); a != "" {
		fmt.Fprintf(w, "  answer       %s\n", strings.ReplaceAll(a, "\n", "; "))
	}
	if site != nil {
		if site.Err != nil {
			fmt.Fprintf(w, "  site state FAIL (%s): %v\n", site.Site, site.Err)
		} else {
			fmt.Fprintf(w, "  site state agrees (%s, %s)\n", site.Site, site.ID)
		}
	}
	reason := ""
	if o.Reason != nil {
		reason = ": " + o.Reason.Error()
	}
	fmt.Fprintf(w, "outcome: %s%s\n", o.Outcome, reason)
}

// PlaybookLabel names a playbook and its stored version, or says it came
// from a file.
func PlaybookLabel(name string, version uint64) string {
	if version == 0 {
		return name + " (from a file)"
	}
	return fmt.Sprintf("%s v%d", name, version)
}
