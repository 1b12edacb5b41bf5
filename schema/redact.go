package schema

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"regexp"
)

// secretKeyPattern matches argument and property names whose values are
// secrets. A bare "key" is not among them: browser_press_key's "key" is
// the key to press.
var secretKeyPattern = regexp.MustCompile(`(?i)(pass(word|wd|phrase)?$|^pwd$|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|authorization|credential|cookie|session[_-]?id)`)

// countKeyPattern matches names of counts and limits: maxTokens,
// token_count, num_tokens.
var countKeyPattern = regexp.MustCompile(`(?i)(max|min|limit|count|num|total|budget|used|remaining)`)

// isCount reports whether v, under key k, is a count or limit of
// secrets rather than one: a number under a name such as maxTokens.
func isCount(k string, v any) bool {
	switch v.(type) {
	case json.Number, float64, int64:
		return countKeyPattern.MatchString(k)
	}
	return false
}

// minSecretSubstring is the shortest declared secret that is also replaced
// inside longer strings; shorter ones only replace whole values.
const minSecretSubstring = 4

// Redactor replaces secrets in tool arguments by stable digests, so the
// run log never holds them in clear while equal secrets stay comparable.
// A value is secret when its key looks like a secret (password, token,
// api_key, ...), when the tool's input schema marks the property with
// `format: password` or `writeOnly: true`, or when it contains one of
// Values (the run's declared secret parameters).
type Redactor struct {
	Key    []byte   // HMAC-SHA256 key: the same key gives the same digest
	Values []string // declared secret values
}

// Digest returns the stable digest that stands for value in the log:
// "secret:" and 32 hex digits of HMAC-SHA256(Key, value).
func (r Redactor) Digest(value string) string {
	m := hmac.New(sha256.New, r.Key)
	m.Write([]byte(value))
	return "secret:" + hex.EncodeToString(m.Sum(nil))[:32]
}

// RedactArguments returns args with every secret replaced by its digest,
// and whether anything was replaced. When nothing was, args is returned
// unchanged, byte for byte; otherwise the result is canonical JSON.
// Arguments that are not JSON are an *Error with CodeInvalid.
func (r Redactor) RedactArguments(args, inputSchema []byte) ([]byte, bool, error) {
	if len(args) == 0 {
		return args, false, nil
	}
	v, err := decodeJSON(args)
	if err != nil {
		return nil, false, err
	}
	var props any
	if len(inputSchema) > 0 {
		props, _ = decodeJSON(inputSchema) // a malformed schema only loses schema-based marks
	}
	redacted, changed := r.walk(v, props, false)
	if !changed {
		return args, false, nil
	}
	out, err := canonicalEncode(redacted)
	return out, true, err
}

// walk redacts v; schema is the JSON schema describing v, secret says v
// sits under a secret key.
func (r Redactor) walk(v, schema any, secret bool) (any, bool) {
	if secret {
		text, err := canonicalEncode(v)
		if s, ok := v.(string); ok {
			text, err = []byte(s), nil
		}
		if err != nil {
			text = []byte("unencodable")
		}
		return r.Digest(string(text)), true
	}
	switch x := v.(type) {
	case string:
		return r.redactString(x)
	case map[string]any:
		out := make(map[string]any, len(x))
		changed := false
		for k, e := range x {
			sub := property(schema, k)
			red, c := r.walk(e, sub, secretKeyPattern.MatchString(k) && !isCount(k, e) || markedSecret(sub))
			out[k] = red
			changed = changed || c
		}
		return out, changed
	case []any:
		out := make([]any, len(x))
		changed := false
		items := field(schema, "items")
		for i, e := range x {
			red, c := r.walk(e, items, markedSecret(items))
			out[i] = red
			changed = changed || c
		}
		return out, changed
	}
	return v, false
}

// redactString replaces declared secrets: a whole value always, a
// substring (in clear or encoded, see Scrub) when the secret is long
// enough to be unambiguous.
func (r Redactor) redactString(s string) (any, bool) {
	for _, secret := range r.Values {
		if secret == "" {
			continue
		}
		if s == secret {
			return r.Digest(secret), true
		}
	}
	out := r.ScrubString(s) // in clear or encoded, inside a longer string
	return out, out != s
}

func field(schema any, name string) any {
	if m, ok := schema.(map[string]any); ok {
		return m[name]
	}
	return nil
}

func property(schema any, name string) any {
	return field(field(schema, "properties"), name)
}

func markedSecret(schema any) bool {
	return field(schema, "format") == "password" || field(schema, "writeOnly") == true
}
