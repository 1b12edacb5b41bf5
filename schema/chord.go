package schema

import (
	"slices"
	"strings"
	"unicode"
)

// Keys are the named keys press accepts; one printable character also
// stands for itself.
var Keys = []string{
	"Enter", "Tab", "Escape", "Backspace", "Delete", "Insert", "Space",
	"ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight", "Home", "End", "PageUp", "PageDown",
	"F1", "F2", "F3", "F4", "F5", "F6", "F7", "F8", "F9", "F10", "F11", "F12",
}

// Modifiers are the keys a chord may hold down, in the order a chord is
// written.
var Modifiers = []string{"Control", "Alt", "Shift", "Meta"}

// modifierNames maps the spellings people use to a modifier.
var modifierNames = map[string]string{
	"control": "Control", "ctrl": "Control", "alt": "Alt", "option": "Alt",
	"shift": "Shift", "meta": "Meta", "cmd": "Meta", "command": "Meta", "super": "Meta",
}

// Chord is a key pressed with modifiers held: "Control+Shift+K".
type Chord struct {
	Modifiers []string // a subset of Modifiers, in their order
	Key       string   // one of Keys, or one character
}

// String writes the chord in its canonical form.
func (c Chord) String() string { return strings.Join(append(slices.Clone(c.Modifiers), c.Key), "+") }

// ParseChord reads a key ("Enter", "k") or a chord of modifiers and one
// key joined by "+" ("Ctrl+K", "Shift+Tab", "Meta+Enter"; "+" alone, or
// as the last key, is the plus key). A named key is matched case aside.
// Anything else is an *Error with CodeInvalid.
func ParseChord(s string) (Chord, error) {
	if s == "" {
		return Chord{}, Errorf(CodeInvalid, "press needs a key")
	}
	parts := strings.Split(s, "+")
	switch { // the plus key itself: "+", "Shift++"
	case s == "+":
		parts = []string{"+"}
	case strings.HasSuffix(s, "++"):
		parts = append(strings.Split(strings.TrimSuffix(s, "++"), "+"), "+")
	}
	var c Chord
	held := map[string]bool{}
	for _, p := range parts[:len(parts)-1] {
		m, ok := modifierNames[strings.ToLower(strings.TrimSpace(p))]
		if !ok {
			return Chord{}, Errorf(CodeInvalid, "press %q: %q is no modifier (want %s)", s, p, strings.Join(Modifiers, ", "))
		}
		held[m] = true
	}
	for _, m := range Modifiers {
		if held[m] {
			c.Modifiers = append(c.Modifiers, m)
		}
	}
	key := parts[len(parts)-1]
	if r := []rune(key); len(r) == 1 {
		// A letter in a chord names its key, as a keyboard's caps do:
		// "Control+K" is Control and the K key, not Control+Shift+K; with
		// Shift held it is the capital ("Shift+a" types A).
		if len(c.Modifiers) > 0 && unicode.IsLetter(r[0]) {
			key = strings.ToLower(key)
			if held["Shift"] {
				key = strings.ToUpper(key)
			}
		}
		c.Key = key
		return c, nil
	}
	for _, k := range Keys {
		if strings.EqualFold(k, strings.TrimSpace(key)) {
			c.Key = k
			return c, nil
		}
	}
	return Chord{}, Errorf(CodeInvalid, "press %q: unknown key %q (want one character or %s)", s, key, strings.Join(Keys, ", "))
}
