package matcher

import (
	"regexp"
	"strings"

	"github.com/rote-agent/rote/schema"
)

// Threshold is the least score a match needs: every content word of the
// task must be the intent's, in order. Margin is how far the best
// playbook must lead the next one.
const (
	Threshold = 1.0
	Margin    = 0.05
)

var (
	slotPattern = regexp.MustCompile(`^\{\{([a-z0-9_]+)\}\}$`)
	wordPattern = regexp.MustCompile(`\{\{[a-z0-9_]+\}\}|[\p{L}\p{N}]+`)
)

// stopwords carry no intent: they may differ between phrasings.
var stopwords = map[string]bool{"a": true, "an": true, "the": true, "please": true, "and": true, "then": true, "to": true}

// words are the content words of s, lowercased, slots as {{name}}.
func words(s string) []string {
	var out []string
	for _, w := range wordPattern.FindAllString(strings.ToLower(s), -1) {
		if !stopwords[w] {
			out = append(out, w)
		}
	}
	return out
}

// score compares a slotted task with a templated intent: 2·LCS/(|a|+|b|)
// over their content words (stopwords and punctuation left out), 1 when
// they agree word for word. A task that gives its values as text, not
// slotted, scores 1 when the intent's pattern captures every slot in it.
func score(task, intent string) float64 {
	a, b := words(task), words(intent)
	if len(a)+len(b) == 0 {
		return 0
	}
	s := 2 * float64(lcs(a, b)) / float64(len(a)+len(b))
	if s < 1 && captured(task, intent) != nil {
		return 1
	}
	return s
}

func lcs(a, b []string) int {
	prev := make([]int, len(b)+1)
	for i := range a {
		cur := make([]int, len(b)+1)
		for j := range b {
			if a[i] == b[j] {
				cur[j+1] = prev[j] + 1
			} else {
				cur[j+1] = max(prev[j+1], cur[j])
			}
		}
		prev = cur
	}
	return prev[len(b)]
}

var intentToken = regexp.MustCompile(`\{\{[a-z0-9_]+\}\}|[\p{L}\p{N}]+|\s+|[^\p{L}\p{N}\s]`)

// capture compiles the intent into a case-insensitive pattern whose
// groups capture the slots: its words and punctuation must be the task's,
// whitespace may differ, and a final full stop is optional.
func capture(intent string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString(`(?i)^\s*`)
	seen := map[string]bool{}
	for _, tok := range intentToken.FindAllString(strings.TrimRight(strings.TrimSpace(intent), ".!"), -1) {
		switch m := slotPattern.FindStringSubmatch(tok); {
		case m != nil && !seen[m[1]]:
			b.WriteString(`(?P<` + m[1] + `>.+?)`)
			seen[m[1]] = true
		case m != nil:
			b.WriteString(`(.+?)`)
		case strings.TrimSpace(tok) == "":
			b.WriteString(`\s+`)
		default:
			b.WriteString(regexp.QuoteMeta(tok))
		}
	}
	b.WriteString(`\s*[.!]?\s*$`)
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil
	}
	return re
}

// sentenceBreak in a captured value means the slot swallowed words the
// intent does not have.
var sentenceBreak = regexp.MustCompile(`[.!?;]\s`)

// clauseBreak in a captured value means the slot swallowed a clause of
// its own ("editor and delete user bob", "Berlin, then email the CFO",
// "memo unless it is published"): the task asks for more than the
// playbook does, so it must miss. A value that really holds such a word
// ("Johnson and Johnson") misses too: the cold agent does it, and nothing
// is done wrong.
var clauseBreak = regexp.MustCompile(`(?i)[,;]|\b(and|then|or|but|also|plus|afterwards|after|before|except|unless|if|while|whereas|instead|nor)\b`)

// clauses counts the clause breaks and negations of s: a task with more
// than an intent asks for something of its own.
func clauses(s string) int {
	return len(clauseBreak.FindAllString(s, -1)) + schema.Negations(s) + len(sentenceBreak.FindAllString(s, -1))
}

// wholeIn reports whether v stands in task as whole words and is a
// phrase of its own: no clause or sentence break, at most
// maxCaptureWords words.
func wholeIn(task, v string) bool {
	return !sentenceBreak.MatchString(v) && !clauseBreak.MatchString(v) && len(strings.Fields(v)) <= maxCaptureWords && schema.ContainsWords(task, v)
}

// captured returns the slot values the intent's pattern captures in the
// task text, or nil when it does not fit or a value looks swallowed: a
// sentence or clause break inside, or more than maxCaptureWords words.
func captured(task, intent string) map[string]string {
	re := capture(intent)
	if re == nil {
		return nil
	}
	m := re.FindStringSubmatch(task)
	if m == nil {
		return nil
	}
	out := map[string]string{}
	for i, name := range re.SubexpNames() {
		if name == "" {
			continue
		}
		v := strings.TrimSpace(m[i])
		if v == "" || sentenceBreak.MatchString(v) || clauseBreak.MatchString(v) || len(strings.Fields(v)) > maxCaptureWords {
			return nil
		}
		out[name] = v
	}
	return out
}
