package schema

import (
	"errors"
	"testing"
)

func TestParseChord(t *testing.T) {
	for in, want := range map[string]string{
		"Enter": "Enter", "enter": "Enter", "k": "k", "+": "+", "Ctrl+K": "Control+k", "K": "K", "Shift+a": "Shift+A", "shift+tab": "Shift+Tab",
		"Cmd+Shift+p": "Shift+Meta+P", "Meta+Enter": "Meta+Enter", "Control++": "Control++", "Alt+F4": "Alt+F4",
	} {
		c, err := ParseChord(in)
		if err != nil || c.String() != want {
			t.Errorf("ParseChord(%q) = %q, %v; want %q", in, c.String(), err, want)
		}
	}
	for _, bad := range []string{"", "Hyper+K", "Ctrl+", "Ctrl+Escapes", "Enterprise", "Ctrl+Shift"} {
		if _, err := ParseChord(bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("ParseChord(%q): %v, want ErrInvalid", bad, err)
		}
	}
}
