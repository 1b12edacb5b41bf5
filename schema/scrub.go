package schema

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/url"
	"slices"
	"strings"
)

// Scrub replaces, in text that is about to be stored (a tool result, a
// line the recorder could not parse), every declared secret value of at
// least minSecretSubstring characters by its digest: in clear, as a JSON
// string holds it, URL-encoded (query and path forms) and base64-encoded
// (standard and URL alphabets, padded or not). It reports whether it
// replaced anything; text is not modified. The digest is letters, digits
// and a colon, so valid JSON stays valid.
//
// A secret inside a longer base64 run is found only where the run is
// aligned on it; transformed otherwise (hashed, split, reversed) it is
// not found at all.
func (r Redactor) Scrub(text []byte) ([]byte, bool) {
	out, changed := text, false
	for _, secret := range r.Values {
		if len(secret) < minSecretSubstring {
			continue
		}
		digest := []byte(r.Digest(secret))
		for _, form := range secretForms(secret) {
			if bytes.Contains(out, form) {
				if !changed {
					out = bytes.Clone(out)
					changed = true
				}
				out = bytes.ReplaceAll(out, form, digest)
			}
		}
	}
	return out, changed
}

// ScrubString is Scrub for a string.
func (r Redactor) ScrubString(s string) string {
	out, _ := r.Scrub([]byte(s))
	return string(out)
}

// secretForms are the encodings a secret is found in, longest first so
// that a form containing another is replaced whole: each of clear,
// URL-encoded and base64, as is and as a JSON string holds it (with and
// without HTML escaping).
func secretForms(secret string) [][]byte {
	raw := []byte(secret)
	var forms [][]byte
	for _, f := range []string{
		secret, url.QueryEscape(secret), url.PathEscape(secret),
		base64.StdEncoding.EncodeToString(raw), base64.RawStdEncoding.EncodeToString(raw),
		base64.URLEncoding.EncodeToString(raw), base64.RawURLEncoding.EncodeToString(raw),
	} {
		forms = append(forms, []byte(f), jsonInner(f, true), jsonInner(f, false))
	}
	slices.SortFunc(forms, func(a, b []byte) int {
		if len(a) != len(b) {
			return len(b) - len(a)
		}
		return bytes.Compare(a, b)
	})
	return slices.CompactFunc(forms, bytes.Equal)
}

// jsonInner is s as it stands between the quotes of a JSON string.
func jsonInner(s string, escapeHTML bool) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(escapeHTML)
	enc.Encode(s) // a string always encodes
	out := bytes.TrimSpace(b.Bytes())
	return out[1 : len(out)-1]
}

// MaskSecrets replaces in s every value of secrets (name to value), in
// clear or in any form Scrub finds, by {{name}}: what the planner and the
// run log see of a page where a secret was typed or shown. Values shorter
// than minSecretSubstring are replaced only when they are all of s.
func MaskSecrets(s string, secrets map[string]string) string {
	for name, v := range secrets {
		mask := "{{" + name + "}}"
		if s == v && v != "" {
			return mask
		}
		if len(v) < minSecretSubstring {
			continue
		}
		for _, form := range secretForms(v) {
			s = strings.ReplaceAll(s, string(form), mask)
		}
	}
	return s
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
