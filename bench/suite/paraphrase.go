package suite

import (
	"encoding/json"
	"regexp"
	"strings"

	"github.com/rote-agent/rote/bench/scripted"
)

// synonyms stand in for a model's reading of other words: the words a
// task may use for a word of an intent. The offline model reads a task
// as one of the offered intents only through them, in the intent's
// order; a real model reads far more freely, and the paraphrase hit rate
// measured with this one is a floor.
var synonyms = map[string][]string{
	"create":     {"add", "make", "set up", "open"},
	"register":   {"add", "onboard", "enrol", "enroll", "sign up"},
	"download":   {"fetch", "get", "grab", "pull"},
	"latest":     {"newest", "most recent", "last", "current"},
	"sign":       {"log"},
	"named":      {"called"},
	"trash":      {"bin", "move to the trash", "remove"},
	"user":       {"account"},
	"vendor":     {"supplier"},
	"search":     {"look up", "query"},
	"catalog":    {"catalogue", "shop"},
	"report":     {"list", "give", "tell me"},
	"results":    {"hits", "matches", "items"},
	"file":       {"put", "classify"},
	"operations": {"ops"},
}

// fillers are words a task may add or leave out anywhere.
const fillers = `(?:(?:a|an|the|please|for me)\W+)*`

var intentWord = regexp.MustCompile(`\{\{[a-z0-9_]+\}\}|[\p{L}\p{N}]+`)

// otherWords compiles an intent into the pattern of the tasks that say it
// in other words: each of its words or one of its synonyms, in order,
// fillers anywhere, a slot any phrase.
func otherWords(intent string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString(`(?i)^\W*`)
	for _, tok := range intentWord.FindAllString(intent, -1) {
		b.WriteString(fillers)
		if name, ok := strings.CutPrefix(tok, "{{"); ok {
			b.WriteString(`(?P<` + strings.TrimSuffix(name, "}}") + `>.+?)\W+`)
			continue
		}
		w := strings.ToLower(tok)
		if w == "a" || w == "an" || w == "the" {
			continue
		}
		alts := []string{regexp.QuoteMeta(w)}
		for _, s := range synonyms[w] {
			alts = append(alts, strings.ReplaceAll(regexp.QuoteMeta(s), " ", `\W+`))
		}
		b.WriteString(`(?:` + strings.Join(alts, "|") + `)\W+`)
	}
	re, err := regexp.Compile(strings.TrimSuffix(b.String(), `\W+`) + `\W*$`)
	if err != nil {
		return nil
	}
	return re
}

// chooseIntent answers a choose request: the one offered intent the task
// says in other words, with the slots' values as the task writes them,
// or none.
func chooseIntent(r *reading) (scripted.Answer, error) {
	choice, values := 0, map[string]string{}
	for i, intent := range r.choices {
		re := otherWords(intent)
		if re == nil {
			continue
		}
		m := re.FindStringSubmatch(r.task + " ")
		if m == nil {
			continue
		}
		if choice != 0 {
			choice = 0 // two fit: it cannot tell
			break
		}
		choice = i + 1
		for k, name := range re.SubexpNames() {
			if name != "" {
				values[name] = strings.TrimSpace(m[k])
			}
		}
	}
	data, _ := json.Marshal(map[string]any{"choice": choice, "values": values})
	return scripted.Answer{Content: string(data)}, nil
}
