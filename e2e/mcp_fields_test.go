package e2e

import (
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// fieldsSite is a sign-in form as home-made pages write it: labels not
// tied to their fields by for=, and a verification code in two boxes
// that nothing labels, told apart by their order alone. The server keeps
// what the last sign-in sent.
type fieldsSite struct {
	*httptest.Server
	mu    sync.Mutex
	sent  map[string]string
	third atomic.Bool // a third code box, after the two
	after atomic.Bool // the sign-in labels after their fields, in one run
}

func newFieldsSite(t *testing.T) *fieldsSite {
	s := &fieldsSite{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			r.ParseForm()
			s.mu.Lock()
			s.sent = map[string]string{"user": r.PostForm.Get("user"), "pass": r.PostForm.Get("pass"), "c1": r.PostForm.Get("c1"), "c2": r.PostForm.Get("c2"), "start": r.PostForm.Get("start")}
			s.mu.Unlock()
			fmt.Fprintf(w, `<!doctype html><title>Welcome</title><main><h1>Welcome</h1><p role="status">Signed in as %s</p></main>`, html.EscapeString(r.PostForm.Get("user")))
			return
		}
		third := ""
		if s.third.Load() {
			third = `<div class="code"><input name="c3" size="4"></div>`
		}
		signIn := `<div><label>Username</label><input name="user"></div>
  <div><label>Password</label><input name="pass" type="password"></div>`
		if s.after.Load() {
			signIn = `<div><input name="pass" type="password"> Password<br><input name="user"> Username<br></div>`
		}
		fmt.Fprintf(w, `<!doctype html><title>Sign in</title><main><h1>Sign in</h1>
<form method="post" action="/">
  %s
  <div><span>Start date</span> <input name="start" type="date"></div>
  <div class="code"><input name="c1" size="4"></div><div class="code"><input name="c2" size="4"></div>%s
  <button>Sign in</button>
</form></main>`, signIn, third)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *fieldsSite) last() map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sent
}

// TestUnlabelledFieldsLearnAndReplay records a sign-in through rote mcp
// browser on fields named only by the text beside them, on two code
// boxes nothing names, and on a date input given the task's date in
// another form (09/10/2012 set as 2012-09-10). It is learned (its shadow replay on the unchanged
// page passes: the rule that let the agent fill the first of two twins
// lets the replay fill it too) and replayed with other values, each
// sent in its own field; with a third code box on the page the replay
// stops as ambiguous and sends nothing.
func TestUnlabelledFieldsLearnAndReplay(t *testing.T) {
	t.Parallel()
	site := newFieldsSite(t)
	dir := t.TempDir()
	server := roteBrowserServer(t, dir)
	rec := recordSession(t, dir, []string{"--task", "sign-in", "--text", "Sign in as ada with the code 4711 0815, starting 09/10/2012",
		"--param", "user=ada", "--param", "start=09/10/2012", "--param", "first=4711", "--param", "second=0815", "--secret", "pass=correct-horse",
		"--target", "signin", "--verify", "text_visible: Signed in as ada"}, server, "2025-11-25", func(c *rawClient) {
		page := c.text("navigate", map[string]any{"url": site.URL + "/"})
		boxes := regexp.MustCompile(`(?m)^(\S+) textbox ""`).FindAllStringSubmatch(page, -1)
		if len(boxes) != 2 {
			t.Fatalf("want the two code boxes unnamed, the other fields named by their labels:\n%s", page)
		}
		c.text("fill", map[string]any{"target": roteID(t, page, "textbox", "Username"), "value": "ada"})
		c.text("fill", map[string]any{"target": roteID(t, page, "textbox", "Password"), "value": "correct-horse"})
		c.text("set_value", map[string]any{"target": roteID(t, page, "date-picker", "Start date"), "value": "2012-09-10"})
		c.text("fill", map[string]any{"target": boxes[0][1], "value": "4711"})
		c.text("fill", map[string]any{"target": boxes[1][1], "value": "0815"})
		c.text("click", map[string]any{"target": roteID(t, page, "button", "Sign in")})
		c.text("done", map[string]any{"reason": "signed in"})
	})
	if got := site.last(); got["c1"] != "4711" || got["c2"] != "0815" || got["user"] != "ada" || got["start"] != "2012-09-10" {
		t.Fatalf("the recorded session sent %v", got)
	}
	data := []string{"--data", dir}
	code, out := rote(t, dir, append(append(data, "promote", rec.runID, "--target", "signin", "--param", "pass=correct-horse", "--"), server...)...)
	if code != 0 || !strings.Contains(out, "promoted sign-in v1") {
		t.Fatalf("promote (its shadow replay on the unchanged page): exit %d\n%s", code, out)
	}
	replay := append(data, "replay", "sign-in", "--target", "signin", "--param", "user=grace", "--param", "first=1234",
		"--param", "second=9876", "--param", "pass=battery-staple", "--param", "start=03/04/2013", "--")
	code, out = rote(t, dir, append(replay, server...)...)
	want := map[string]string{"user": "grace", "pass": "battery-staple", "c1": "1234", "c2": "9876", "start": "2013-03-04"}
	if got := site.last(); code != 0 || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("the replay with other values: exit %d, the site got %v, want %v\n%s", code, got, want, out)
	}
	// The labels now follow their fields, in the other order: each value
	// still goes to the field its label names.
	site.after.Store(true)
	site.mu.Lock()
	site.sent = nil
	site.mu.Unlock()
	code, out = rote(t, dir, append(replay, server...)...)
	if got := site.last(); code != 0 || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("the replay with the labels after their fields: exit %d, the site got %v, want %v\n%s", code, got, want, out)
	}
	site.after.Store(false)
	site.third.Store(true)
	code, out = rote(t, dir, append(replay, server...)...)
	if got := site.last(); code == 0 || !strings.Contains(out, "ambiguous") || got["c3"] != "" || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("with a third code box: exit %d, the site got %v; want an ambiguous stop that sends nothing\n%s", code, got, out)
	}
}

