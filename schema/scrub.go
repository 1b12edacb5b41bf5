package schema

import (
	"maps"
	"slices"
)

// Scrub replaces, in text that is about to be stored (a tool result, a
// line the recorder could not parse), every declared secret value of at
// least minSecretSubstring characters by its digest, in every form
// secretForms names: in clear or in another case, URL-encoded, in base64
// (at any alignment inside a longer run), hex, HTML entities, JSON
// escapes, or two of these in a row. It reports whether it replaced
// anything; text is not modified. The digest is letters, digits and a
// colon, so valid JSON stays valid.
func (r Redactor) Scrub(text []byte) ([]byte, bool) {
	var values, digests []string
	for _, v := range r.Values {
		if len(v) >= minSecretSubstring {
			values = append(values, v)
			digests = append(digests, r.Digest(v))
		}
	}
	if len(values) == 0 {
		return text, false
	}
	return matcherFor(values).replace(text, func(i int) []byte { return []byte(digests[i]) })
}

// ScrubString is Scrub for a string.
func (r Redactor) ScrubString(s string) string {
	out, _ := r.Scrub([]byte(s))
	return string(out)
}

// MaskSecrets replaces in s every value of secrets (name to value), in
// clear or in any form Scrub finds, by {{name}}: what the planner and the
// run log see of a page where a secret was typed or shown. Values shorter
// than minSecretSubstring are replaced only when they are all of s.
func MaskSecrets(s string, secrets map[string]string) string {
	var names, values []string
	for _, name := range slices.Sorted(maps.Keys(secrets)) {
		v := secrets[name]
		if s == v && v != "" {
			return "{{" + name + "}}"
		}
		if len(v) >= minSecretSubstring {
			names, values = append(names, name), append(values, v)
		}
	}
	if len(values) == 0 || s == "" {
		return s
	}
	out, _ := matcherFor(values).replace([]byte(s), func(i int) []byte { return []byte("{{" + names[i] + "}}") })
	return string(out)
}

// MaskSecrets masks secrets (MaskSecrets) in everything o shows: its
// address, title, render, text and the names, values and context of its
// nodes. Ids were computed from the page as it was, so they stay.
func (o *Observation) MaskSecrets(secrets map[string]string) {
	if len(secrets) == 0 {
		return
	}
	o.URL, o.Title = MaskSecrets(o.URL, secrets), MaskSecrets(o.Title, secrets)
	o.Render, o.Text = MaskSecrets(o.Render, secrets), MaskSecrets(o.Text, secrets)
	MaskNodeSecrets(o.Nodes, secrets)
}

// MaskNodeSecrets masks secrets (MaskSecrets) in the names, values,
// context, cells and options of nodes: before they are rendered, so that
// a long secret the render clips is masked whole, not shown cut.
func MaskNodeSecrets(nodes []ObservedNode, secrets map[string]string) {
	if len(secrets) == 0 {
		return
	}
	for i := range nodes {
		n := &nodes[i]
		n.Name, n.Value, n.Context = MaskSecrets(n.Name, secrets), MaskSecrets(n.Value, secrets), MaskSecrets(n.Context, secrets)
		for _, list := range [][]string{n.Cells, n.Options} {
			for k := range list {
				list[k] = MaskSecrets(list[k], secrets)
			}
		}
	}
}
