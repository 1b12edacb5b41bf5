package schema

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html"
	"net/url"
	"slices"
	"strings"
	"sync"
	"unicode/utf16"

	"golang.org/x/text/cases"
	"golang.org/x/text/language"
	"golang.org/x/text/unicode/norm"
)

// A page or a server that shows a secret back rarely shows it as it was
// typed: it URL-encodes it, puts it in base64 (often inside a longer
// base64 run, off the secret's alignment), in hex, in HTML entities, in
// JSON \u escapes, changes its case or its Unicode normal form, or does
// two of these in a row. Each secret is looked for in all those forms at
// once (multimatch.go).
// Adversarial transforms (reversed, split, hashed, encrypted) are not
// found: nothing that could be told from other text is.

// minFragment is the shortest piece of a base64 run that is taken for a
// secret off its alignment: shorter pieces are found in ordinary text.
const minFragment = 8

// secretForm is one form of a secret, and whether it is found in any
// ASCII case.
type secretForm struct {
	text string
	fold bool
}

// encoding is one that maps each character (or byte) on its own, so
// that a piece of the secret encodes to a piece of the form. A codepoint
// encoding writes each as its number in hex or decimal digits, which
// say nothing of case: its form is found in any case, and as the inner
// of two encodings it is tried with its hex digits in each case (alts).
type encoding struct {
	enc       func(string) string
	codepoint bool
	alts      []func(string) string
}

// charwise are the charwise encodings pages and servers apply.
var charwise = []encoding{
	{enc: url.QueryEscape}, {enc: url.PathEscape}, {enc: uriComponent}, {enc: html.EscapeString},
	{enc: func(s string) string { return jsonInner(s, true) }}, {enc: func(s string) string { return jsonInner(s, false) }},
	{enc: eachByte("%%%02X"), codepoint: true, alts: []func(string) string{eachByte("%%%02x")}},
	{enc: eachByte("%02x"), codepoint: true, alts: []func(string) string{eachByte("%02X")}},
	{enc: eachRune("&#%d;"), codepoint: true},
	{enc: eachRune("&#x%x;"), codepoint: true, alts: []func(string) string{eachRune("&#x%X;"), eachRune("&#X%X;")}},
	{enc: eachUnit(`\u%04x`), codepoint: true, alts: []func(string) string{eachUnit(`\u%04X`)}},
}

// secretForms are the forms of secret to look for: a first encoding of
// it in any case (clear, each charwise encoding with its hex digits in
// either case, each base64 piece) and a second over that (each charwise
// encoding, and base64 of a whole first form). A form is found in any
// ASCII case when that case says nothing: a case-folded secret, or
// numbers in hex.
func secretForms(secret string) []secretForm {
	seen := map[string]int{}
	var forms []secretForm
	add := func(text string, fold bool) {
		if len(text) < minSecretSubstring {
			return
		}
		if i, ok := seen[text]; ok {
			forms[i].fold = forms[i].fold || fold
			return
		}
		seen[text] = len(forms)
		forms = append(forms, secretForm{text, fold})
	}
	type step struct {
		text  string
		fold  bool
		whole bool // all of the secret encoded, not a piece of a base64 run
	}
	var first []step
	for _, v := range variants(secret) {
		first = append(first, step{v, true, true})
		for _, c := range charwise {
			first = append(first, step{c.enc(v), true, true})
			for _, alt := range c.alts {
				first = append(first, step{alt(v), true, true})
			}
		}
		for i, piece := range base64Pieces(v) {
			// The whole secret's base64 is found in any case too: a page
			// may show it in capitals.
			first = append(first, step{piece, i%4 == 0, i%4 == 0})
		}
		// Shown with something between its characters: invisible ones
		// (a zero-width space, a soft hyphen), spaces, or its hex bytes
		// joined as a MAC address is.
		for _, sep := range separators {
			add(strings.Join(strings.Split(v, ""), sep), true)
		}
		for _, sep := range []string{":", " ", "-"} {
			add(strings.TrimSuffix(eachByte("%02x"+sep)(v), sep), true)
		}
	}
	for _, f := range first {
		add(f.text, f.fold)
		for _, c := range charwise {
			add(c.enc(f.text), f.fold || c.codepoint)
		}
		if f.whole {
			for _, piece := range base64Pieces(f.text) {
				add(piece, false)
			}
		}
	}
	return forms
}

