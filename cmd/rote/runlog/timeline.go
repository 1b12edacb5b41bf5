package runlog

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/schema"
)

// WriteTimeline prints a run's events one per line, each with its offset
// from the first event, and what they add up to.
func WriteTimeline(w io.Writer, envs []bus.Envelope) {
	var origin time.Time
	if len(envs) > 0 {
		origin = envs[0].Event.EventTime()
	}
	for _, env := range envs {
		offset := env.Event.EventTime().Sub(origin).Seconds()
		fmt.Fprintf(w, "%+9.3fs  %-22s %s\n", offset, shortType(env.Event.EventType()), describeEvent(env.Event))
	}
	events := make([]schema.Event, len(envs))
	for i, env := range envs {
		events[i] = env.Event
	}
	f := schema.Fold(events)
	if steps := f.StepTimes(); len(steps) > 0 {
		writeStepTimes(w, steps)
	}
	if classes := schema.TallyClasses(f.Manifest().Steps); len(classes) > 0 {
		WriteClasses(w, classes)
	}
	fmt.Fprintf(w, "= %s; %d action(s) or tool call(s), %d model call(s), %d tokens, by its events\n", f.Manifest().Outcome, f.Steps(), len(f.LLMCalls), schema.LogicalTokens(f.Usage()))
}

// shortType drops the version suffix: "trajectory.tool_call".
func shortType(t string) string {
	if i := strings.LastIndex(t, ".v"); i > 0 {
		return t[:i]
	}
	return t
}

// describeEvent is the one-line body of a timeline entry.
func describeEvent(ev schema.Event) string {
	switch e := ev.(type) {
	case *schema.TaskRequested:
		return fmt.Sprintf("task %s %q", e.TaskID, e.Task.Label())
	case *schema.RunStarted:
		s := fmt.Sprintf("%s run %s, task %q", e.Mode, e.RunID, e.Task.Label())
		if e.Fingerprint != "" {
			s += ", fingerprint " + schema.ShortFingerprint(e.Fingerprint)
		}
		if e.Playbook != nil {
			s += fmt.Sprintf(", playbook %s v%d", e.Playbook.Name, e.Playbook.Version)
		}
		return s
	case *schema.RunFinished:
		s := fmt.Sprintf("%s after %s", e.Outcome, e.Finished.Sub(e.Started).Round(time.Millisecond))
		if e.Reason != nil {
			s += ": " + e.Reason.Error()
		}
		if n := schema.LogicalTokens(e.Usage); n > 0 {
			s += fmt.Sprintf(", %d tokens", n)
		}
		return s
	case *schema.ToolCall:
		s := fmt.Sprintf("#%d %s %s", e.Seq, e.Tool, e.Duration.Round(time.Microsecond))
		switch {
		case e.Probe:
			s = fmt.Sprintf("#%d %s (probe of step %s's control) %s", e.Seq, e.Tool, e.StepID, e.Duration.Round(time.Microsecond))
		case e.Offered:
			s = fmt.Sprintf("#%d %s (a playbook rote offered, replayed in a run of its own) %s", e.Seq, e.Tool, e.Duration.Round(time.Millisecond))
		}
		switch {
		case e.ArgumentsRef != "":
			s += fmt.Sprintf(", arguments (%s) in blob store", byteSize(e.ArgumentsSize))
		case len(e.Arguments) > 2:
			s += " " + clip(string(e.Arguments), 100) // what the call was, to choose a slice to learn
		}
		if e.ResultDigest != "" {
			s += fmt.Sprintf(" -> %s (%s)", e.ResultDigest[:19], byteSize(e.ResultSize))
		}
		if e.BlobRef != "" {
			s += " in blob store"
		}
		if e.Error != nil {
			s += " error " + e.Error.String()
		}
		for _, ref := range slices.Sorted(maps.Keys(e.Bound)) {
			s += fmt.Sprintf(", {{%s}} = %q", ref, e.Bound[ref])
		}
		return s
	case *schema.Inventory:
		id := e.Environment.Identity
		return fmt.Sprintf("#%d server %s %s, protocol %s, %d tools, fingerprint %s", e.Seq, id.Server,
			e.Environment.Surfaces["server_version"], cmp.Or(e.Protocol, e.Environment.Surfaces["protocol"]), len(e.Environment.Tools), schema.ShortFingerprint(e.Fingerprint))
	case *schema.Unparsed:
		return fmt.Sprintf("#%d %s %s: %s", e.Seq, e.Direction, byteSize(e.Size), e.Reason)
	case *schema.BrowserObserved:
		return fmt.Sprintf("#%d %s %s, %d nodes, %d chars, %d tokens; settle %s, capture %s, distill %s", e.Seq, e.Kind, e.URL, e.Stats.Nodes, e.Stats.Chars, e.Stats.Tokens,
			settleText(e.Stats.Settle, e.Stats.Unsettled, e.Stats.HeldBy), millis(e.Stats.Capture), millis(e.Stats.Distill))
	case *schema.BrowserAction:
		s := fmt.Sprintf("#%d %s", e.Seq, e.Action.Kind)
		if t := e.Action.Target; t != nil {
			switch {
			case t.Name != "" || t.Pick == nil:
				s += fmt.Sprintf(" %s %q", t.Role, t.Name)
			default:
				s += fmt.Sprintf(" %s (a pick)", t.Role)
			}
		}
		s += fmt.Sprintf(" took %s: settle %s, resolve %s, act %s", millis(e.Duration), millis(e.SettleWait), millis(e.Timing.Resolve), millis(e.Timing.Dispatch))
		if e.Timing.Send > 0 {
			s += ", send " + millis(e.Timing.Send)
		}
		if e.Unsettled {
			s += " (went ahead on a page still changing: " + cmp.Or(e.HeldBy, "held by something") + ")"
		}
		switch {
		case e.Picked != "":
			s += ", picked " + e.Picked
		case e.Among != nil:
			s += fmt.Sprintf(", one of %d records", len(e.Among.Records))
		}
		for _, d := range e.Dialogs {
			s += ", dialog: " + d
		}
		if e.Error != nil {
			s += " error " + e.Error.Error()
		}
		return s
	case *schema.LLMCall:
		s := fmt.Sprintf("%s %s uncached=%d cache_read=%d cache_write=%d output=%d", e.Source, e.Model,
			e.Usage.Uncached, e.Usage.CacheRead, e.Usage.CacheWrite, e.Usage.Output)
		if e.Offline {
			s += " [scripted model (offline)]"
		}
		return s
	case *schema.ExpectChecked:
		return fmt.Sprintf("step %s attempt %d: %s %s", e.StepID, e.Attempt, passFail(e.Check.Passed), e.Check.Expect)
	case *schema.VerifyChecked:
		return fmt.Sprintf("%s, %d check(s)", passFail(e.Passed), len(e.Checks))
	case *schema.PlaybookPromoted:
		return fmt.Sprintf("%s v%d promoted", e.Name, e.Version)
	case *schema.PlaybookPatched:
		return fmt.Sprintf("%s v%d -> v%d, step %s: %s", e.Name, e.FromVersion, e.Version, e.StepID, e.Reason)
	case *schema.MemoryChecked:
		if e.Held {
			return fmt.Sprintf("site memory %s %s held (step %s)", e.Kind, e.Name, e.StepID)
		}
		return fmt.Sprintf("site memory %s %s did not hold (step %s): %s; not trusted again until runs show it anew", e.Kind, e.Name, e.StepID, e.Why)
	}
	return ""
}

