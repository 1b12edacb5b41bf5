package report

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rote-agent/rote/bench/stats"
)

// MaxReplayRatio bounds Rote's warm replay against a hand-written
// program doing the same steps: at most 1.5x its median wall time.
const MaxReplayRatio = 1.5

// Phases are the parts of a replay's time the side-by-side reports, in
// the order of schema.StepTime's fields.
var Phases = []string{"settle", "resolve", "act", "send", "check", "model", "record"}

// SideBySide is Rote's warm replays against hand-written programs doing
// the same steps on the same pages, measured in one run, alternating
// which goes first, and against the cold agent doing the same tasks with
// Model.
type SideBySide struct {
	Reps  int        `json:"reps"`
	Model string     `json:"model"`
	Tasks []SideTask `json:"tasks"`
	Gate  stats.Gate `json:"gate"`
}

// SideTask is one task's measurements, in milliseconds, one per
// repetition.
type SideTask struct {
	Task     string    `json:"task"`
	Playbook string    `json:"playbook"`
	Steps    int       `json:"steps"`
	Script   []float64 `json:"script_ms"`
	// ScriptSteps are the script's times without opening its browser
	// context and page, which Rote does before a run asks (a spare page).
	ScriptSteps []float64 `json:"script_steps_ms"`
	Rote        []float64 `json:"rote_ms"`
	// Phases are where each replay's time went, summed over its steps.
	Phases map[string][]float64 `json:"phases_ms"`
	// Cold is the cold agent's wall time doing the task, and ColdModel
	// how much of it went waiting for the model.
	Cold      []float64 `json:"cold_ms"`
	ColdModel []float64 `json:"cold_model_ms"`
}

// ratioOf is the median of a over the median of b; +Inf when b's is 0.
func ratioOf(a, b []float64) float64 {
	m := medianOf(b)
	if m == 0 {
		return math.Inf(1)
	}
	return medianOf(a) / m
}

// Ratio is the median of Rote's times over the median of the script's
// steps (its page already open): the stricter of the two comparisons.
func (t *SideTask) Ratio() float64 { return ratioOf(t.Rote, t.ScriptSteps) }

// WholeRatio is the median of Rote's times over the median of the
// whole script's, its browser context included.
func (t *SideTask) WholeRatio() float64 { return ratioOf(t.Rote, t.Script) }

// Judge sets the gate: every task's ratio at most MaxReplayRatio.
func (s *SideBySide) Judge() {
	worst, which := 0.0, ""
	for i := range s.Tasks {
		if r := s.Tasks[i].Ratio(); r > worst {
			worst, which = r, s.Tasks[i].Task
		}
	}
	s.Gate = stats.AtMost("replay speed", worst, MaxReplayRatio, fmt.Sprintf("the slowest task's median replay over its hand-written program's steps, page open (%s)", which))
}

// medianOf xs (the mean of the middle two for an even count); 0 for none.
func medianOf(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(xs))
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// SpreadOf is "median (min-max)".
func SpreadOf(xs []float64) string {
	if len(xs) == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f (%.0f-%.0f)", medianOf(xs), slices.Min(xs), slices.Max(xs))
}

// Markdown renders the side-by-side tables.
func (s *SideBySide) Markdown(command string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Replay speed, side by side\n\nProduced by `%s`: %d measured repetitions per task (one warm-up before them), each arm on a freshly reset portal after 300 ms at rest, the arms alternating which goes first.\n\n", command, s.Reps)
	b.WriteString("The hand-written arm is a chromedp program per task (cmd/rote/lab/scripts.go): it knows the portal's markup, loads each page before it uses it, waits for the page a submit loads, fills a field with one insertText as Playwright's fill does, waits for a download to finish, and checks the page's words at the end. It runs in a fresh browser context of a running Chromium. The Rote arm replays the playbook learned from one cold run (match skipped: the replay alone), in a fresh browser context of the node's running Chromium, checking every expect and the verify gate. Both arms are judged by the portal's server-side state; a wrong outcome stops the benchmark.\n\n")
	b.WriteString("Rote's wall time is the whole replay as a caller waits for it: opening the session (a spare page the actuator made ready while idle), every step, the verify gate, closing. The hand-written program's is shown whole (its browser context and page opened first) and without that opening: the gate holds Rote's whole replay to the second, the stricter.\n\n")
	b.WriteString("## Wall time, ms: median (min-max)\n\n| Task | Steps | Hand-written chromedp, page open | Hand-written, whole | Rote replay | Rote / hand-written steps | Rote / hand-written whole |\n|---|---|---|---|---|---|---|\n")
	for _, t := range s.Tasks {
		fmt.Fprintf(&b, "| %s (%s) | %d | %s | %s | %s | %.2fx | %.2fx |\n", t.Task, t.Playbook, t.Steps, SpreadOf(t.ScriptSteps), SpreadOf(t.Script), SpreadOf(t.Rote), t.Ratio(), t.WholeRatio())
	}
	fmt.Fprintf(&b, "\n%s\n\n", s.Gate)
	b.WriteString("## Where a replay's time goes, ms: median over repetitions of the sum over steps and the verify gate\n\n| Task | " + strings.Join(Phases, " | ") + " |\n|---|" + strings.Repeat("---|", len(Phases)) + "\n")
	for _, t := range s.Tasks {
		cells := make([]string, len(Phases))
		for i, p := range Phases {
			cells[i] = fmt.Sprintf("%.0f", medianOf(t.Phases[p]))
		}
		fmt.Fprintf(&b, "| %s | %s |\n", t.Task, strings.Join(cells, " | "))
	}
	b.WriteString("\nsettle: the page settling before each action and observation; resolve: finding each target on the page; act: dispatching the actions (a navigation's load included); send: a submitting control's page settling while its send guard watches where it goes; check: observing the page for the expects and the verify gate; model: a slot, judgment or repair step's model calls; record: the rest (the bus, recording events, evaluating checks, a retry's pause before it looks again).\n")
	fmt.Fprintf(&b, "\n## The cold agent on the same tasks, ms: median (min-max)\n\nThe agent planning every step with %s, in the same run, on a freshly reset portal after the same rest. Cold over Rote is what the suites' latency gate measures (there warm also matches the task); cold over the hand-written program is what a replay as fast as that program would reach.\n\n| Task | Cold agent | Of which the model | Cold / Rote replay | Cold / hand-written steps |\n|---|---|---|---|---|\n", s.Model)
	for _, t := range s.Tasks {
		fmt.Fprintf(&b, "| %s | %s | %s | %.2fx | %.2fx |\n", t.Task, SpreadOf(t.Cold), SpreadOf(t.ColdModel), ratioOf(t.Cold, t.Rote), ratioOf(t.Cold, t.ScriptSteps))
	}
	return b.String()
}

// WriteSideBySide puts summary.json and report.md in dir.
func WriteSideBySide(dir string, s *SideBySide, command string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	summary, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "summary.json"), append(summary, '\n'), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "report.md"), []byte(s.Markdown(command)), 0o644)
}
