package actuator

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/rote-agent/rote/schema"
)

// testGate is a gate of a session with no browser: its decisions are
// made as in one, and its answers to the browser fail (a context that is
// no chromedp context), which the gate ignores.
func testGate(origins ...string) *gate {
	s := &session{ctx: context.Background(), net: newNetTracker()}
	s.gate = &gate{s: s, frame: "main", origins: origins}
	return s.gate
}

// held is a document request a frame makes, held at the gate.
func held(frame cdp.FrameID, method, url string) *fetch.EventRequestPaused {
	return &fetch.EventRequestPaused{RequestID: "r", FrameID: frame, Request: &network.Request{Method: method, URL: url}}
}

// TestGateRefusesLoadsOffTheOrigins: a confined session's page loads
// only from its origins; a refused main-frame load is the next action's
// out_of_origin, named by its origin and never by the rest of the
// address, and only the first since the last take; a frame's refused
// load is not the action's error; an unconfined session refuses only
// what is no http or https page.
func TestGateRefusesLoadsOffTheOrigins(t *testing.T) {
	cases := []struct {
		name    string
		origins []string
		events  []any
		want    string // in the out_of_origin error; "" none
	}{
		{"a page on the origin", []string{"http://shop.test"}, []any{held("main", "GET", "http://shop.test/next")}, ""},
		{"a page elsewhere", []string{"http://shop.test"}, []any{held("main", "GET", "http://evil.test/steal?token=s3cret")}, "the page went to a page on http://evil.test"},
		{"the first of two", []string{"http://shop.test"}, []any{held("main", "GET", "http://evil.test/a"), held("main", "GET", "http://other.test/b")}, "http://evil.test"},
		{"a frame elsewhere", []string{"http://shop.test"}, []any{held("ad-frame", "GET", "http://evil.test/ad")}, ""},
		{"unconfined, anywhere on the web", nil, []any{held("main", "GET", "http://evil.test/")}, ""},
		{"unconfined, a file", nil, []any{held("main", "GET", "file:///etc/passwd")}, `the page went to a "file" address`},
		{"a tab elsewhere", []string{"http://shop.test"}, []any{&page.EventWindowOpen{URL: "http://evil.test/phish?token=s3cret"}}, "the page opened a new tab at a page on http://evil.test"},
		{"a tab on the origin", []string{"http://shop.test"}, []any{&page.EventWindowOpen{URL: "http://shop.test/help"}}, ""},
		{"an empty tab", []string{"http://shop.test"}, []any{&page.EventWindowOpen{}}, ""},
		{"unconfined, a tab elsewhere", nil, []any{&page.EventWindowOpen{URL: "http://evil.test/"}}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := testGate(c.origins...)
			for _, ev := range c.events {
				g.onEvent(ev)
				g.wg.Wait() // decided before the next: the browser holds one navigation at a time
			}
			err := g.take()
			if c.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if !errors.Is(err, schema.ErrOutOfOrigin) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("%v, want out_of_origin saying %q", err, c.want)
			}
			if strings.Contains(err.Error(), "s3cret") || strings.Contains(err.Error(), "other.test") {
				t.Errorf("%q names more than the first refusal's origin", err)
			}
			if again := g.take(); again != nil {
				t.Errorf("taken twice: %v", again)
			}
		})
	}
}

// TestArmedGateJudgesOnlyTheMainFrame: while a send guard is armed, the
// main frame's first load is its to judge; a frame's load is not.
func TestArmedGateJudgesOnlyTheMainFrame(t *testing.T) {
	want, _ := sendsTo(&schema.Contract{Tag: "button", InputType: "submit", FormAction: "/order", FormMethod: "post"}, "http://shop.test/cart")
	g := testGate("http://shop.test")
	guard := &sendGuard{want: want}
	if err := g.arm(guard); err != nil {
		t.Fatal(err)
	}
	g.onEvent(held("ad-frame", "POST", "http://shop.test/track"))
	g.wg.Wait()
	if guard.decided {
		t.Fatal("a frame's load was judged as the sending")
	}
	g.onEvent(held("main", "POST", "http://shop.test/order/import"))
	g.wg.Wait()
	if !guard.decided || guard.refused != "POST http://shop.test/order/import" {
		t.Fatalf("the main frame's sending elsewhere: decided %v, refused %q", guard.decided, guard.refused)
	}
	if err := g.take(); err != nil {
		t.Errorf("a sending on the origin is out_of_origin: %v", err)
	}
}
