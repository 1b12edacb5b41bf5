package actuator

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/rote-agent/rote/schema"
)

// TestSendsTo: where a control sends is its form's method and action, or
// its link's GET, resolved against the page and without a fragment; a
// dialog form sends nowhere; a control that sends neither, or a page
// address that does not parse, has no sending to guard.
func TestSendsTo(t *testing.T) {
	const page = "http://shop.test/cart/checkout?step=2#top"
	cases := []struct {
		name     string
		contract *schema.Contract
		page     string
		method   string
		url      string
		form     bool
		ok       bool
	}{
		{"a post form", &schema.Contract{Tag: "button", InputType: "submit", FormAction: "/order", FormMethod: "post"}, page, "POST", "http://shop.test/order", true, true},
		{"a relative action", &schema.Contract{Tag: "input", FormAction: "pay?x=1#done", FormMethod: "POST"}, page, "POST", "http://shop.test/cart/pay?x=1", true, true},
		{"no action: the page itself", &schema.Contract{Tag: "button", InputType: "submit", FormMethod: "get"}, page, "GET", "http://shop.test/cart/checkout?step=2", true, true},
		{"a dialog form", &schema.Contract{Tag: "button", InputType: "submit", FormMethod: "dialog"}, page, "", "http://shop.test/cart/checkout?step=2", true, true},
		{"a link", &schema.Contract{Tag: "a", Href: "/reports/7.pdf#page=2"}, page, "GET", "http://shop.test/reports/7.pdf", false, true},
		{"a link off the origin", &schema.Contract{Tag: "a", Href: "https://bank.test/pay"}, page, "GET", "https://bank.test/pay", false, true},
		{"a field of no form", &schema.Contract{Tag: "input", InputType: "text"}, page, "", "", false, false},
		{"no contract", nil, page, "", "", false, false},
		{"a page that does not parse", &schema.Contract{Tag: "a", Href: "/x"}, "http://[::1", "", "", false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, ok := sendsTo(c.contract, c.page)
			if ok != c.ok {
				t.Fatalf("sends %v, want %v", ok, c.ok)
			}
			if !ok {
				return
			}
			if s.Method != c.method || s.url.String() != c.url || s.Form != c.form {
				t.Errorf("sends %s %s (form %v), want %s %s (form %v)", s.Method, s.url, s.Form, c.method, c.url, c.form)
			}
		})
	}
}

// TestSendingAllows: a post form lets through a POST to its action
// exactly, a get form a GET to its action with any query (its fields), a
// link a GET to its href exactly; a fragment never matters, and a dialog
// form lets nothing through.
func TestSendingAllows(t *testing.T) {
	const page = "http://shop.test/cart"
	sendingOf := func(c schema.Contract) sending {
		s, ok := sendsTo(&c, page)
		if !ok {
			t.Fatalf("%+v sends nowhere", c)
		}
		return s
	}
	post := sendingOf(schema.Contract{Tag: "button", InputType: "submit", FormAction: "/order", FormMethod: "post"})
	search := sendingOf(schema.Contract{Tag: "button", InputType: "submit", FormAction: "/search?lang=en", FormMethod: "get"})
	link := sendingOf(schema.Contract{Tag: "a", Href: "/report?id=7"})
	dialog := sendingOf(schema.Contract{Tag: "button", InputType: "submit", FormMethod: "dialog"})
	cases := []struct {
		name    string
		s       sending
		method  string
		url     string
		allowed bool
	}{
		{"post to the action", post, "POST", "http://shop.test/order", true},
		{"post to the action with a fragment", post, "POST", "http://shop.test/order#sent", true},
		{"post with a query the form does not have", post, "POST", "http://shop.test/order?to=evil", false},
		{"post elsewhere", post, "POST", "http://shop.test/order/import", false},
		{"post to another origin", post, "POST", "http://evil.test/order", false},
		{"get where a post was recorded", post, "GET", "http://shop.test/order", false},
		{"a get form's fields", search, "GET", "http://shop.test/search?q=ink", true},
		{"a get form with no fields", search, "GET", "http://shop.test/search", true},
		{"a get form elsewhere", search, "GET", "http://shop.test/find?q=ink", false},
		{"post where a get form was recorded", search, "POST", "http://shop.test/search?q=ink", false},
		{"the link", link, "GET", "http://shop.test/report?id=7", true},
		{"the link to another record", link, "GET", "http://shop.test/report?id=8", false},
		{"a dialog form", dialog, "GET", page, false},
		{"an address that does not parse", post, "POST", "http://[::1", false},
	}
	for _, c := range cases {
		if got := c.s.allows(c.method, c.url); got != c.allowed {
			t.Errorf("%s: allows(%s %s) = %v, want %v", c.name, c.method, c.url, got, c.allowed)
		}
	}
}

// paused is a main-frame document request held at the gate.
func paused(id, method, url, redirectedFrom string) *fetch.EventRequestPaused {
	return &fetch.EventRequestPaused{RequestID: fetch.RequestID(id), FrameID: "main", RedirectedRequestID: fetch.RequestID(redirectedFrom),
		Request: &network.Request{Method: method, URL: url}}
}

