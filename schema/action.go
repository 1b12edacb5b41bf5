package schema

// ActionKind is the closed set of browser actions.
type ActionKind string

// Browser actions. Nothing else can be dispatched to a browser.
const (
	ActNavigate ActionKind = "navigate"
	ActClick    ActionKind = "click"
	ActFill     ActionKind = "fill"
	ActSelect   ActionKind = "select"
	ActPress    ActionKind = "press"
	ActHover    ActionKind = "hover"
	ActDrag     ActionKind = "drag"      // a drag from the target to To
	ActSetValue ActionKind = "set_value" // a date, time, range or color input set to Value
	ActCheck    ActionKind = "check"
	ActExtract  ActionKind = "extract"
	ActDone     ActionKind = "done"
	ActFail     ActionKind = "fail"
)

// ActionKinds returns every action kind in a fixed order.
func ActionKinds() []ActionKind {
	return []ActionKind{ActNavigate, ActClick, ActFill, ActSelect, ActPress, ActHover, ActDrag, ActSetValue, ActCheck, ActExtract, ActDone, ActFail}
}

// ParseActionKind returns the action kind named s, or an *Error with
// CodeOutOfSet.
func ParseActionKind(s string) (ActionKind, error) {
	for _, k := range ActionKinds() {
		if string(k) == s {
			return k, nil
		}
	}
	return "", Errorf(CodeOutOfSet, "action %q: want one of navigate, click, fill, select, press, hover, drag, set_value, check, extract, done, fail", s)
}

// Contract is what a control was when it was recorded. Replay refuses to
// act on a control whose contract changed (a field that became a textarea,
// a submit that now posts elsewhere).
type Contract struct {
	Tag        string `yaml:"tag,omitempty" json:"tag,omitempty" msgpack:"tag,omitempty"`
	InputType  string `yaml:"input_type,omitempty" json:"input_type,omitempty" msgpack:"input_type,omitempty"`
	FormAction string `yaml:"form_action,omitempty" json:"form_action,omitempty" msgpack:"form_action,omitempty"`
	FormMethod string `yaml:"form_method,omitempty" json:"form_method,omitempty" msgpack:"form_method,omitempty"`
	Href       string `yaml:"href,omitempty" json:"href,omitempty" msgpack:"href,omitempty"`
	// Group is a radio's name, the group it chooses in: a plan's radio
	// is not the billing period's.
	Group string `yaml:"group,omitempty" json:"group,omitempty" msgpack:"group,omitempty"`
}

// Target identifies a page control, most specific first: its stable id,
// its role and accessible name, and nearby text as a last resort. A
// target chosen among sibling records has no id or name of its own: its
// Pick chooses it on the page as it is.
type Target struct {
	ID       string    `yaml:"id,omitempty" json:"id,omitempty" msgpack:"id,omitempty"`
	Role     string    `yaml:"role,omitempty" json:"role,omitempty" msgpack:"role,omitempty"`
	Name     string    `yaml:"name,omitempty" json:"name,omitempty" msgpack:"name,omitempty"`
	Near     string    `yaml:"near,omitempty" json:"near,omitempty" msgpack:"near,omitempty"`
	Contract *Contract `yaml:"contract,omitempty" json:"contract,omitempty" msgpack:"contract,omitempty"`
	Pick     *Pick     `yaml:"pick,omitempty" json:"pick,omitempty" msgpack:"pick,omitempty"`
	// Twins is how many fields shared the target's role, name and
	// context when it was recorded, told apart by their order alone (ID
	// is id~N for the Nth). A replay takes the Nth only while the page
	// shows that many: the rule the agent acted by, checked.
	Twins int `yaml:"twins,omitempty" json:"twins,omitempty" msgpack:"twins,omitempty"`
}

// MaxTwins bounds Target.Twins: more fields alike than this are a list,
// not a form.
const MaxTwins = 20

// Empty reports whether t identifies nothing.
func (t *Target) Empty() bool {
	return t == nil || (t.ID == "" && t.Role == "" && t.Name == "" && t.Near == "" && t.Pick == nil)
}

// Action is one typed browser action.
type Action struct {
	Kind   ActionKind `json:"action" msgpack:"kind"`
	Target *Target    `json:"target,omitempty" msgpack:"target,omitempty"`
	To     *Target    `json:"to,omitempty" msgpack:"to,omitempty"`         // drag: where the target is dropped
	URL    string     `json:"url,omitempty" msgpack:"url,omitempty"`       // navigate
	Value  string     `json:"value,omitempty" msgpack:"value,omitempty"`   // fill, select, set_value, press (a key or chord), check ("false" unchecks), extract (how many records of a list)
	Reason string     `json:"reason,omitempty" msgpack:"reason,omitempty"` // done, fail
}

// ValidatePick checks a's target as a request to act: a pick, if it has
// one, is the whole target (no id, name or near beside it), for a click
// or a hover. The action a pick resolved is recorded with the control it
// found beside the pick, which Validate accepts.
func (a Action) ValidatePick() error {
	if a.Kind == ActExtract {
		return nil // Validate checks an extract's count and list
	}
	return validatePicking(string(a.Kind), a.Target, false)
}

// Validate returns an *Error: CodeOutOfSet for an unknown kind, CodeInvalid
// when the kind's required fields are missing.
func (a Action) Validate() error {
	if _, err := ParseActionKind(string(a.Kind)); err != nil {
		return err
	}
	switch a.Kind {
	case ActNavigate:
		if a.URL == "" {
			return Errorf(CodeInvalid, "navigate needs a url")
		}
	case ActClick, ActHover, ActCheck:
		if a.Target.Empty() {
			return Errorf(CodeInvalid, "%s needs a target", a.Kind)
		}
		return a.Target.Pick.Validate()
	case ActFill, ActSelect:
		if a.Target.Empty() {
			return Errorf(CodeInvalid, "%s needs a target", a.Kind)
		}
		if a.Kind == ActSelect && a.Value == "" {
			return Errorf(CodeInvalid, "select needs a value")
		}
	case ActSetValue:
		if a.Target.Empty() {
			return Errorf(CodeInvalid, "set_value needs a target")
		}
	case ActDrag:
		if a.Target.Empty() || a.To.Empty() {
			return Errorf(CodeInvalid, "drag needs a target and a place to drop it (to)")
		}
		if a.To.Pick != nil {
			return Errorf(CodeInvalid, "drag: a drop place is named, never picked")
		}
		return a.Target.Pick.Validate()
	case ActPress:
		if _, err := ParseChord(a.Value); err != nil {
			return err
		}
	case ActExtract:
		if a.Value == "" {
			break
		}
		if err := checkCount(a.Value); err != nil {
			return err
		}
		return readsList(a.Target)
	}
	return nil
}
