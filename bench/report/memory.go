package report

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/rote-agent/rote/bench/stats"
	"github.com/rote-agent/rote/schema"
)

// The site memory suite's arms: the same new kind of task on a store
// that knows nothing of the site, and on one that has learned other
// kinds of task there (playbooks, and the site memory drawn from them).
const (
	Fresh   Arm = "fresh"
	Learned Arm = "learned"
)

// MinMemorySaving is the least share of model calls, and of tokens, the
// learned store must save over the fresh one on the suite's tasks.
const MinMemorySaving = 0.30

// MemoryArm is one arm of one task over its repetitions.
type MemoryArm struct {
	Runs   int     `json:"runs"`
	Calls  float64 `json:"mean_model_calls"`
	Tokens float64 `json:"mean_logical_tokens"`
	// Adjusted are the mean cache-adjusted tokens (a cached prompt token
	// at its discount): the site brief sits in the cached prefix.
	Adjusted  float64 `json:"mean_adjusted_tokens"`
	WallMS    float64 `json:"median_wall_ms"`
	Successes int     `json:"successes"`
	// Wrong are runs whose own verdict was success and the site's state
	// disagrees, or that matched another task's playbook.
	Wrong   int                 `json:"wrong"`
	Classes []schema.ClassUsage `json:"classes,omitempty"`
}

// MemoryTask is one task of the suite, both arms.
type MemoryTask struct {
	Task    string    `json:"task"`
	Fresh   MemoryArm `json:"fresh"`
	Learned MemoryArm `json:"learned"`
}

// CallSaving is the share of model calls the learned store saved.
func (t MemoryTask) CallSaving() float64 { return saving(t.Fresh.Calls, t.Learned.Calls) }

// TokenSaving is the share of logical tokens the learned store saved.
func (t MemoryTask) TokenSaving() float64 { return saving(t.Fresh.Tokens, t.Learned.Tokens) }

func saving(fresh, learned float64) float64 {
	if fresh == 0 {
		return 0
	}
	return 1 - learned/fresh
}

// MemoryDrift is one run where a page site memory knows has changed:
// what the memory item did (held, not run, stopped), and the outcome on
// the site's own state.
type MemoryDrift struct {
	Task    string `json:"task"`
	Variant string `json:"variant"`
	// Memory is what site memory did in the run, in words.
	Memory  string `json:"memory"`
	Outcome string `json:"outcome"`
	Success bool   `json:"success"`
	Wrong   bool   `json:"wrong"`
	Calls   int    `json:"model_calls"`
}

// MemorySummary is the site memory suite's outcome.
type MemorySummary struct {
	Model   string                `json:"model"`
	Reps    int                   `json:"reps"`
	Learned []string              `json:"learned"` // the tasks the learned store learned first
	Tasks   []MemoryTask          `json:"tasks"`
	Total   MemoryTask            `json:"total"`
	Drifts  []MemoryDrift         `json:"drifts"`
	Gates   map[string]stats.Gate `json:"gates"`
	// Memory is `rote memory show` of the site after the suite.
	Memory string `json:"memory"`
}

// MemoryGateNames are the suite's gates in report order.
var MemoryGateNames = []string{"call_saving", "token_saving", "success_parity", "wrong_outcomes"}

// SummarizeMemory folds the results of the two arms, by task, and the
// drift runs into the summary and its gates.
func SummarizeMemory(results []Result, drifts []MemoryDrift, learned []string, reps int, model string) *MemorySummary {
	s := &MemorySummary{Model: model, Reps: reps, Learned: learned, Drifts: drifts}
	byTask := map[string]map[Arm][]Result{}
	for _, r := range results {
		if byTask[r.Task] == nil {
			byTask[r.Task] = map[Arm][]Result{}
		}
		byTask[r.Task][r.Arm] = append(byTask[r.Task][r.Arm], r)
	}
	all := map[Arm][]Result{}
	for _, id := range slices.Sorted(maps.Keys(byTask)) {
		s.Tasks = append(s.Tasks, MemoryTask{Task: id, Fresh: memoryArm(byTask[id][Fresh]), Learned: memoryArm(byTask[id][Learned])})
		all[Fresh] = append(all[Fresh], byTask[id][Fresh]...)
		all[Learned] = append(all[Learned], byTask[id][Learned]...)
	}
	s.Total = MemoryTask{Task: "all", Fresh: memoryArm(all[Fresh]), Learned: memoryArm(all[Learned])}
	wrong := s.Total.Fresh.Wrong + s.Total.Learned.Wrong
	for _, d := range drifts {
		if d.Wrong {
			wrong++
		}
	}
	f, l := s.Total.Fresh, s.Total.Learned
	s.Gates = map[string]stats.Gate{
		"call_saving": stats.AtLeast("call_saving", s.Total.CallSaving(), MinMemorySaving,
			fmt.Sprintf("mean model calls %.2f fresh, %.2f learned", f.Calls, l.Calls)),
		"token_saving": stats.AtLeast("token_saving", s.Total.TokenSaving(), MinMemorySaving,
			fmt.Sprintf("mean logical tokens %.0f fresh, %.0f learned", f.Tokens, l.Tokens)),
		"success_parity": stats.Exactly("success_parity", float64(max(0, f.Successes-l.Successes)), 0,
			fmt.Sprintf("%d of %d fresh, %d of %d learned", f.Successes, f.Runs, l.Successes, l.Runs)),
		"wrong_outcomes": stats.Exactly("wrong_outcomes", float64(wrong), 0, "over both arms and the drift runs"),
	}
	return s
}