// TestSendGuardJudgesTheFirstNavigationOnly: the first navigation the
// action starts is the sending, refused unless it goes where recorded;
// a redirect and whatever follows the first are let through.
func TestSendGuardJudgesTheFirstNavigationOnly(t *testing.T) {
	want, _ := sendsTo(&schema.Contract{Tag: "button", InputType: "submit", FormAction: "/order", FormMethod: "post"}, "http://shop.test/cart")
	cases := []struct {
		name    string
		seq     []*fetch.EventRequestPaused
		refuse  []bool
		refused string
	}{
		{"where recorded", []*fetch.EventRequestPaused{paused("1", "POST", "http://shop.test/order", ""), paused("2", "GET", "http://evil.test/", "")},
			[]bool{false, false}, ""},
		{"moved by a script", []*fetch.EventRequestPaused{paused("1", "POST", "http://evil.test/collect", ""), paused("2", "POST", "http://shop.test/order", "")},
			[]bool{true, false}, "POST http://evil.test/collect"},
		{"a redirect before the sending", []*fetch.EventRequestPaused{paused("1", "GET", "http://evil.test/", "0"), paused("2", "GET", "http://shop.test/order", "")},
			[]bool{false, true}, "GET http://shop.test/order"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := &sendGuard{want: want}
			for i, e := range c.seq {
				if got := g.judge(e); got != c.refuse[i] {
					t.Errorf("request %d (%s %s): refused %v, want %v", i, e.Request.Method, e.Request.URL, got, c.refuse[i])
				}
			}
			if g.refused != c.refused {
				t.Errorf("refused %q, want %q", g.refused, c.refused)
			}
		})
	}
}

// TestDisarmSaysWhatTheGuardRefused: a guard that refused the sending is
// contract_changed, naming the request refused and the writes the page's
// scripts sent meanwhile (not the refused one again); one that refused
// nothing is no error. Either way the gate holds no guard after.
func TestDisarmSaysWhatTheGuardRefused(t *testing.T) {
	want, _ := sendsTo(&schema.Contract{Tag: "button", InputType: "submit", FormAction: "/order", FormMethod: "post"}, "http://shop.test/cart")
	for _, c := range []struct {
		name    string
		refused string
		sent    []string // requests the page started after the guard was armed
		want    []string // in the error; nil: no error
		not     string
	}{
		{"nothing refused", "", []string{"POST http://shop.test/order"}, nil, ""},
		{"refused", "POST http://evil.test/collect", []string{"POST http://evil.test/collect", "POST http://shop.test/beacon", "GET http://shop.test/logo.png"},
			[]string{"the page sent POST http://evil.test/collect where the control's contract says POST /order", "sent POST http://shop.test/beacon during the action"}, "GET http://shop.test/logo.png"},
	} {
		t.Run(c.name, func(t *testing.T) {
			// A confined gate disarms without a call to the browser.
			s := &session{net: newNetTracker()}
			s.gate = &gate{s: s, origins: []string{"http://shop.test"}}
			s.net.remember("POST http://shop.test/before", true) // before the guard: not this action's
			s.net.sent[0].at = time.Now().Add(-time.Minute)
			g := &sendGuard{want: want, armed: time.Now()}
			if err := s.gate.arm(g); err != nil {
				t.Fatal(err)
			}
			g.refused = c.refused
			for _, r := range c.sent {
				method, _, _ := strings.Cut(r, " ")
				s.net.remember(r, method != "GET")
			}
			err := s.disarm(g)
			if s.gate.guard != nil {
				t.Error("the gate still holds the guard")
			}
			if c.want == nil {
				if err != nil {
					t.Fatalf("disarm: %v", err)
				}
				return
			}
			if !errors.Is(err, schema.ErrContractChanged) {
				t.Fatalf("disarm: %v, want contract_changed", err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q does not say %q", err, w)
				}
			}
			if strings.Count(err.Error(), c.refused) != 1 || strings.Contains(err.Error(), c.not) || strings.Contains(err.Error(), "/before") {
				t.Errorf("%q names the refused request again, a read, or a request from before the action", err)
			}
		})
	}
}

// TestSendGuardForAControlThatSentNothing: a recorded control that sent
// nothing (a form a script handled) may still start a load, but not one
// that carries a value the run typed, in its address (as typed, or as a
// form encodes it) or its body; the shortest values are not guarded,
// and a session remembers a bounded number of them.
func TestSendGuardForAControlThatSentNothing(t *testing.T) {
	withBody := func(e *fetch.EventRequestPaused, body string) *fetch.EventRequestPaused {
		e.Request.HasPostData, e.Request.PostDataEntries = true, []*network.PostDataEntry{{Bytes: []byte(body)}}
		return e
	}
	values := []string{"Globex Ltd", "ap@globex.example"}
	cases := []struct {
		name   string
		req    *fetch.EventRequestPaused
		refuse bool
	}{
		{"a GET form's query", paused("1", "GET", "http://shop.test/vendors/register-v2?company_name=Globex+Ltd", ""), true},
		{"percent-encoded", paused("1", "GET", "http://shop.test/v?mail=ap%40globex.example", ""), true},
		{"a POST body", withBody(paused("1", "POST", "http://shop.test/collect", ""), "company=Globex%20Ltd&x=1"), true},
		{"a load that carries none", paused("1", "GET", "http://shop.test/vendors/done", ""), false},
		{"another value", paused("1", "GET", "http://shop.test/search?q=Initech", ""), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := &sendGuard{nothing: true, values: values}
			if got := g.judge(c.req); got != c.refuse {
				t.Fatalf("refused %v, want %v", got, c.refuse)
			}
		})
	}
	s := &session{}
	s.typed.Add("ab")
	for i := range schema.MaxGuardedValues + 5 {
		s.typed.Add(fmt.Sprintf("value-%d", i))
	}
	s.typed.Add("value-36") // already there: no change
	if len(s.typed) != schema.MaxGuardedValues || slices.Contains(s.typed, "ab") || s.typed[0] != "value-5" {
		t.Errorf("typed %d values, first %q; want the last %d, none under %d characters", len(s.typed), s.typed[0], schema.MaxGuardedValues, schema.MinGuardedValue)
	}
}
