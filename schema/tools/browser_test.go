package tools_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/schema/tools"
)

func fp(t *testing.T, e schema.Environment) string {
	t.Helper()
	got, err := schema.Fingerprint(e)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestBrowserFingerprintKeepsItsProtocol: the browser's action protocol
// is part of its fingerprint, not a negotiated version Stable leaves out.
func TestBrowserFingerprintKeepsItsProtocol(t *testing.T) {
	browser := tools.BrowserEnvironment("http://127.0.0.1:8080")
	if fp(t, browser.Stable()) != fp(t, browser) {
		t.Fatal("the browser's action protocol is part of its fingerprint")
	}
}

// TestBrowserFingerprintBeforeItsNewTools: the browser's fingerprint
// before drag and set_value were added is recognised, and no other.
func TestBrowserFingerprintBeforeItsNewTools(t *testing.T) {
	browser := tools.BrowserEnvironment("http://127.0.0.1:8080")
	before := browser
	before.Tools = nil
	for _, tool := range browser.Tools {
		if tool.Name != "drag" && tool.Name != "set_value" {
			before.Tools = append(before.Tools, tool)
		}
	}
	legacy := schema.LegacyFingerprints(browser)
	if len(legacy) != 1 || legacy[0] != fp(t, before) || legacy[0] == fp(t, browser) {
		t.Fatalf("legacy %v, before %s, now %s", legacy, fp(t, before), fp(t, browser))
	}
}

// A tool call that chooses its control by a pick alone (a role, no id or
// name) is a click on the pick; before, it was refused for having no
// target.
func TestToolCallWithAPickAlone(t *testing.T) {
	pick := &schema.Pick{Name: "Delete", Rows: true, Rules: []schema.PickRule{{Order: schema.OrderLast}}}
	a, err := tools.ActionFromToolCall("click", []byte(`{"role":"button"}`), pick)
	if err != nil || a.Target == nil || a.Target.Pick != pick || a.Target.Role != "button" {
		t.Fatalf("click with a pick: %+v, %v", a.Target, err)
	}
	if _, err := tools.ActionFromToolCall("click", []byte(`{}`), nil); !errors.Is(err, schema.ErrInvalid) {
		t.Errorf("a click with no target and no pick: %v", err)
	}
}

// The browser's environment on an origin: the same origin always gives
// the same fingerprint, another origin another.
func ExampleBrowserEnvironment() {
	a, _ := schema.Fingerprint(tools.BrowserEnvironment("http://127.0.0.1:8080"))
	b, _ := schema.Fingerprint(tools.BrowserEnvironment("http://127.0.0.1:8080"))
	c, _ := schema.Fingerprint(tools.BrowserEnvironment("http://127.0.0.1:9090"))
	fmt.Println(len(a), a == b, a == c)
	// Output: 64 true false
}

func TestRoutineCall(t *testing.T) {
	spec := tools.RoutineTool([]string{"sign-in"})
	var v map[string]any
	if err := json.Unmarshal(spec.InputSchema, &v); err != nil || spec.Name != tools.RunRoutine {
		t.Fatalf("spec %s: %v", spec.InputSchema, err)
	}
	c, err := tools.ParseRoutineCall([]byte(`{"name":"sign-in","params":{"username":"admin"}}`))
	if err != nil || c.Name != "sign-in" || c.Params["username"] != "admin" {
		t.Errorf("call %+v, %v", c, err)
	}
	for _, bad := range []string{`{}`, `{"name":"sign-in","extra":1}`, `{"name":"sign-in","params":{"n":3}}`, `[1]`} {
		if _, err := tools.ParseRoutineCall([]byte(bad)); err == nil {
			t.Errorf("%s parsed", bad)
		}
	}
}
