package e2e

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/schema"
)

// TestActionsTheControlWouldNotTake: a value a picker cannot hold is
// refused before the input is touched (no change event, the old value
// kept); a disabled control is not clicked or chosen, a read-only field
// not typed into, a disabled option not selected; and a chord names its
// key as a keyboard's caps do (Control+K is no Control+Shift+K).
func TestActionsTheControlWouldNotTake(t *testing.T) {
	t.Parallel()
	b := planes(t)
	web := newSite(t, map[string]string{"/": `<!doctype html><main><h1>Form</h1>
<label>Priority <input type="range" min="0" max="100" step="10" value="40"></label>
<label>Due <input type="date" value="2029-01-01" max="2030-12-31"></label>
<label>Count <input type="number" min="1" step="2" value="3"></label>
<label>Code <input readonly value="fixed"></label>
<label>Kind <select disabled><option>X</option><option>Y</option></select></label>
<label>Size <select><option>One</option><option disabled>Two</option></select></label>
<button disabled>Off</button><button aria-disabled="true" onclick="log.textContent = 'pressed anyway'">Soft off</button>
<p id="log" role="status">idle</p>
<script>
document.addEventListener('change', e => log.textContent = 'changed to ' + e.target.value);
document.addEventListener('keydown', e => { if (e.key.length == 1) log.textContent = 'key ' + (e.ctrlKey ? 'Ctrl+' : '') + (e.shiftKey ? 'Shift+' : '') + e.key; });
</script></main>`})
	s := session(t, b, web.URL+"/")
	for _, bad := range []struct{ role, name, value string }{
		{"slider", "Priority", "45"}, {"slider", "Priority", "150"}, {"date-picker", "Due", "26/10/2026"},
		{"date-picker", "Due", "2040-01-01"}, {"spinbutton", "Count", "4"}, {"spinbutton", "Count", "11x"},
	} {
		refused(t, s, schema.Action{Kind: schema.ActSetValue, Target: &schema.Target{Role: bad.role, Name: bad.name}, Value: bad.value}, schema.ErrInvalid)
	}
	render := pageNow(t, s)
	for _, kept := range []string{`slider "Priority" = "40"`, `date-picker "Due" = "2029-01-01"`, `spinbutton "Count" = "3"`, `status "idle"`} {
		if !strings.Contains(render, kept) {
			t.Errorf("a refused set_value touched the page: no %s in\n%s", kept, render)
		}
	}
	act(t, s, schema.Action{Kind: schema.ActSetValue, Target: &schema.Target{Role: "spinbutton", Name: "Count"}, Value: "5"})
	for _, a := range []schema.Action{
		{Kind: schema.ActFill, Target: &schema.Target{Role: "textbox", Name: "Code"}, Value: "changed"},
		{Kind: schema.ActSelect, Target: &schema.Target{Role: "combobox", Name: "Kind"}, Value: "Y"},
		{Kind: schema.ActSelect, Target: &schema.Target{Role: "combobox", Name: "Size"}, Value: "Two"},
		{Kind: schema.ActClick, Target: &schema.Target{Role: "button", Name: "Off"}},
		{Kind: schema.ActClick, Target: &schema.Target{Role: "button", Name: "Soft off"}},
	} {
		refused(t, s, a, schema.ErrStateChanged)
	}
	render = pageNow(t, s)
	for _, kept := range []string{`textbox "Code" = "fixed" [readonly]`, `combobox "Kind" = "X"`, `combobox "Size" = "One"`, `status "changed to 5"`} {
		if !strings.Contains(render, kept) {
			t.Errorf("a refused action touched the page: no %s in\n%s", kept, render)
		}
	}
	for key, want := range map[string]string{"Control+K": "key Ctrl+k", "Shift+a": "key Shift+A"} {
		act(t, s, schema.Action{Kind: schema.ActPress, Value: key})
		if obs := observe(t, s).Observation; !strings.Contains(obs.Render, `status "`+want+`"`) {
			t.Errorf("press %s: the page did not read %s:\n%s", key, want, obs.Render)
		}
	}
}

