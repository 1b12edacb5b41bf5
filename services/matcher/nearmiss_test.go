package matcher

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// intents are learned playbooks' intents a near miss must not match.
// corpus reads a testdata file: one entry a line, # comments.
func corpus(t *testing.T, name string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(string(data), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out
}

// TestNearMissesNeverMatch: a task that adds a clause of its own, uses
// another verb or object, or negates the task, matches no intent, though
// each differs from one in a word or two; the same shapes with new values
// and casing do match, and bind whole values.
func TestNearMissesNeverMatch(t *testing.T) {
	nearMisses, intents := corpus(t, "nearmiss.txt"), corpus(t, "intents.txt")
	if len(nearMisses) < 30 {
		t.Fatalf("%d near misses, want at least 30", len(nearMisses))
	}
	for _, task := range nearMisses {
		for _, intent := range intents {
			if s := score(task, intent); s >= Threshold {
				t.Errorf("%q matches %q (score %.2f, values %v)", task, intent, s, captured(task, intent))
			}
		}
	}
	for task, want := range map[string]map[string]string{
		"Create a user named alice with role editor":               {"name": "alice", "role": "editor"},
		"create a user named Alice Smith with role Shop Manager.":  {"name": "Alice Smith", "role": "Shop Manager"},
		"Register the vendor Globex Corporation in Rio de Janeiro": {"company": "Globex Corporation", "city": "Rio de Janeiro"},
		"Trash the post Glacier safety memo 99":                    {"title": "Glacier safety memo 99"},
		"Trash the post Q3 roadmap (draft 2)":                      {"title": "Q3 roadmap (draft 2)"},
	} {
		var got map[string]string
		for _, intent := range intents {
			if score(task, intent) >= Threshold {
				got = captured(task, intent)
			}
		}
		if len(got) != len(want) {
			t.Errorf("%q bound %v, want %v", task, got, want)
			continue
		}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%q bound %s=%q, want %q", task, k, got[k], v)
			}
		}
	}
}
