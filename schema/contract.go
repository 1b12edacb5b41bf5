package schema

import (
	"fmt"
	"strings"
)

// Check refuses a control that is no longer what was recorded (c):
// every field the recorded contract sets must be the same now. A nil
// recorded contract checks nothing; a nil current one is a control with
// no contract at all. The error is a *Error naming
// each difference: CodeContractChanged when the control would send
// elsewhere (form action or method, href), else CodeControlChanged when
// its kind changed (tag, input type), including a field that became a
// textarea or a select, which no key sends a form from.
func (c *Contract) Check(current *Contract) error {
	recorded := c
	if recorded == nil {
		return nil
	}
	if current == nil {
		current = &Contract{}
	}
	var diffs []string
	code := CodeControlChanged
	for _, f := range []struct {
		name, was, now string
		sends          bool
	}{
		{"tag", recorded.Tag, current.Tag, false},
		{"input type", recorded.InputType, current.InputType, false},
		{"form action", recorded.FormAction, current.FormAction, true},
		{"form method", recorded.FormMethod, current.FormMethod, true},
		{"href", recorded.Href, current.Href, true},
		{"radio group", recorded.Group, current.Group, false},
	} {
		if f.was != "" && f.was != f.now {
			diffs = append(diffs, fmt.Sprintf("%s was %q, is %q", f.name, f.was, f.now))
			if f.sends && (f.now != "" || !current.sendsNothing()) {
				code = CodeContractChanged
			}
		}
	}
	if len(diffs) > 0 {
		return Errorf(code, "%s", strings.Join(diffs, "; "))
	}
	return nil
}

// CheckSending refuses, as CodeContractChanged, a control that sent
// nowhere when recorded (a button or field of no form and no link: a
// script handled it) and that a click or key press of kind would now
// send through a form or a link: the task's values would leave for an
// address the recording never sent them to. A recorded link whose
// address was left out (it varies) is no control that sent nowhere.
func (c *Contract) CheckSending(current *Contract, kind ActionKind) error {
	if c == nil || (c.Tag != "button" && c.Tag != "input") || c.FormMethod != "" || c.Href != "" || !current.Sends(kind) {
		return nil
	}
	to, _ := current.Sending()
	return Errorf(CodeContractChanged, "the control sent nothing when recorded (a script handled it); a %s would now send %s", kind, to)
}

// sendsNothing reports whether the control cannot send a form or follow
// a link on its own: a textarea or a select.
func (c *Contract) sendsNothing() bool { return c.Tag == "textarea" || c.Tag == "select" }

// Sends reports whether acting on the control with kind (a click or a
// key press) may send its form or follow its link: a click sends through
// a link or a submit button, a key press (Enter) through a link or any
// control that names its form's action.
func (c *Contract) Sends(kind ActionKind) bool {
	switch {
	case c == nil || kind == ActDrag || kind == ActSetValue:
		return false // a drag or a value set follows no link and sends no form
	case c.Href != "":
		return true
	case c.FormMethod == "":
		return false
	case kind == ActPress:
		return true
	}
	return kind == ActClick && (c.Tag == "button" && c.InputType == "submit" || c.Tag == "input" && (c.InputType == "submit" || c.InputType == "image"))
}

// Sending is where a control sends, as its contract says: the request's
// method (GET, POST; "" for a dialog form, which sends nothing), the
// address (relative to the page unless it leaves its origin), and
// whether a form sends it (a GET form replaces the query with its
// fields).
type Sending struct {
	Method string `json:"method"`
	Ref    string `json:"ref"`
	Form   bool   `json:"form"`
}

// Sending returns where c's control sends: its form's method and action,
// else its link's href; ok is false for a control that sends neither.
func (c *Contract) Sending() (s Sending, ok bool) {
	switch {
	case c == nil:
		return Sending{}, false
	case c.FormMethod != "":
		method := strings.ToUpper(c.FormMethod)
		if method == "DIALOG" {
			method = ""
		}
		return Sending{Method: method, Ref: c.FormAction, Form: true}, true
	case c.Href != "":
		return Sending{Method: "GET", Ref: c.Href}, true
	}
	return Sending{}, false
}

func (s Sending) String() string {
	if s.Method == "" {
		return "nowhere (a dialog form)"
	}
	return s.Method + " " + s.Ref
}

// AlsoSent words the requests that may change something a page's scripts
// sent while a send guard held its navigation ("METHOD url"), for the
// guard's refusal to say that they left: "" for none.
func AlsoSent(others []string) string {
	if len(others) == 0 {
		return ""
	}
	return fmt.Sprintf("; the page's scripts sent %s during the action, which went out (the guard holds navigations only)", strings.Join(others, ", "))
}