// TestDialogsAndEndlessLoads: an alert or a confirm is answered at once
// (dismissed: the confirm declined) and the action says so, a navigate
// leaves a page that asks before it is left, and a page whose load never
// ends is stopped as it is; the session goes on either way (before, each
// held every later call until the action timed out).
func TestDialogsAndEndlessLoads(t *testing.T) {
	t.Parallel()
	b := planes(t)
	web := newSite(t, map[string]string{
		"/": `<!doctype html><main><h1>Dialogs</h1><button onclick="alert('Are you sure?')">Alert me</button>
<button onclick="log.textContent = confirm('Delete it?') ? 'deleted' : 'kept'">Delete</button><p id="log" role="status">idle</p></main>`,
		"/unsaved": `<!doctype html><main><h1>Draft</h1><label>Note <input></label><script>addEventListener('beforeunload', e => { e.preventDefault(); e.returnValue = ''; });</script></main>`,
		"/endless": `<!doctype html><main><h1>Endless</h1><img src="/endless.png" alt="chart"><button onclick="log.textContent = 'went'">Go</button><p id="log" role="status">idle</p></main>`,
	})
	s := session(t, b, web.URL+"/")
	if ev := act(t, s, schema.Action{Kind: schema.ActClick, Target: &schema.Target{Role: "button", Name: "Alert me"}}); !slices.Equal(ev.Dialogs, []string{`alert "Are you sure?" dismissed`}) {
		t.Errorf("the alert was reported as %q", ev.Dialogs)
	}
	if ev := act(t, s, schema.Action{Kind: schema.ActClick, Target: &schema.Target{Role: "button", Name: "Delete"}}); !slices.Equal(ev.Dialogs, []string{`confirm "Delete it?" dismissed`}) {
		t.Errorf("the confirm was reported as %q", ev.Dialogs)
	}
	if obs := observe(t, s).Observation; !strings.Contains(obs.Render, `status "kept"`) {
		t.Errorf("the confirm was not declined:\n%s", obs.Render)
	}
	// A page that asks before it is left (once a person typed in it): a
	// navigate, whose point is to leave, leaves it.
	act(t, s, schema.Action{Kind: schema.ActNavigate, URL: web.URL + "/unsaved"})
	act(t, s, schema.Action{Kind: schema.ActFill, Target: &schema.Target{Role: "textbox", Name: "Note"}, Value: "draft"})
	if ev := act(t, s, schema.Action{Kind: schema.ActNavigate, URL: web.URL + "/"}); len(ev.Dialogs) != 1 || !strings.HasPrefix(ev.Dialogs[0], "beforeunload") || !strings.Contains(ev.Dialogs[0], "accepted") {
		t.Errorf("leaving the page with unsaved changes was reported as %q", ev.Dialogs)
	}
	if obs := observe(t, s).Observation; !strings.HasSuffix(obs.URL, "/") {
		t.Errorf("the navigate did not leave the page: %s", obs.URL)
	}
	start := time.Now()
	if ev := act(t, s, schema.Action{Kind: schema.ActNavigate, URL: web.URL + "/endless"}); !ev.Unsettled || !strings.Contains(ev.HeldBy, "load not ending") {
		t.Errorf("the stopped load was not reported: unsettled %v, held by %q", ev.Unsettled, ev.HeldBy)
	}
	act(t, s, schema.Action{Kind: schema.ActClick, Target: &schema.Target{Role: "button", Name: "Go"}})
	if obs := observe(t, s).Observation; !strings.Contains(obs.Render, `status "went"`) {
		t.Errorf("the endless page did not take the click:\n%s", obs.Render)
	}
	t.Logf("the endless page loaded, was clicked and read in %s", time.Since(start).Round(time.Millisecond))
}

// pageNow is the whole render of the session's page, not a diff.
func pageNow(t *testing.T, s *bus.BrowserSession) string {
	t.Helper()
	rep, err := s.Observe(testContext(t), "", false, 0)
	if err != nil {
		t.Fatal(err)
	}
	return rep.Observation.Render
}

// TestSelectChoosesOnlyWhatIsOffered: a select's option is chosen among
// the options a person is offered: two options of the same label are
// ambiguous, and a hidden option is not offered, even by its value.
func TestSelectChoosesOnlyWhatIsOffered(t *testing.T) {
	t.Parallel()
	b := planes(t)
	web := newSite(t, map[string]string{"/": `<main><h1>Office</h1>
		<label>Office <select><option value="">Choose</option><option value="IL-1">Springfield</option><option value="MO-2">Springfield</option><option value="OR-3">Salem</option></select></label>
		<label>Plan <select><option value="basic">Basic</option><option value="pro" hidden>Basic</option><option value="ent">Enterprise</option></select></label>
	</main>`})
	s := session(t, b, web.URL+"/")
	office, plan := &schema.Target{Role: "combobox", Name: "Office"}, &schema.Target{Role: "combobox", Name: "Plan"}
	refused(t, s, schema.Action{Kind: schema.ActSelect, Target: office, Value: "Springfield"}, schema.ErrAmbiguous)
	refused(t, s, schema.Action{Kind: schema.ActSelect, Target: plan, Value: "pro"}, schema.ErrNotFound)
	act(t, s, schema.Action{Kind: schema.ActSelect, Target: office, Value: "Salem"})
	act(t, s, schema.Action{Kind: schema.ActSelect, Target: plan, Value: "Basic"})
	obs := observe(t, s).Observation
	if findNode(t, &obs, "combobox", "Office").Value != "Salem" || findNode(t, &obs, "combobox", "Plan").Value != "Basic" {
		t.Fatalf("chosen:\n%s", obs.Render)
	}
}
