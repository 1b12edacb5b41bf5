package widgets

import (
	"fmt"
	"strings"
)

// Totals are one server's replays over every kind.
type Totals struct {
	Replays      int     `json:"replays"`
	Doable       int     `json:"doable"` // replays whose task could be done
	Right        int     `json:"right"`
	StoppedRight int     `json:"stopped_right"`
	OverCautious int     `json:"over_cautious"`
	Wrong        int     `json:"wrong"`
	RightShare   float64 `json:"right_share"` // Right / Doable
}

// Summary is the suite's result, its totals and its gate.
type Summary struct {
	Command string             `json:"command"`
	Learn   int                `json:"learn_seed"`
	Seeds   []int              `json:"seeds"`
	Kinds   []KindResult       `json:"kinds"`
	Totals  map[string]*Totals `json:"totals"` // by server
	Gate    string             `json:"gate"`
	Pass    bool               `json:"pass"`
}

// Summarize totals results and checks the gate: no wrong outcome, and at
// least 90% of the replays whose task could be done right, on every
// server.
func Summarize(command string, learn int, seeds []int, results []KindResult) Summary {
	s := Summary{Command: command, Learn: learn, Seeds: seeds, Kinds: results, Totals: map[string]*Totals{}, Pass: true}
	var servers []string
	for _, r := range results {
		t := s.Totals[r.Server]
		if t == nil {
			t = &Totals{}
			s.Totals[r.Server] = t
			servers = append(servers, r.Server)
		}
		t.Replays += len(r.Replays)
		t.Right += r.Count(Right)
		t.StoppedRight += r.Count(StoppedRight)
		t.OverCautious += r.Count(OverCautious)
		t.Wrong += r.Count(Wrong)
		for _, rp := range r.Replays {
			if rp.Doable {
				t.Doable++
			}
		}
	}
	var gate []string
	for _, name := range servers {
		t := s.Totals[name]
		if t.Doable > 0 {
			t.RightShare = float64(t.Right) / float64(t.Doable)
		}
		ok := t.Wrong == 0 && t.RightShare >= 0.9
		s.Pass = s.Pass && ok
		gate = append(gate, fmt.Sprintf("%s: %d wrong, %d of %d doable replays right (%.0f%%) %s", name, t.Wrong, t.Right, t.Doable, 100*t.RightShare, passFail(ok)))
	}
	s.Gate = "gate (0 wrong, at least 90% of doable replays right): " + strings.Join(gate, "; ")
	return s
}

func passFail(ok bool) string {
	if ok {
		return "PASS"
	}
	return "FAIL"
}

// Markdown is the report: one table per server, a row per kind.
func (s Summary) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Widget suite\n\n`%s`\n\nEach kind is learned from one scripted demonstration on seed %d (rote record in front of the server, then rote promote: distill and shadow replay) and replayed by rote replay on seeds %v, each a new instance of its page (other values, options, order and decoys). Outcomes are graded by what the page's server received against the instance's own ground truth. Seeds ending in 2 of the kinds marked * ask for what their page does not offer: stopping there is right. No model is involved: the demonstrations are scripted.\n\n", s.Command, s.Learn, s.Seeds)
	seen := map[string]bool{}
	for _, r := range s.Kinds {
		if seen[r.Server] {
			continue
		}
		seen[r.Server] = true
		t := s.Totals[r.Server]
		fmt.Fprintf(&b, "## %s\n\n| kind | learned | right | stopped, right to | stopped, over-cautious | wrong | why it stopped (first) |\n|---|---|---|---|---|---|---|\n", r.Server)
		for _, k := range s.Kinds {
			if k.Server != r.Server {
				continue
			}
			name := k.Kind
			if kind, ok := Lookup(k.Kind); ok && kind.Refusable {
				name += "*"
			}
			why := k.LearnNote
			if why == "" {
				for _, rp := range k.Replays {
					if rp.Outcome == OverCautious || rp.Outcome == Wrong {
						why = fmt.Sprintf("seed %d: %s", rp.Seed, rp.Note)
						break
					}
				}
			}
			fmt.Fprintf(&b, "| %s | %t | %d | %d | %d | %d | %s |\n", name, k.Learned, k.Count(Right), k.Count(StoppedRight), k.Count(OverCautious), k.Count(Wrong), cell(why))
		}
		fmt.Fprintf(&b, "| **total** | | **%d** | **%d** | **%d** | **%d** | %d of %d doable replays right (%.0f%%) |\n\n", t.Right, t.StoppedRight, t.OverCautious, t.Wrong, t.Right, t.Doable, 100*t.RightShare)
	}
	fmt.Fprintf(&b, "%s\n", s.Gate)
	return b.String()
}

// cell makes text fit a table cell.
func cell(s string) string {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\n", " "), "|", "\\|")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
