package actuator

import (
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/rote-agent/rote/schema"
)

// A contract is read before the action; a page script can still move the
// form between that read and the request (on mousedown, change, an Enter
// keydown, submit). The send guard closes that gap where the request
// leaves: while a recorded control that sends is clicked or pressed, the
// page's first main-frame navigation is held at the gate and let through
// only when it goes where the recorded contract says, by its method;
// anything else is answered in the browser, before a byte is sent, and
// the action is contract_changed.

// sending is where a control sends (schema.Sending), resolved against
// the page.
type sending struct {
	schema.Sending
	url *url.URL
}

// sendsTo returns where c says its control sends, resolved against the
// page at pageURL, and whether it sends at all.
func sendsTo(c *schema.Contract, pageURL string) (sending, bool) {
	to, ok := c.Sending()
	if !ok {
		return sending{}, false
	}
	base, err := url.Parse(pageURL)
	if err != nil {
		return sending{}, false
	}
	u, err := base.Parse(to.Ref)
	if err != nil {
		return sending{}, false
	}
	u.Fragment = ""
	return sending{Sending: to, url: u}, true
}

// allows reports whether a request of method to raw is the sending: a
// POST to the action exactly; a GET form's request to the action with
// any query (the form's fields); a link's GET to its href exactly.
func (s sending) allows(method, raw string) bool {
	u, err := url.Parse(raw)
	if err != nil || s.Method == "" || method != s.Method {
		return false
	}
	u.Fragment = ""
	if s.Form && method == "GET" {
		got, want := *u, *s.url
		got.RawQuery, want.RawQuery = "", ""
		return got.String() == want.String()
	}
	return u.String() == s.url.String()
}

// sendGuard judges a session's first main-frame navigation while an
// action on a recorded control is in progress (see gate): one that sends
// must send where it was recorded to; one that sent nothing when
// recorded (a form a script handled) may not now carry a value the run
// typed anywhere.
type sendGuard struct {
	want sending
	// nothing: the control sends nowhere, and values are what the run
	// typed, which no load it starts may carry.
	nothing bool
	values  []string
	decided bool
	refused string    // the request refused, "METHOD url"
	armed   time.Time // when it was armed
}

// guardSend arms a guard for an action of kind on a recorded control
// whose contract is now c: for where c sends, or, for a click or a key
// press on a control that sends nowhere, against the run's typed values
// leaving with it. It returns nil when there is nothing to guard.
func (s *session) guardSend(c *schema.Contract, kind schema.ActionKind) (*sendGuard, error) {
	var g *sendGuard
	switch {
	case c.Sends(kind):
		pageURL, err := chromedp.Run(s.ctx, chromedp.Location())
		if err != nil {
			return nil, s.fail(err)
		}
		if want, ok := sendsTo(c, pageURL); ok {
			g = &sendGuard{want: want}
		}
	case (kind == schema.ActClick || kind == schema.ActPress) && len(s.typed) > 0:
		g = &sendGuard{nothing: true, values: slices.Clone(s.typed)}
	}
	if g == nil {
		return nil, nil
	}
	g.armed = time.Now()
	if err := s.gate.arm(g); err != nil {
		return nil, err
	}
	return g, nil
}

// judge says whether to refuse a paused main-frame request: only the
// first navigation is the sending; what follows it (a redirect) goes on.
// The gate holds its lock.
func (g *sendGuard) judge(e *fetch.EventRequestPaused) bool {
	if g.decided || e.RedirectedRequestID != "" {
		return false
	}
	g.decided = true
	switch {
	case g.nothing && !carries(e.Request, g.values):
		return false
	case !g.nothing && g.want.allows(e.Request.Method, e.Request.URL):
		return false
	}
	g.refused = e.Request.Method + " " + e.Request.URL
	return true
}

// disarm stops holding requests for the guard and says whether one was
// refused: a *schema.Error with CodeContractChanged.
func (s *session) disarm(g *sendGuard) error {
	err := s.gate.disarm()
	s.gate.mu.Lock()
	refused := g.refused
	s.gate.mu.Unlock()
	also := schema.AlsoSent(slices.DeleteFunc(s.net.sentSince(g.armed, false), func(r string) bool { return r == refused }))
	switch {
	case refused != "" && g.nothing:
		return schema.Errorf(schema.CodeContractChanged, "the page sent %s, carrying a value this run typed, where the control sent nothing when it was recorded: refused in the browser, that request was not sent%s", refused, also)
	case refused != "":
		return schema.Errorf(schema.CodeContractChanged, "the page sent %s where the control's contract says %s (a script moved it as it was used): refused in the browser, that request was not sent%s",
			refused, g.want.Sending, also)
	}
	return err
}

// carries reports whether a request holds one of values in its address
// or its body, as typed or as a form or a URL encodes it.
func carries(r *network.Request, values []string) bool {
	if r == nil {
		return false
	}
	texts := []string{r.URL}
	for _, e := range r.PostDataEntries {
		texts = append(texts, string(e.Bytes))
	}
	for _, t := range texts {
		decoded := t
		if d, err := url.QueryUnescape(t); err == nil {
			decoded = d
		}
		for _, v := range values {
			if strings.Contains(t, v) || strings.Contains(decoded, v) {
				return true
			}
		}
	}
	return false
}
