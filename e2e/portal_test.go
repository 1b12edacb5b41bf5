package e2e

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/portal"
	"github.com/rote-agent/rote/schema"
)

// portalSite serves the fixture portal in variant and returns its URL and
// the portal, whose State tells what really happened.
func portalSite(t testing.TB, variant string) (string, *portal.Portal) {
	t.Helper()
	p, err := portal.New(portal.Config{Variant: variant})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	return srv.URL, p
}

// loggedIn opens a session on the portal at base and signs in.
func loggedIn(t testing.TB, b *bus.Bus, base string) *bus.BrowserSession {
	t.Helper()
	s := session(t, b, base+"/login")
	act(t, s, schema.Action{Kind: schema.ActFill, Target: &schema.Target{Role: "textbox", Name: "Username"}, Value: portal.Username})
	act(t, s, schema.Action{Kind: schema.ActFill, Target: &schema.Target{Role: "textbox", Name: "Password"}, Value: portal.Password})
	act(t, s, schema.Action{Kind: schema.ActClick, Target: &schema.Target{Role: "button", Name: "Sign in"}})
	return s
}

// observeIDs observes the page at path and maps "role name @ context" to
// the node's id.
func observeIDs(t testing.TB, s *bus.BrowserSession, path string) (map[string]string, *schema.Observation) {
	t.Helper()
	act(t, s, schema.Action{Kind: schema.ActNavigate, URL: path})
	rep, err := s.Observe(testContext(t), "", false, 0)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]string{}
	for _, n := range rep.Observation.Nodes {
		ids[n.Role+" "+strings.ToLower(n.Name)+" @ "+strings.ToLower(n.Context)] = n.ID
	}
	return ids, &rep.Observation
}

// portalPages are the pages whose ids the variant test compares.
var portalPages = []string{"/dashboard", "/records", "/vendors/new", "/catalog?q=desk", "/inbox", "/inbox/M-03", "/settings", "/reports"}

// TestIDsAcrossPortalVariants: a redesign, renamed ids and classes, and a
// client-side remount leave every id of every page as it was; a renamed
// label changes exactly the id of its field.
func TestIDsAcrossPortalVariants(t *testing.T) {
	t.Parallel()
	b := planes(t)
	baseURL, _ := portalSite(t, "")
	base := loggedIn(t, b, baseURL)
	want := map[string]map[string]string{}
	for _, path := range portalPages {
		want[path], _ = observeIDs(t, base, path)
	}
	for _, variant := range []string{"cosmetic", "renames", "remount"} {
		if testing.Short() && variant == "cosmetic" {
			continue // -short: TestReplayUnderDrift replays on it, by these ids
		}
		t.Run(variant, func(t *testing.T) {
			url, _ := portalSite(t, variant)
			s := loggedIn(t, b, url)
			for _, path := range portalPages {
				got, obs := observeIDs(t, s, path)
				if len(got) != len(want[path]) {
					t.Errorf("%s: %d nodes, baseline %d:\n%s", path, len(got), len(want[path]), obs.Render)
				}
				for k, id := range want[path] {
					if got[k] != id {
						t.Errorf("%s: %s has id %q, baseline %q", path, k, got[k], id)
					}
				}
			}
		})
	}
	t.Run("label-rename", func(t *testing.T) {
		url, _ := portalSite(t, "label-rename")
		s := loggedIn(t, b, url)
		got, obs := observeIDs(t, s, "/vendors/new")
		var renamed schema.ObservedNode
		for _, n := range obs.Nodes {
			if n.Name == "Legal entity name" {
				renamed = n
			}
		}
		var old string
		for k, id := range want["/vendors/new"] {
			if strings.HasPrefix(k, "textbox company name @") {
				old = id
			}
		}
		if renamed.ID == "" || old == "" || renamed.ID == old {
			t.Fatalf("renamed field id %q, old %q", renamed.ID, old)
		}
		changed := 0
		for k, id := range want["/vendors/new"] {
			if got[k] != id {
				changed++
			}
		}
		if changed != 1 {
			t.Fatalf("%d ids changed, want only the renamed field's", changed)
		}
	})
}
