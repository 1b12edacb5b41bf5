package suite

import (
	"errors"
	"strings"

	"github.com/rote-agent/rote/bench/scripted"
	"github.com/rote-agent/rote/schema/prompt"
)

// The slot steps the distiller writes ask for text composed from a
// result shown after "Result:" (a summary of a file that was read). The
// oracle answers as a terse model would, from that text alone: Summary
// of it.

// slot answers a slot prompt that shows a result.
func slot(r *reading) (scripted.Answer, error) {
	_, result, ok := strings.Cut(r.question, prompt.Result)
	if !ok || strings.TrimSpace(result) == "" {
		return scripted.Answer{}, errors.New("no suite task asks for a slot value without a result to write from")
	}
	return scripted.Answer{Content: Summary(result)}, nil
}

// Summary is the stand-in model's summary of text: "Summary: " and its
// first sentence, white space collapsed, at most 200 bytes.
func Summary(text string) string {
	s := strings.Join(strings.Fields(text), " ")
	if i := strings.Index(s, ". "); i >= 0 {
		s = s[:i+1]
	}
	if len(s) > 200 {
		s = s[:200]
	}
	return "Summary: " + s
}
