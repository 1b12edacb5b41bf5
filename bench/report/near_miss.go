package report

import (
	"fmt"
	"strings"

	"github.com/rote-agent/rote/bench/stats"
)

// NearMiss is a task said almost as a learned one is but asking for
// something else, sent to the matcher once that task's playbook is
// stored: it must miss.
type NearMiss struct {
	Task     string `json:"task"` // the learned task it is near
	Text     string `json:"text"`
	Hit      bool   `json:"hit"`
	Playbook string `json:"playbook,omitempty"` // what a hit matched
	Reason   string `json:"reason,omitempty"`   // why it missed
	Tokens   int64  `json:"matcher_tokens"`     // a model call's, when the matcher made one
}

// AddNearMisses records the near misses probed and counts every one the
// matcher sent to a playbook in the false_matches gate.
func (s *Summary) AddNearMisses(ms []NearMiss) {
	s.NearMisses = append(s.NearMisses, ms...)
	hits := 0
	for _, m := range s.NearMisses {
		if m.Hit {
			hits++
		}
	}
	runs := 0
	for _, t := range s.Tasks {
		runs += t.FalseMatches
	}
	s.Gates["false_matches"] = stats.Exactly("false_matches", float64(runs+hits), 0,
		fmt.Sprintf("warm runs matched to a playbook of another task, and near misses matched (%d of %d)", hits, len(s.NearMisses)))
}

// nearMissMarkdown is the table of the near misses probed.
func (s *Summary) nearMissMarkdown() string {
	if len(s.NearMisses) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n## Near misses\n\nEach sent to the matcher (deterministic match, then at most one bounded model call) after the task it is near was learned; a hit counts in `false_matches`.\n\n| Near | Task | Matched | Matcher tokens |\n|---|---|---|---|\n")
	for _, m := range s.NearMisses {
		matched := "no"
		if m.Hit {
			matched = "**" + m.Playbook + "**"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %d |\n", m.Task, strings.ReplaceAll(m.Text, "|", "\\|"), matched, m.Tokens)
	}
	return b.String()
}
