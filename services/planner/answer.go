package planner

import "strings"

// unfence returns a model's answer without the Markdown code fence many
// models wrap JSON in ("```json\n{...}\n```"): what is inside when the
// whole answer is one fenced block, else the answer as it is.
func unfence(answer string) string {
	s := strings.TrimSpace(answer)
	if !strings.HasPrefix(s, "```") || !strings.HasSuffix(s, "```") || len(s) < 6 {
		return s
	}
	inner := s[3 : len(s)-3]
	if nl := strings.IndexByte(inner, '\n'); nl >= 0 && !strings.ContainsAny(inner[:nl], " {[\"") {
		inner = inner[nl+1:] // the fence's language tag: ```json
	}
	if strings.Contains(inner, "```") {
		return s // more than one block: not one answer
	}
	return strings.TrimSpace(inner)
}
