package report

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/rote-agent/rote/bench/stats"
)

// Write puts results.jsonl, summary.json and report.md in dir. command is
// the command line that produced them, quoted in the report.
func Write(dir string, results []Result, s *Summary, command string) error {
	summary, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := Plot(dir, results, s); err != nil {
		return err
	}
	return writeFiles(dir, results, map[string][]byte{"summary.json": append(summary, '\n'), "report.md": []byte(Markdown(s, command))})
}

// writeFiles puts results.jsonl (a result a line) and files in dir.
func writeFiles(dir string, results []Result, files map[string][]byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var jsonl bytes.Buffer
	for _, r := range results {
		line, err := json.Marshal(r)
		if err != nil {
			return err
		}
		jsonl.Write(line)
		jsonl.WriteByte('\n')
	}
	files["results.jsonl"] = jsonl.Bytes()
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// gateTable writes the gates named names as the report's Gates section.
func gateTable(b *strings.Builder, names []string, gates map[string]stats.Gate) {
	b.WriteString("## Gates\n\n| Gate | Value | Bound | Verdict | How |\n|---|---|---|---|---|\n")
	for _, name := range names {
		g := gates[name]
		verdict := "PASS"
		if !g.Pass {
			verdict = "**FAIL**"
		}
		fmt.Fprintf(b, "| %s | %.4g | %.4g | %s | %s |\n", name, g.Value, g.Bound, verdict, g.Detail)
	}
}

// Markdown renders the summary as the report's tables.
func Markdown(s *Summary, command string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Rote benchmark\n\nProduced by `%s` (seed %d, %d repetitions per task).\n\nModel: %s.\n\n", command, s.Seed, s.Reps, s.Model)
	verifier := "the fixture portal's server-side state"
	if s.Suite == "wordpress" {
		verifier = "SQL against WordPress's database"
	}
	fmt.Fprintf(&b, "Suite: %s. Cold is the agent planning every step, measured on its second run of the same task instance so that the provider cache is warm; warm is Rote: match, bind, replay, and whatever the drift ladder did. Success is %s, never a run's self-report. Every number was read back from ROTE_RUNS.\n\n", s.Suite, verifier)
	gateTable(&b, GateNames, s.Gates)
	sp := s.Speed
	fmt.Fprintf(&b, "\nWhere the wall time went, over the pairs the latency gate counts: the cold agent made %d model calls and waited %.1f s for them, and spent %.1f s on everything else (browser, site, Rote); Rote warm made %d calls, waited %.1f s, and spent %.1f s on the rest. With the model answering at once, cold/warm would be %.2f; the latency gate holds once a model call takes %.0f ms on average.\n",
		sp.ColdCalls, sp.ColdModelMS/1000, sp.ColdOtherMS/1000, sp.WarmCalls, sp.WarmModelMS/1000, sp.WarmOtherMS/1000, sp.InstantRatio, sp.BreakEvenCallMS)
	b.WriteString("\n## Tasks\n\n| Task | Pairs | Success cold / warm | Tokens cold / warm (mean) | Token reduction [95% CI] | Cache-adjusted reduction | Calls cold / warm | Wall ms cold / warm | Speedup [95% CI] | False matches | Drift recovered | Repair / cold | Miss overhead | Observation share |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	tasks := s.TaskNames()
	for _, name := range tasks {
		t := s.Tasks[name]
		label := name
		if t.MustMiss {
			label += " (must miss)"
		}
		drift := "-"
		if t.Drifted > 0 {
			drift = fmt.Sprintf("%d / %d", t.Recovered, t.Drifted)
		}
		fmt.Fprintf(&b, "| %s | %d | %d / %d | %.0f / %.0f | %.4f [%.4f, %.4f] | %.4f | %.1f / %.1f | %.0f / %.0f | %.2f [%.2f, %.2f] | %d | %s | %.4f | %.4f | %.3f |\n",
			label, t.Pairs, t.ColdSuccess, t.WarmSuccess, t.ColdTokens, t.WarmTokens,
			t.TokenReduction.Value, t.TokenReduction.Low, t.TokenReduction.High, t.AdjustedReduction.Value,
			t.ColdCalls, t.WarmCalls, t.ColdWallMS, t.WarmWallMS, t.Speedup.Value, t.Speedup.Low, t.Speedup.High,
			t.FalseMatches, drift, t.RepairCost, t.MissOverhead, t.ObservationShare)
	}
	b.WriteString(s.classMarkdown())
	b.WriteString(s.nearMissMarkdown())
	b.WriteString("\nResamples: 10,000 per interval (percentile bootstrap over repetitions, cold and warm of a repetition resampled together).\n")
	b.WriteString("\n## Plots\n\n![Tokens per task](tokens-per-task.svg)\n\n![Cumulative tokens over steps](cumulative-tokens.svg)\n\nBoth also as PNG.\n")
	if s.Perception != nil {
		b.WriteString("\n" + s.Perception.markdown())
	}
	return b.String()
}

// classMarkdown is the table of every run's steps by why they ran: a
// playbook's steps, site memory's, the model's, and what drift cost.
func (s *Summary) classMarkdown() string {
	var b strings.Builder
	b.WriteString("\n## Steps by why they ran\n\n| Arm | Class | Steps | Model calls | Tokens | Wall s |\n|---|---|---|---|---|---|\n")
	for _, arm := range []Arm{Cold, Warm} {
		for _, c := range s.Classes[arm] {
			fmt.Fprintf(&b, "| %s | %s | %d | %d | %d | %.1f |\n", arm, cmp.Or(string(c.Class), "unclassed"), c.Steps, c.Calls, c.Tokens.Logical(), c.Wall.Seconds())
		}
	}
	return b.String()
}
