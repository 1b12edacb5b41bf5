package distiller

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/schema/prompt"
)

// A call may write what an earlier call read: a file's text copied to
// another file, or a summary the agent wrote of it. Kept as a constant,
// the replay would write the recorded text whatever the read returns
// then. A copy (the whole text of an earlier result, or a field of its
// JSON) is bound to that result; text the agent wrote from an earlier
// result (most of its words are the result's, yet it is none of its
// values) becomes a slot step: one bounded model call over the result,
// whose answer the call writes.

// minContent is the shortest string taken for a copy of a result: a
// shorter one equal to a result ("ok", "done") is as likely a constant.
const minContent = 8

// contents binds the strings in a call's arguments, as the call passed
// them, that came from an earlier result: copies to outputs, written text
// to slot steps, which it adds before the call's. The task's values are
// the task's; a value that holds {{ or }} and is no copy is refused, as
// a playbook would read it as a template.
func (d *distillation) contents(what, tool string, args map[string]any, producers []producer) (map[string]any, error) {
	out, err := mapStrings(args, "", func(key, x string) (any, error) {
		if _, task := d.b.whole(x); task || d.b.fromTask(x) || strings.HasPrefix(x, "secret:") {
			return x, nil
		}
		if x != "" {
			for i := len(producers) - 1; i >= 0; i-- {
				p := producers[i]
				// What a read returned is a copy however short ("42").
				if p.world.Text == x && (len(x) >= minContent || p.read) {
					return "{{" + d.declare(what, p, schema.Output{Text: true}, x) + "}}", nil
				}
				if len(x) < minContent {
					continue
				}
				// An item of a list is a pick's (pickArgs), not a copy.
				if o, ok := d.jsonOutput(p.world, x); ok && !strings.Contains(o.JSON, "[") {
					return "{{" + d.declare(what, p, o, x) + "}}", nil
				}
			}
		}
		if strings.Contains(x, "{{") || strings.Contains(x, "}}") {
			return nil, schema.Errorf(schema.CodeInvalid, "%s passes %q, which holds {{ or }}: a playbook would read it as a template, and no earlier result returned it to bind it to", what, schema.Clip(x, 60))
		}
		if len(x) < minContent {
			return x, nil
		}
		for i := len(producers) - 1; i >= 0; i-- {
			p := producers[i]
			if !writtenFrom(x, p.world.Text) {
				continue
			}
			id, err := d.slot(what, tool, key, x, p)
			if err != nil {
				return nil, err
			}
			return "{{steps." + id + "}}", nil
		}
		return x, nil
	})
	if err != nil {
		return nil, err
	}
	return out.(map[string]any), nil
}

// writtenFrom reports whether text reads as written from source: it is
// prose (four words or more), and at least three of its words of four
// letters or more, and at least half of them, are source's words.
func writtenFrom(text, source string) bool {
	if len(strings.Fields(text)) < 4 {
		return false
	}
	have := map[string]bool{}
	for _, w := range longWords(source) {
		have[w] = true
	}
	words := longWords(text)
	shared := 0
	for _, w := range words {
		if have[w] {
			shared++
		}
	}
	return shared >= 3 && 2*shared >= len(words)
}

// longWords lists the distinct words of s of four letters or more, in
// lower case.
func longWords(s string) []string {
	seen := map[string]bool{}
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if len([]rune(w)) >= 4 && !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// slot adds the slot step that writes x, the key argument of a call,
// from p's result as the task asks, with a token budget twice what x
// took, and returns its id. Text too long for one slot's budget is
// refused.
func (d *distillation) slot(what, tool, key, x string, p producer) (string, error) {
	budget := len(x) / 2 // about twice its tokens, at four bytes a token
	if budget > schema.MaxSlotTokens {
		return "", schema.Errorf(schema.CodeTooLarge, "%s writes %d bytes that the agent wrote from %s's result: more than one slot step may answer (%d tokens); learn a shorter one", what, len(x), p.what, schema.MaxSlotTokens)
	}
	text, _ := d.output(p, schema.Output{Text: true})
	ask := fmt.Sprintf("%s%s\n\nWrite the %s argument of the call to %s that does this task, from the result below. Answer with that text alone.\n\n%s\n{{%s}}", prompt.Task, d.b.intent(), key, tool, prompt.Result, text)
	step := schema.Step{ID: slug(key+" for "+tool, 40), Kind: schema.StepSlot, Prompt: ask, MaxTokens: max(64, budget)}
	d.note("%s writes %q, which the agent wrote from %s's result: a slot step (%d tokens at most) writes it at replay", what, schema.Clip(x, 60), p.what, step.MaxTokens)
	d.add(step)
	return d.last, nil
}
