package schema

import (
	"testing"
	"unicode/utf8"
)

func TestClip(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly10!", 10, "exactly10!"},
		{"eleven char", 10, "eleven ch…"},
		{"Größenänderung", 6, "Größe…"},
		{"日本語のテキスト", 4, "日本語…"},
		{"🙂🙂🙂", 2, "🙂…"},
		{"abc", 0, ""},
	} {
		got := Clip(c.in, c.n)
		if got != c.want || !utf8.ValidString(got) || utf8.RuneCountInString(got) > max(c.n, 0) {
			t.Errorf("Clip(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}
