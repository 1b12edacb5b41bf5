package view

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/rote-agent/rote/cmd/rote/runlog"
	"github.com/rote-agent/rote/schema"
)

func Step(w io.Writer, r schema.StepReport) {
	status := "ok  "
	if r.Error != nil {
		status = "FAIL"
	}
	line := fmt.Sprintf("  %s %-16s %d attempt(s) %6.0f ms", status, r.StepID, r.Attempts, MS(r.Duration))
	if n := r.Tokens.Logical(); n > 0 {
		line += fmt.Sprintf(", %d tokens", n)
	}
	if r.Error != nil {
		line += ": " + r.Error.Error()
	}
	fmt.Fprintln(w, line)
}

func ReplayResult(w io.Writer, res *schema.ReplayResult) {
	runlog.WriteChecks(w, "  ", res.Verify)
	calls, tokens := 0, int64(0)
	for _, u := range res.Usage {
		calls += u.Calls
		tokens += u.Tokens.Logical()
	}
	if res.Answer != "" {
		fmt.Fprintf(w, "  answer %s\n", strings.ReplaceAll(res.Answer, "\n", "; "))
	}
	if res.Unsettled > 0 {
		fmt.Fprintf(w, "  note: %d time(s) the page was still changing when the settle wait ran out, and the replay went ahead (rote runs show %s)\n", res.Unsettled, res.RunID)
	}
	switch res.Outcome {
	case schema.OutcomeSuccess:
		fmt.Fprintf(w, "success: verified in %s; %d model call(s), %d tokens; run %s\n", res.Duration.Round(time.Millisecond), calls, tokens, res.RunID)
	case schema.OutcomeFallback:
		fmt.Fprintf(w, "fallback at step %s: %s\n  completed before it (their effects may have happened): %s\n", res.FailedStep, res.Reason, strings.Join(res.Completed, ", "))
		if res.FailedStepActed() {
			fmt.Fprintf(w, "  %s itself acted before its check failed: its effect may have happened too\n", res.FailedStep)
		}
		fmt.Fprintf(w, "  rote replay stops here; rote run --playbook hands over to the agent instead; run %s\n", res.RunID)
	default:
		fmt.Fprintf(w, "failed: %s; run %s\n", res.Reason, res.RunID)
	}
}

// Audit prints a run re-derived from its events beside its manifest:
// outcome, usage, steps by class, and every mismatch.
func Audit(w io.Writer, a *schema.Audit) {
	fmt.Fprintf(w, "run %s: %d events\n", a.RunID, a.Events)
	if a.Recorded != nil {
		fmt.Fprintf(w, "  recorded  outcome %s; %s\n", a.Recorded.Outcome, schema.UsageText(a.Recorded.Usage))
	}
	fmt.Fprintf(w, "  derived   outcome %s; %s\n", a.Outcome, schema.UsageText(a.Usage))
	if len(a.Classes) > 0 {
		fmt.Fprintln(w, "  steps by why they ran (model calls and tokens from the llm.call events):")
		runlog.WriteClasses(w, a.Classes)
	}
	for _, m := range a.Memory {
		fmt.Fprintf(w, "  memory    %s\n", m)
	}
	if a.Offline {
		fmt.Fprintln(w, "  model     the offline scripted test model answered these calls")
	}
	if a.Unsigned {
		fmt.Fprintln(w, "  signatures not checked: this bus has no signing key ($ROTE_SIGNING_KEY, or a NATS URL with user rote and its password), so a forged event would pass")
	}
	for _, m := range a.Mismatches {
		fmt.Fprintf(w, "  MISMATCH  %s\n", m)
	}
	if a.Agrees {
		fmt.Fprintln(w, "  agrees with its manifest")
	}
}