func passFail(ok bool) string {
	if ok {
		return "PASS"
	}
	return "FAIL"
}

// WriteChecks prints each check on a line of its own after indent:
// "verify PASS text_visible "Saved" (found)".
func WriteChecks(w io.Writer, indent string, checks []schema.Check) {
	for _, c := range checks {
		fmt.Fprintf(w, "%sverify %s %s (%s)\n", indent, passFail(c.Passed), c.Expect, c.Detail)
	}
}

func byteSize(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// writeStepTimes prints where each step of a replay spent its time.
func writeStepTimes(w io.Writer, steps []schema.StepTime) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "  step\twall\tsettle\tresolve\tact\tsend\tcheck\tmodel\trecord\t")
	for _, t := range steps {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", t.StepID, millis(t.Wall), millis(t.Settle), millis(t.Resolve), millis(t.Act), millis(t.Send), millis(t.Check), millis(t.Model), millis(t.Record))
	}
	sum := schema.TotalStepTime(steps)
	fmt.Fprintf(tw, "  whole run\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", millis(sum.Wall), millis(sum.Settle), millis(sum.Resolve), millis(sum.Act), millis(sum.Send), millis(sum.Check), millis(sum.Model), millis(sum.Record))
	tw.Flush()
}

// WriteClasses prints what steps of each class cost: why they ran, the
// model calls and tokens they took, and their wall time.
func WriteClasses(w io.Writer, classes []schema.ClassUsage) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "  class\tsteps\tmodel calls\ttokens\twall\t")
	for _, c := range classes {
		fmt.Fprintf(tw, "  %s\t%d\t%d\t%d\t%s\t\n", cmp.Or(string(c.Class), "unclassed"), c.Steps, c.Calls, c.Tokens.Logical(), millis(c.Wall))
	}
	tw.Flush()
}

// millis is d in whole milliseconds: "42ms".
func millis(d time.Duration) string {
	return fmt.Sprintf("%dms", d.Round(time.Millisecond).Milliseconds())
}

// settleText is a settle wait, and, when it gave up on a page still
// changing, what held it.
func settleText(d time.Duration, unsettled bool, heldBy string) string {
	if unsettled {
		return millis(d) + " (gave up: " + cmp.Or(heldBy, "the page was still changing") + ")"
	}
	return millis(d)
}

// clip is s on one line, at most n characters.
func clip(s string, n int) string {
	return schema.Clip(strings.Join(strings.Fields(s), " "), n)
}