// variants are secret as it was typed, in lower and upper case (ASCII's
// and Unicode's full mapping, where ß is SS), in fullwidth, and in
// Unicode's composed and decomposed forms (NFC, NFD, and the
// compatibility NFKC and NFKD) where those differ: a page or a server
// may normalize "é" to "e" and a combining accent, or the other way.
func variants(secret string) []string {
	out := []string{secret}
	for _, f := range []norm.Form{norm.NFC, norm.NFD, norm.NFKC, norm.NFKD} {
		if v := f.String(secret); !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	upper, lower := cases.Upper(language.Und), cases.Lower(language.Und)
	for _, v := range slices.Clone(out) {
		for _, c := range []string{strings.ToLower(v), strings.ToUpper(v), lower.String(v), upper.String(v), fullwidth(v)} {
			if !slices.Contains(out, c) {
				out = append(out, c)
			}
		}
	}
	return out
}

// separators are what a page may put between a secret's characters:
// invisible ones (zero-width space, non-joiner and joiner, word joiner,
// soft hyphen, byte order mark) and a space.
var separators = []string{"\u200b", "\u200c", "\u200d", "\u2060", "\u00ad", "\ufeff", " "}

// fullwidth is s with its ASCII characters in their fullwidth forms
// (U+FF01-FF5E), as CJK text and CSS's full-width transform show them.
func fullwidth(s string) string {
	return strings.Map(func(r rune) rune {
		if r > ' ' && r <= '~' {
			return r - '!' + '\uff01'
		}
		return r
	}, s)
}

// base64Pieces are what s looks like in base64, in both alphabets, four
// each: encoded on its own (unpadded: a padded one holds it), then the
// characters that depend on s alone when s starts at each byte offset of
// a longer run ("" where fewer than minFragment).
func base64Pieces(s string) []string {
	var out []string
	for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
		out = append(out, enc.EncodeToString([]byte(s)))
		for offset := range 3 {
			run := enc.EncodeToString(append(make([]byte, offset), s...))
			// Character i holds bits [6i, 6i+6) of the run; s's are
			// [8*offset, 8*(offset+len(s))).
			from, to := (8*offset+5)/6, 8*(offset+len(s))/6
			piece := ""
			if to-from >= minFragment && to <= len(run) {
				piece = run[from:to]
			}
			out = append(out, piece)
		}
	}
	return out
}

// uriComponent is JavaScript's encodeURIComponent.
func uriComponent(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-_.!~*'()", c) >= 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// eachByte writes every byte of s in format.
func eachByte(format string) func(string) string {
	return func(s string) string {
		var b strings.Builder
		for i := 0; i < len(s); i++ {
			fmt.Fprintf(&b, format, s[i])
		}
		return b.String()
	}
}

// eachRune writes every character of s in format.
func eachRune(format string) func(string) string {
	return func(s string) string {
		var b strings.Builder
		for _, r := range s {
			fmt.Fprintf(&b, format, r)
		}
		return b.String()
	}
}

// eachUnit writes every UTF-16 unit of s in format, as JSON's \u does.
func eachUnit(format string) func(string) string {
	return func(s string) string {
		var b strings.Builder
		for _, u := range utf16.Encode([]rune(s)) {
			fmt.Fprintf(&b, format, u)
		}
		return b.String()
	}
}

// jsonInner is s as it stands between the quotes of a JSON string.
func jsonInner(s string, escapeHTML bool) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(escapeHTML)
	enc.Encode(s) // a string always encodes
	out := bytes.TrimSpace(b.Bytes())
	return string(out[1 : len(out)-1])
}

// secretMatcher finds every form of a set of secret values: exact forms
// in the text as it is, the others in its ASCII lower case (which keeps
// every byte where it was).
type secretMatcher struct {
	exact, folded *automaton
	exactOf       []int // pattern id -> value index
	foldedOf      []int
}

func newSecretMatcher(values []string) *secretMatcher {
	var exact, folded [][]byte
	m := &secretMatcher{}
	for i, v := range values {
		for _, f := range secretForms(v) {
			if f.fold {
				folded = append(folded, asciiLower([]byte(f.text)))
				m.foldedOf = append(m.foldedOf, i)
			} else {
				exact = append(exact, []byte(f.text))
				m.exactOf = append(m.exactOf, i)
			}
		}
	}
	m.exact, m.folded = newAutomaton(exact), newAutomaton(folded)
	return m
}

// replace returns text with every form of value i replaced by with(i),
// and whether anything was; text itself is not modified.
func (m *secretMatcher) replace(text []byte, with func(i int) []byte) ([]byte, bool) {
	var ms []match
	for _, x := range m.exact.find(text, nil) {
		ms = append(ms, match{x.start, x.end, m.exactOf[x.id]})
	}
	for _, x := range m.folded.find(asciiLower(bytes.Clone(text)), nil) {
		ms = append(ms, match{x.start, x.end, m.foldedOf[x.id]})
	}
	if len(ms) == 0 {
		return text, false
	}
	var out []byte
	at := 0
	for _, x := range leftmostLongest(ms) {
		out = append(append(out, text[at:x.start]...), with(x.id)...)
		at = x.end
	}
	return append(out, text[at:]...), true
}

// asciiLower lowers the ASCII letters of b in place.
func asciiLower(b []byte) []byte {
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return b
}

// matchers keeps the matchers of the secret sets recently asked for: a
// run asks with the same set for every observation and result.
var matchers struct {
	sync.Mutex
	bySet map[string]*secretMatcher
}

// maxMatchers bounds the matchers kept; past it the cache starts over.
const maxMatchers = 16

// matcherFor is the matcher of values, built once per set.
func matcherFor(values []string) *secretMatcher {
	var key strings.Builder
	for _, v := range values {
		fmt.Fprintf(&key, "%d:%s", len(v), v)
	}
	matchers.Lock()
	defer matchers.Unlock()
	if m := matchers.bySet[key.String()]; m != nil {
		return m
	}
	if matchers.bySet == nil || len(matchers.bySet) >= maxMatchers {
		matchers.bySet = map[string]*secretMatcher{}
	}
	m := newSecretMatcher(values)
	matchers.bySet[key.String()] = m
	return m
}
