package matcher

import "testing"

// intents are learned playbooks' intents a near miss must not match.
var intents = []string{
	"Create a user named {{name}} with role {{role}}",
	"Register the vendor {{company}} in {{city}}",
	"Download the latest report",
	"Trash the post {{title}}",
}

// TestNearMissesNeverMatch: a task that adds a clause of its own, uses
// another verb or object, or negates the task, matches no intent, though
// each differs from one in a word or two; the same shapes with new values
// and casing do match, and bind whole values.
func TestNearMissesNeverMatch(t *testing.T) {
	nearMisses := []string{
		"Create a user named alice with role editor and delete user bob",
		"Create a user named alice with role editor, then delete user bob",
		"Create a user named alice with role editor; delete user bob",
		"Create a user named alice with role editor and also reset every password",
		"Create a user named alice with role editor. Delete user bob.",
		"Create a user named alice with role editor or administrator",
		"Create a user named alice and bob with role editor",
		"Delete a user named alice with role editor",
		"Create a post named alice with role editor",
		"Do not create a user named alice with role editor",
		"Don't create a user named alice with role editor",
		"Register the vendor Initech in Berlin and delete the vendor Acme",
		"Register the vendor Initech in Berlin, then email the CFO",
		"Register the vendor Initech in Berlin but not in Paris",
		"Register the vendor Initech in Berlin plus Paris",
		"Register the vendor Initech in Berlin also add a note",
		"Unregister the vendor Initech in Berlin",
		"Register the customer Initech in Berlin",
		"Never register the vendor Initech in Berlin",
		"Download the latest report and delete it",
		"Delete the latest report",
		"Download the oldest report",
		"Do not download the latest report",
		"Download the latest invoice",
		"Trash the post Glacier safety memo and empty the trash",
		"Trash the post Glacier safety memo, then publish the draft",
		"Trash the post Glacier safety memo except its comments",
		"Trash the post Glacier safety memo unless it is published",
		"Trash the post Glacier; delete user bob",
		"Restore the post Glacier safety memo",
		"Trash the page Glacier safety memo",
		"Don't trash the post Glacier safety memo",
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
