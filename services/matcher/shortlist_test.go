package matcher

import (
	"testing"

	"github.com/rote-agent/rote/schema"
)

// TestShortlistOffersOnlyPlaybooksThatTakeTheTasksValues: a playbook
// that takes none of a value the task gives by name is never offered to
// the model as the task in other words, however many words they share;
// one that takes them all is, and a task with a clause of its own is not
// sent at all.
func TestShortlistOffersOnlyPlaybooksThatTakeTheTasksValues(t *testing.T) {
	pb := func(intent string, params ...string) candidate {
		p := &schema.Playbook{Intent: intent, Params: map[string]schema.Param{}}
		for _, n := range params {
			p.Params[n] = schema.Param{Type: schema.ParamString}
		}
		return candidate{playbook: p, score: score("Sign in as {{username}} and change the site title to {{title}}", intent)}
	}
	download := pb("Sign in as {{username}} and download the latest operations report", "username", "password")
	rename := pb("Sign in as {{username}} and set the site's name to {{title}}", "username", "password", "title")
	req := &schema.MatchRequest{Task: "Sign in as admin and change the site title to Hooli Desk",
		Params: map[string]string{"username": "admin", "password": "x", "title": "Hooli Desk"}}
	got := shortlist(req, []candidate{download, rename})
	if len(got) != 1 || got[0].playbook != rename.playbook {
		t.Fatalf("shortlist %v, want the playbook that takes title only", got)
	}
	req.Params = map[string]string{"password": "x"} // the values as text: every candidate may bind them
	if got := shortlist(req, []candidate{download, rename}); len(got) != 2 {
		t.Errorf("with only a secret given, shortlist %d, want 2", len(got))
	}
	req.Task += " and delete user bob"
	if got := shortlist(req, []candidate{download, rename}); len(got) != 0 {
		t.Errorf("a task with a clause of its own was offered %d playbooks", len(got))
	}
}
