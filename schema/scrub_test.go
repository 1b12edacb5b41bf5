package schema

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"unicode"
)

func TestScrubFindsEveryForm(t *testing.T) {
	secret := `p@ss w0rd/"x"+&=`
	r := Redactor{Key: []byte("k"), Values: []string{secret, "abc"}}
	forms := map[string]string{
		"clear": secret, "query": url.QueryEscape(secret), "path": url.PathEscape(secret),
		"base64": base64.StdEncoding.EncodeToString([]byte(secret)), "base64url": base64.RawURLEncoding.EncodeToString([]byte(secret)),
	}
	for name, form := range forms {
		var plain bytes.Buffer
		enc := json.NewEncoder(&plain)
		enc.SetEscapeHTML(false)
		enc.Encode(map[string]string{"text": "before " + form + " after"})
		escaped, _ := json.Marshal(map[string]string{"text": "before " + form + " after"})
		for _, doc := range [][]byte{plain.Bytes(), escaped, []byte("GET /x?before " + form + " after")} {
			out, changed := r.Scrub(doc)
			if !changed || bytes.Contains(out, []byte(form)) || !bytes.Contains(out, []byte(r.Digest(secret))) || (json.Valid(doc) && !json.Valid(out)) {
				t.Errorf("%s: %s", name, out)
			}
		}
	}
	// Short values are not replaced inside other text ("abc" is three
	// letters of many words); text without a secret comes back as is.
	in := []byte(`{"text":"abcdef"}`)
	if out, changed := r.Scrub(in); changed || !bytes.Equal(out, in) {
		t.Errorf("short secret replaced: %s", out)
	}
}

// TestScrubFindsTheEncodingsPagesApply: a secret a page or server shows
// back URL-encoded (both forms and every byte), in base64 at any
// alignment inside a longer run (both alphabets), in hex (both cases),
// as decimal and hex HTML entities, as JSON \u escapes, in another case,
// and in two of these in a row, is replaced wherever it stands; text
// without it is left as it was. The encodings here are written out by
// the test, not taken from the code under test.
func TestScrubFindsTheEncodingsPagesApply(t *testing.T) {
	secret := "Tr0ub4dor&3/x+Q"
	r := Redactor{Key: []byte("k"), Values: []string{secret}}
	b64 := func(enc *base64.Encoding) func(string) string {
		return func(s string) string { return enc.EncodeToString([]byte(s)) }
	}
	each := func(format string) func(string) string {
		return func(s string) string {
			var b strings.Builder
			for _, c := range []byte(s) {
				fmt.Fprintf(&b, format, c)
			}
			return b.String()
		}
	}
	enc := map[string]func(string) string{
		"clear": func(s string) string { return s }, "lower": strings.ToLower, "upper": strings.ToUpper, "swapped case": swapCase,
		"query": url.QueryEscape, "path": url.PathEscape, "every byte %XX": each("%%%02X"), "every byte %xx": each("%%%02x"),
		"base64": b64(base64.StdEncoding), "base64url": b64(base64.URLEncoding), "raw base64url": b64(base64.RawURLEncoding),
		"hex": each("%02x"), "HEX": each("%02X"), "decimal entities": each("&#%d;"), "hex entities": each("&#x%x;"),
		"HEX entities": each("&#X%X;"), `\u escapes`: each(`\u%04x`), `\U escapes`: each(`\u%04X`),
	}
	// A base64 run that holds the secret between other bytes, at each
	// offset, is a form too.
	for offset := range 3 {
		for name, e := range map[string]*base64.Encoding{"base64": base64.StdEncoding, "base64url": base64.URLEncoding} {
			enc[fmt.Sprintf("%s run at offset %d", name, offset)] = func(s string) string {
				return e.EncodeToString([]byte(strings.Repeat("\x01", offset) + s + " and after it"))
			}
		}
	}
	caseOnly := map[string]bool{"lower": true, "upper": true, "swapped case": true}
	forms := map[string]string{}
	for a, ea := range enc {
		forms[a] = ea(secret)
		for b, eb := range enc {
			// A run holds more than the secret; a case changed over base64
			// is no longer the secret in any form.
			// Nor is a secret in mixed case encoded to numbers: lower and
			// upper case are tried, not every mix.
			if strings.Contains(a, "run") || caseOnly[b] && strings.Contains(a, "base64") || a == "swapped case" && !caseOnly[b] && !strings.Contains(b, "query") && !strings.Contains(b, "path") {
				continue
			}
			forms[b+" of "+a] = eb(ea(secret))
		}
	}
	missed := 0
	for name, form := range forms {
		doc := []byte("before " + form + " after")
		out, changed := r.Scrub(doc)
		if !changed || bytes.Contains(out, []byte(form)) || !bytes.Contains(out, []byte(r.Digest(secret))) {
			missed++
			if missed < 20 {
				t.Errorf("%s (%s): %s", name, form, out)
			}
		}
	}
	if missed > 0 {
		t.Errorf("%d of %d forms missed", missed, len(forms))
	}
	t.Logf("%d forms, every one replaced", len(forms))
	for _, clean := range []string{
		"An ordinary page: Troubador, 3 x Q, 54723075623464",
		base64.StdEncoding.EncodeToString([]byte("some other payload entirely, of some length")),
		strings.Repeat("&#84;&#114;", 10),
	} {
		if out, changed := r.Scrub([]byte(clean)); changed {
			t.Errorf("text without the secret was changed: %s -> %s", clean, out)
		}
	}
	// Masking (what an observation shows) finds the same forms.
	if got := MaskSecrets("key="+url.QueryEscape(base64.StdEncoding.EncodeToString([]byte(secret))), map[string]string{"pw": secret}); got != "key={{pw}}" {
		t.Errorf("masked: %s", got)
	}
}

func swapCase(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsUpper(r) {
			return unicode.ToLower(r)
		}
		return unicode.ToUpper(r)
	}, s)
}

// BenchmarkMaskSecrets masks two secrets in a page's render of 30,000
// characters, the matchers built: what every observation of a run with
// secrets pays.
func BenchmarkMaskSecrets(b *testing.B) {
	render := strings.Repeat(`button "Save draft" [e12] link "Post 001" (row "Post 001") `, 500)
	secrets := map[string]string{"password": "correct-horse-battery", "token": "tok_4f9a8b7c6d5e"}
	MaskSecrets(render, secrets)
	b.SetBytes(int64(len(render)))
	for b.Loop() {
		MaskSecrets(render, secrets)
	}
}