// TestLearnFromSeveralRuns records the sign-in twice through rote mcp
// browser, with other values each time, and learns one playbook from
// both (rote learn RUN1 RUN2): it explains both runs and replays with a
// third set of values. A third session that skipped the code boxes is no
// run of the same procedure: learning from it with the first is refused,
// naming it, and stores nothing; so is a secret the runs did not type,
// before the shadow replay would type it.
func TestLearnFromSeveralRuns(t *testing.T) {
	t.Parallel()
	site := newFieldsSite(t)
	dir := t.TempDir()
	server := roteBrowserServer(t, dir)
	signIn := func(user, first, second string, codes bool) string {
		args := []string{"--task", "sign-in", "--text", fmt.Sprintf("Sign in as %s with the code %s %s", user, first, second),
			"--param", "user=" + user, "--param", "first=" + first, "--param", "second=" + second, "--secret", "pass=correct-horse",
			"--target", "signin", "--verify", "text_visible: Signed in as " + user}
		return recordSession(t, dir, args, server, "2025-11-25", func(c *rawClient) {
			page := c.text("navigate", map[string]any{"url": site.URL + "/"})
			boxes := regexp.MustCompile(`(?m)^(\S+) textbox ""`).FindAllStringSubmatch(page, -1)
			c.text("fill", map[string]any{"target": roteID(t, page, "textbox", "Username"), "value": user})
			c.text("fill", map[string]any{"target": roteID(t, page, "textbox", "Password"), "value": "correct-horse"})
			if codes {
				c.text("fill", map[string]any{"target": boxes[0][1], "value": first})
				c.text("fill", map[string]any{"target": boxes[1][1], "value": second})
			}
			c.text("click", map[string]any{"target": roteID(t, page, "button", "Sign in")})
			c.text("done", map[string]any{"reason": "signed in"})
		}).runID
	}
	a, b := signIn("ada", "4711", "0815", true), signIn("grace", "1234", "9876", true)
	skipped := signIn("edsger", "5555", "6666", false)
	data := []string{"--data", dir}
	code, out := rote(t, dir, append(append(data, "learn", a, skipped, "--secret", "pass=correct-horse", "--"), server...)...)
	if code == 0 || !strings.Contains(out, skipped) || strings.Contains(out, "promoted") {
		t.Fatalf("learning from a run of another procedure: exit %d, want a refusal naming %s\n%s", code, skipped, out)
	}
	code, out = rote(t, dir, append(append(data, "learn", a, b, "--secret", "pass=battery-staple", "--"), server...)...)
	if code == 0 || !strings.Contains(out, "does not match") || strings.Contains(out, "shadow replay") {
		t.Fatalf("learning with a secret the runs did not type: exit %d, want a refusal before any shadow replay\n%s", code, out)
	}
	code, out = rote(t, dir, append(append(data, "learn", a, b, "--secret", "pass=correct-horse", "--"), server...)...)
	if code != 0 || !strings.Contains(out, "explaining all 2 runs") || !strings.Contains(out, "promoted sign-in v1") {
		t.Fatalf("learning from two runs: exit %d\n%s", code, out)
	}
	code, out = rote(t, dir, append(append(data, "replay", "sign-in", "--target", "signin", "--param", "user=barbara", "--param", "first=2468",
		"--param", "second=1357", "--param", "pass=correct-horse", "--"), server...)...)
	if got := site.last(); code != 0 || got["user"] != "barbara" || got["c1"] != "2468" || got["c2"] != "1357" {
		t.Fatalf("the replay: exit %d, the site got %v\n%s", code, got, out)
	}
}
