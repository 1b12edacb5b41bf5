package suite

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/rote-agent/rote/bench/scripted"
	"github.com/rote-agent/rote/schema/prompt"
	"github.com/rote-agent/rote/schema/tools"
)

// reading is what an oracle makes of a request's text.
type reading struct {
	task     string
	params   map[string]string
	ledger   []prompt.LedgerEntry
	page     Page
	pageText string // the page section as sent
	hasPage  bool
	question string
	options  []string
	failed   string // a repair request's step id
	failure  string
	stepText string   // the failed step as shown
	choices  []string // the intents a choose request offers, in order
	tools    []string // the tools offered
	// routines are the site brief's routines, what each does by name.
	routines map[string]string
}

// read collects the sections of every message of req.
func read(req scripted.Request) reading {
	r := reading{params: map[string]string{}, tools: req.Tools, routines: map[string]string{}}
	for _, m := range req.Messages {
		r.section(m.Content)
	}
	return r
}

func (r *reading) section(text string) {
	full, changes, hasChanges := strings.Cut(text, prompt.Changes)
	if body, ok := cutLine(full, prompt.Page); ok {
		r.page, r.pageText, r.hasPage = parsePage(body), body, true
		if hasChanges {
			r.page = r.page.apply(strings.TrimSpace(changes))
		}
		full = full[:strings.Index(full, prompt.Page)]
	}
	lines := strings.Split(full, "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		switch {
		case strings.HasPrefix(l, prompt.Task):
			r.task = strings.TrimPrefix(l, prompt.Task)
		case l == prompt.Params:
			for i+1 < len(lines) && strings.HasPrefix(lines[i+1], "- ") {
				i++
				k, v, _ := strings.Cut(strings.TrimPrefix(lines[i], "- "), ": ")
				r.params[k] = v
			}
		case strings.HasPrefix(l, prompt.Steps):
			for i+1 < len(lines) && strings.HasPrefix(lines[i+1], "{") {
				i++
				var e prompt.LedgerEntry
				if json.Unmarshal([]byte(lines[i]), &e) == nil {
					r.ledger = append(r.ledger, e)
				}
			}
		case strings.HasPrefix(l, prompt.Question):
			r.question = strings.TrimPrefix(l, prompt.Question)
		case strings.HasPrefix(l, prompt.Options):
			r.options = strings.Split(strings.TrimPrefix(l, prompt.Options), " | ")
		case strings.HasPrefix(l, prompt.Failed):
			r.failed = strings.TrimPrefix(l, prompt.Failed)
			for i+1 < len(lines) && strings.HasPrefix(lines[i+1], "  ") {
				i++
				r.stepText += strings.TrimSpace(lines[i]) + "\n"
			}
		case strings.HasPrefix(l, prompt.Failure):
			r.failure = strings.TrimPrefix(l, prompt.Failure)
		case strings.HasPrefix(l, prompt.Routines+" "):
			for i+1 < len(lines) && strings.HasPrefix(lines[i+1], "- ") {
				i++
				head, does, _ := strings.Cut(strings.TrimPrefix(lines[i], "- "), ": ")
				name, _, _ := strings.Cut(head, "(")
				r.routines[name] = does
			}
		case l == prompt.Choices:
			for i+1 < len(lines) && strings.Contains(lines[i+1], ". ") {
				i++
				_, intent, _ := strings.Cut(lines[i], ". ")
				r.choices = append(r.choices, intent)
			}
		}
	}
}

// cutLine returns what follows the line heading in text.
func cutLine(text, heading string) (string, bool) {
	i := strings.Index(text, heading)
	if i < 0 || (i > 0 && text[i-1] != '\n') {
		return "", false
	}
	return strings.TrimPrefix(text[i+len(heading):], "\n"), true
}

// stepField returns the value of "key: value" in a failed step's text.
func (r *reading) stepField(key string) string {
	for _, l := range strings.Split(r.stepText, "\n") {
		if v, ok := strings.CutPrefix(l, key+": "); ok {
			return v
		}
	}
	return ""
}

// routine is the name of the offered routine that does what does says,
// when the model may run routines.
func (r *reading) routine(does string) (string, bool) {
	if !slices.Contains(r.tools, tools.RunRoutine) {
		return "", false
	}
	for name, d := range r.routines {
		if d == does {
			return name, true
		}
	}
	return "", false
}