func memoryArm(rs []Result) MemoryArm {
	a := MemoryArm{Runs: len(rs)}
	if len(rs) == 0 {
		return a
	}
	walls := make([]float64, len(rs))
	for i, r := range rs {
		a.Calls += float64(r.Calls)
		a.Tokens += float64(r.Logical)
		a.Adjusted += r.Adjusted
		walls[i] = r.WallMS
		if r.Success {
			a.Successes++
		}
		if r.Verified && !r.Success || r.FalseMatch {
			a.Wrong++
		}
		a.Classes = schema.MergeClasses(a.Classes, r.Classes)
	}
	a.Calls /= float64(len(rs))
	a.Tokens /= float64(len(rs))
	a.Adjusted /= float64(len(rs))
	slices.Sort(walls)
	a.WallMS = walls[len(walls)/2]
	return a
}

// Pass reports whether every gate passed.
func (s *MemorySummary) Pass() bool {
	for _, g := range s.Gates {
		if !g.Pass {
			return false
		}
	}
	return len(s.Gates) > 0
}

// Markdown renders the summary as the report.
func (s *MemorySummary) Markdown(command string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Site memory suite\n\n`%s`\n\nModel: %s. ", command, s.Model)
	fmt.Fprintf(&b, "Each task is a kind of task no other suite asks, on the fixture portal, run %d times on each of two stores: "+
		"**fresh**, which knows nothing of the site (no playbook to match, no site memory: the agent plans every step), and **learned**, "+
		"which has learned %s first (a cold run of each, distilled, shadow-replayed and promoted; promotion also draws the site's memory: routines, transitions, brief). "+
		"The learned arm is Rote as a user runs it: the matcher (which must miss: no playbook does these tasks), then the agent with the site's memory. "+
		"Success is the portal's own state, never a run's self-report; a wrong outcome is a run that called itself done while the state disagrees, or a match to another task's playbook. "+
		"Every number is read back from ROTE_RUNS.\n\n", s.Reps, strings.Join(s.Learned, ", "))
	b.WriteString("The cold agent here is the labelled offline model (DESIGN.md): it plans each step from the page by a fixed policy, so the savings below count the model calls site memory made unnecessary (a routine run whole with no model, a binding call the matcher no longer needs), not a model's changed choices. With a hosted model the brief may also shorten exploration; that is not measured here.\n\n")
	gateTable(&b, MemoryGateNames, s.Gates)
	b.WriteString("\n## Tasks\n\n| Task | Fresh calls | Learned calls | Calls saved | Fresh tokens | Learned tokens | Tokens saved | Cache-adjusted saved | Fresh wall (median ms) | Learned wall | Success fresh | Success learned | Wrong |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, t := range append(slices.Clone(s.Tasks), s.Total) {
		name := t.Task
		if name == "all" {
			name = "**all**"
		}
		fmt.Fprintf(&b, "| %s | %.2f | %.2f | %.0f%% | %.0f | %.0f | %.0f%% | %.0f%% | %.0f | %.0f | %d/%d | %d/%d | %d |\n", name,
			t.Fresh.Calls, t.Learned.Calls, 100*t.CallSaving(), t.Fresh.Tokens, t.Learned.Tokens, 100*t.TokenSaving(), 100*saving(t.Fresh.Adjusted, t.Learned.Adjusted),
			t.Fresh.WallMS, t.Learned.WallMS, t.Fresh.Successes, t.Fresh.Runs, t.Learned.Successes, t.Learned.Runs, t.Fresh.Wrong+t.Learned.Wrong)
	}
	b.WriteString("\n## Steps by why they ran (all tasks, all repetitions)\n\n| Arm | Class | Steps | Model calls | Logical tokens |\n|---|---|---|---|---|\n")
	for _, arm := range []struct {
		name string
		a    MemoryArm
	}{{"fresh", s.Total.Fresh}, {"learned", s.Total.Learned}} {
		for _, c := range arm.a.Classes {
			fmt.Fprintf(&b, "| %s | %s | %d | %d | %d |\n", arm.name, cmp.Or(string(c.Class), "(unclassed)"), c.Steps, c.Calls, c.Tokens.Logical())
		}
	}
	b.WriteString("\n## The trust gate: pages site memory knows, changed\n\nRun on the learned store after the repetitions, in this order (a routine found not to hold stays out until newer runs show it anew).\n\n| Task | Variant | What site memory did | Outcome | Success (portal state) | Wrong | Model calls |\n|---|---|---|---|---|---|---|\n")
	for _, d := range s.Drifts {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %t | %t | %d |\n", d.Task, d.Variant, d.Memory, d.Outcome, d.Success, d.Wrong, d.Calls)
	}
	if s.Memory != "" {
		fmt.Fprintf(&b, "\n## `rote memory show` after the suite\n\n```\n%s```\n", s.Memory)
	}
	return b.String()
}

// WriteMemory puts results.jsonl, summary.json and report.md of the site
// memory suite in dir.
func WriteMemory(dir string, results []Result, s *MemorySummary, command string) error {
	summary, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return writeFiles(dir, results, map[string][]byte{"summary.json": append(summary, '\n'), "report.md": []byte(s.Markdown(command))})
}
