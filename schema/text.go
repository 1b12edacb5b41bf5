package schema

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Clip shortens s to at most n characters (runes, never a byte inside
// one), the last of them "…" when anything was cut.
func Clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	if n <= 0 {
		return ""
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// ClipList joins the first n of values with ", " and says how many more
// there were, so that a message naming a page's matches stays short.
func ClipList(values []string, n int) string {
	if len(values) <= n {
		return strings.Join(values, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(values[:n], ", "), len(values)-n)
}

// ShortFingerprint is the first 12 characters of a fingerprint (or any
// digest), as people read one.
func ShortFingerprint(fp string) string {
	if len(fp) > 12 {
		return fp[:12]
	}
	return fp
}
