package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Output is a value a step's result hands to later steps, written
// `{{steps.<id>.<name>}}` where they use it. It is found at replay in the
// new result by its locator, never copied from the recording: a record id
// a create call returned, or the handle a snapshot gave a form field.
// Exactly one match binds; none is CodeBindingNotFound and several are
// CodeAmbiguous, before any later call is sent.
type Output struct {
	// JSON is a path into the result's structured content, or into its
	// text when that text is JSON. A path through a list must use index 0
	// and the list must hold exactly one item: a value is never picked out
	// of several by position.
	JSON string `yaml:"json,omitempty" json:"json,omitempty"`
	// Line locates the value in the result's text: on the one line that,
	// leading white space aside, begins with Line, the value follows it,
	// made of Token's characters and ending there (what follows is no
	// letter, digit, - or _, nor a . / or : that runs on into one: r-23
	// is not found in r-23.v2). The marks a control's state adds to its
	// snapshot line ([checked], [disabled], [expanded], [pressed],
	// [selected], [active]) are ignored on both sides. Line may hold
	// parameter references.
	Line  string `yaml:"line,omitempty" json:"line,omitempty"`
	Token string `yaml:"token,omitempty" json:"token,omitempty"` // a character class such as [a-z0-9-]
	// State is, for a line locator of a control that a click toggles (a
	// checkbox, a switch, a button), the toggle marks its line showed
	// when recorded: "checked", "checked=mixed", "pressed",
	// "pressed=mixed", or "none". Clicked in another state it would undo
	// what the recording did: a line found in another state is
	// CodeStateChanged.
	State string `yaml:"state,omitempty" json:"state,omitempty"`
	// After, with Line, keeps only the line whose sibling just before it
	// (the line above at its indentation) shows exactly this text: the
	// visible label of a control its snapshot names not (@playwright/mcp
	// shows `- generic: Username` then `- textbox [ref=e7]` for a label not
	// tied to its field). Twins are told apart as a person reads them; a
	// label moved away finds nothing.
	After string `yaml:"after,omitempty" json:"after,omitempty"`
	// Row, with Line, keeps only the line inside the table row whose
	// first cell shows exactly this text (the row's key, as a snapshot
	// shows it: a `- row` line above, its first `- cell "..."`): the
	// Archive button of the member the task names, among one a row.
	Row string `yaml:"row,omitempty" json:"row,omitempty"`
	// Pick chooses the value among the items of a listing in the result
	// (see ItemPick): with JSON, the list the path reaches; with Line,
	// the lines that begin with it; with neither, the result's lines.
	Pick *ItemPick `yaml:"pick,omitempty" json:"pick,omitempty"`
	// Text takes the result's whole text content: a file's text that a
	// read returned, for a later call to write.
	Text bool `yaml:"text,omitempty" json:"text,omitempty"`
	// Place, with Token, finds the value on the line of the control a
	// place the task states picks in a snapshot (the third result, the
	// second box): see Placing. State holds for that line as for Line's.
	Place *Placing `yaml:"place,omitempty" json:"place,omitempty"`
}

// Placing picks a snapshot's control by its place: among the controls of
// Role that Among counts in the context Within (see AmongItems,
// AmongControls, SnapshotNodes), the Nth, most often {{place|ordinal}}.
// The value follows Mark on its line ("[ref=").
type Placing struct {
	Role   string `yaml:"role" json:"role"`
	Among  string `yaml:"among" json:"among"`
	Within string `yaml:"within,omitempty" json:"within,omitempty"`
	// Name is how the counted controls are named (Count.Name): "*" each
	// its own way, else the name they all share.
	Name string `yaml:"name" json:"name"`
	// Shapes are the list's items' shapes when learned (Count.Shapes).
	Shapes []string `yaml:"shapes,omitempty" json:"shapes,omitempty"`
	Nth    string   `yaml:"nth" json:"nth"`
	Mark   string   `yaml:"mark" json:"mark"`
}

// validate reports what is wrong with p.
func (p *Placing) validate() error {
	switch {
	case p.Role == "" || p.Mark == "" || p.Name == "":
		return Errorf(CodeInvalid, "place: it needs the role and the name (* for names each their own) of the controls it counts, and the mark its value follows")
	case p.Among != AmongItems && p.Among != AmongControls:
		return Errorf(CodeOutOfSet, "place: among %q: want %s or %s", Clip(p.Among, 40), AmongItems, AmongControls)
	case len(p.Within) > maxPickText || len(p.Mark) > maxPickText || len(p.Role) > maxPickText || len(p.Name) > maxPickText:
		return Errorf(CodeTooLarge, "place: a field over %d bytes", maxPickText)
	}
	if err := validShapes(p.Shapes); err != nil {
		return err
	}
	if refs, _ := ParseRefs(p.Nth); len(refs) > 0 {
		return nil
	}
	if n, err := strconv.Atoi(p.Nth); err != nil || n < 1 || n > MaxNth {
		return Errorf(CodeInvalid, "place: nth %q is no place from 1 to %d, nor a parameter's", Clip(p.Nth, 40), MaxNth)
	}
	return nil
}

// values are the texts of p that may hold references.
func (p *Placing) values() []any {
	if p == nil {
		return nil
	}
	return []any{p.Nth, p.Within}
}

// locatePlace finds the value on the line of the control o.Place picks.
func (o Output) locatePlace(w World, b Bindings) (any, error) {
	p := o.Place
	within, err := RenderString(p.Within, b)
	if err != nil {
		return nil, err
	}
	nth, err := RenderString(p.Nth, b)
	if err != nil {
		return nil, err
	}
	n, err := strconv.Atoi(nth)
	if err != nil || n < 1 || n > MaxNth {
		return nil, Errorf(CodeInvalid, "place: %q is no place from 1 to %d", Clip(nth, 40), MaxNth)
	}
	nodes, lines := SnapshotNodes(w.Text)
	placed, err := Placed(nodes, Count{Role: p.Role, Among: p.Among, Within: within, Name: p.Name, Shapes: p.Shapes})
	switch {
	case errors.Is(err, ErrNotFound):
		return nil, Errorf(CodeBindingNotFound, "%s", AsError(err).Message)
	case err != nil:
		return nil, err
	case n > len(placed):
		return nil, Errorf(CodeBindingNotFound, "the %d. of %d %s controls is not there: refusing to take another", n, len(placed), p.Role)
	}
	line := strings.Split(w.Text, "\n")[lines[placed[n-1]]]
	_, rest, ok := strings.Cut(line, p.Mark)
	v := regexp.MustCompile("^" + o.Token + "+").FindString(rest) // validate checked the class
	if !ok || v == "" {
		return nil, Errorf(CodeBindingNotFound, "the %d. %s control's line has no value after %q", n, p.Role, p.Mark)
	}
	state, _ := ToggleState(line)
	return o.inState(v, state, fmt.Sprintf("the %d. %s control", n, p.Role))
}

// AlreadyToggled is what an output of a control a click toggles binds
// when the control already shows the state the recorded click left it in
// (ticked where the click ticked it): the click would undo it, and the
// task needs none. The replay leaves out the steps that use it.
type AlreadyToggled struct{ State string }

func (a AlreadyToggled) String() string { return "already " + orNone(a.State) }

// toggledBy reports whether a control found now in state shows what a
// click on it in the state recorded left: ticked or pressed from none,
// none from either. A mixed state is neither.
func toggledBy(recorded, now string) bool {
	switch recorded {
	case "none":
		return now == "checked" || now == "pressed"
	case "checked", "pressed":
		return now == "none"
	}
	return false
}

// togglingRoles are the roles whose control a click toggles.
var togglingRoles = map[string]bool{"checkbox": true, "switch": true, "menuitemcheckbox": true, "button": true}

// toggleMark is a toggle state's mark on a snapshot line.
var toggleMark = regexp.MustCompile(` \[((?:checked|pressed)(?:=mixed)?)\]`)

// snapshotRole is a snapshot line's role: its first word, after "- ".
var snapshotRole = regexp.MustCompile(`^(?:- )?([a-z]+)\b`)

// ToggleState returns the toggle state a snapshot line shows (as
// Output.State names it) and whether its control is one a click toggles.
func ToggleState(line string) (string, bool) {
	line = strings.TrimLeft(line, " \t")
	m := snapshotRole.FindStringSubmatch(line)
	if m == nil || !togglingRoles[m[1]] {
		return "", false
	}
	var marks []string
	for _, t := range toggleMark.FindAllStringSubmatch(line, -1) {
		marks = append(marks, t[1])
	}
	if len(marks) == 0 {
		return "none", true
	}
	return strings.Join(marks, " "), true
}

// toggleStates are the values Output.State may hold.
var toggleStates = regexp.MustCompile(`^(none|(checked|pressed)(=mixed)?)$`)

// outputNamePattern is what may follow steps.<id>. in a reference.
var outputNamePattern = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)

// tokenPattern is the token classes Output.Token may be: a bracketed set
// of letters, digits and a few separators.
var tokenPattern = regexp.MustCompile(`^\[[A-Za-z0-9_.:/+=-]+\]$`)

// validate reports what is wrong with o.
func (o Output) validate() error {
	switch {
	case (o.After != "" || o.Row != "") && (o.Line == "" || o.Pick != nil):
		return Errorf(CodeInvalid, "after and row belong to a line locator")
	case o.Text && (o.JSON != "" || o.Line != "" || o.Token != "" || o.State != "" || o.Pick != nil):
		return Errorf(CodeInvalid, "an output that takes the result's whole text has no other locator")
	case o.Text:
		return nil
	case o.Place != nil && (o.JSON != "" || o.Line != "" || o.Pick != nil || o.After != "" || o.Row != ""):
		return Errorf(CodeInvalid, "a place is a locator of its own: no json, line, after, row or pick beside it")
	case o.Place != nil:
		if err := o.validateToken(); err != nil {
			return err
		}
		return o.Place.validate()
	case o.Pick != nil && (o.Token != "" || o.State != ""):
		return Errorf(CodeInvalid, "a pick's items are whole lines or JSON list items: no token or state")
	case o.Pick != nil:
		if err := o.Pick.validate(o); err != nil {
			return err
		}
		if o.JSON != "" && o.Line != "" {
			return Errorf(CodeInvalid, "an output is located by json or by line, not both")
		}
		if o.JSON != "" {
			if _, err := ParseJSONPath(o.JSON); err != nil {
				return err
			}
		}
		_, err := ParseRefs(o.Line)
		return err
	case o.JSON != "" && o.Line != "":
		return Errorf(CodeInvalid, "an output is located by json or by line, not both")
	case o.JSON != "":
		if o.Token != "" {
			return Errorf(CodeInvalid, "token belongs to a line locator")
		}
		p, err := ParseJSONPath(o.JSON)
		if err != nil {
			return err
		}
		for _, s := range p.segs {
			if s.isIdx && s.index != 0 {
				return Errorf(CodeInvalid, "json path %s picks item %d of a list: an output may only take the one item of a one-item list ([0])", o.JSON, s.index)
			}
		}
	case strings.TrimSpace(o.Line) == "":
		return Errorf(CodeInvalid, "an output needs a json path or a line locator")
	default:
		if err := o.validateToken(); err != nil {
			return err
		}
	}
	if o.JSON != "" && o.State != "" {
		return Errorf(CodeInvalid, "state belongs to a line locator")
	}
	if _, err := ParseRefs(o.Line); err != nil {
		return err
	}
	if _, err := ParseRefs(o.After + o.Row); err != nil {
		return err
	}
	return nil
}

// validateToken checks the token and state of a locator that reads a
// value off a line (Line, Place).
func (o Output) validateToken() error {
	switch {
	case !tokenPattern.MatchString(o.Token):
		return Errorf(CodeInvalid, "token %q: want a character class such as [a-z0-9-]", o.Token)
	case o.State != "" && !toggleStates.MatchString(o.State):
		return Errorf(CodeInvalid, "state %q: want none, checked, pressed, checked=mixed or pressed=mixed", o.State)
	}
	return nil
}

// String describes the locator for people.
func (o Output) String() string {
	switch {
	case o.Text:
		return "the whole text"
	case o.Pick != nil:
		return o.Pick.String() + " in " + o.where()
	case o.Place != nil:
		return fmt.Sprintf("the %s. %s counted among %s in %q, then %s+ after %q", o.Place.Nth, o.Place.Role, o.Place.Among, o.Place.Within, o.Token, o.Place.Mark)
	}
	if o.JSON != "" {
		return "json " + o.JSON
	}
	desc := fmt.Sprintf("line %q then %s+", o.Line, o.Token)
	if o.After != "" {
		desc += fmt.Sprintf(" after %q", o.After)
	}
	if o.Row != "" {
		desc += fmt.Sprintf(" in the row of %q", o.Row)
	}
	if o.State != "" {
		desc += ", " + o.State
	}
	return desc
}

// Locate finds o's value in w, the world a step's call left (its Output
// the call's result, its Text the result's text content). b renders
// parameter references in a line locator.
func (o Output) Locate(w World, b Bindings) (any, error) {
	switch {
	case o.Text:
		if w.Text == "" {
			return nil, Errorf(CodeBindingNotFound, "the result has no text")
		}
		return w.Text, nil
	case o.Pick != nil:
		return o.locateItem(w, b)
	case o.Place != nil:
		return o.locatePlace(w, b)
	}
	if o.JSON != "" {
		return o.locateJSON(w)
	}
	line, err := RenderString(o.Line, b)
	if err != nil {
		return nil, err
	}
	line = stateMarks.ReplaceAllString(line, "")
	after, err := RenderString(o.After, b)
	if err != nil {
		return nil, err
	}
	row, err := RenderString(o.Row, b)
	if err != nil {
		return nil, err
	}
	token := regexp.MustCompile("^" + o.Token + "+") // validate checked the class
	var found, runOn []string
	var state string
	lines := strings.Split(w.Text, "\n")
	for i, l := range lines {
		rest, ok := strings.CutPrefix(stateMarks.ReplaceAllString(strings.TrimLeft(l, " \t"), ""), line)
		if !ok || o.After != "" && (SiblingBefore(lines, i) != after || twinAfter(lines, i, line)) || o.Row != "" && RowKey(lines, i) != row {
			continue
		}
		v := token.FindString(rest)
		switch {
		case v == "":
		case runsOn.MatchString(rest[len(v):]):
			runOn = append(runOn, Clip(rest, 40))
		default:
			found = append(found, v)
			state, _ = ToggleState(l)
		}
	}
	switch {
	case len(found)+len(runOn) > 1 && (o.After != "" || o.Row != ""):
		return nil, Errorf(CodeAmbiguous, "%d lines of the result begin with %q %s (values %s): refusing to guess", len(found)+len(runOn), line, o.placed(after, row), ClipList(append(found, runOn...), 5))
	case len(found)+len(runOn) > 1:
		return nil, Errorf(CodeAmbiguous, "%d lines of the result begin with %q (values %s): refusing to guess", len(found)+len(runOn), line, ClipList(append(found, runOn...), 5))
	case len(runOn) == 1:
		return nil, Errorf(CodeBindingNotFound, "the value after %q runs on (%q): it is not the kind of value the recording had", line, runOn[0])
	case len(found) == 0 && (o.After != "" || o.Row != ""):
		return nil, Errorf(CodeBindingNotFound, "no line of the result begins with %q followed by a value %s", line, o.placed(after, row))
	case len(found) == 0:
		return nil, Errorf(CodeBindingNotFound, "no line of the result begins with %q followed by a value", line)
	}
	return o.inState(found[0], state, fmt.Sprintf("the control on the line beginning %q", line))
}

// inState returns v, the value found on the line of a control now in
// state, when the control is in the state recorded (o.State) or o
// recorded none; AlreadyToggled when it already shows what the recorded
// click left; else CodeStateChanged, control naming it.
func (o Output) inState(v any, state, control string) (any, error) {
	switch {
	case o.State == "" || state == o.State:
		return v, nil
	case toggledBy(o.State, state):
		return AlreadyToggled{State: state}, nil
	}
	return nil, Errorf(CodeStateChanged, "%s is %s, recorded %s: a click would not do what it did", control, orNone(state), o.State)
}

// placed says, for an error, where a line had to be.
func (o Output) placed(after, row string) string {
	var parts []string
	if o.After != "" {
		parts = append(parts, fmt.Sprintf("just after a line showing %q", after))
	}
	if o.Row != "" {
		parts = append(parts, fmt.Sprintf("in the row of %q", row))
	}
	return strings.Join(parts, " and ")
}

// RowKey returns the key of the table row lines[i] is in: the text of
// the first cell of the nearest `- row` line above it at a shallower
// indentation ("" outside a row).
func RowKey(lines []string, i int) string {
	indent := indentOf(lines[i])
	for j := i - 1; j >= 0; j-- {
		d := indentOf(lines[j])
		if strings.TrimSpace(lines[j]) == "" || d >= indent {
			continue
		}
		indent = d
		if !strings.HasPrefix(strings.TrimSpace(lines[j]), "- row") {
			continue
		}
		for _, l := range lines[j+1:] {
			if indentOf(l) <= d {
				break
			}
			if t := strings.TrimSpace(l); strings.HasPrefix(t, "- cell") || strings.HasPrefix(t, "- gridcell") || strings.HasPrefix(t, "- rowheader") {
				return lineText(t)
			}
		}
		return ""
	}
	return ""
}

func indentOf(l string) int { return len(l) - len(strings.TrimLeft(l, " \t")) }

// SiblingBefore returns the text the line before lines[i] at its own
// indentation shows ("" when there is none: lines[i] is its parent's
// first child): a snapshot line's text after its role and marks, or its
// quoted name.
func SiblingBefore(lines []string, i int) string {
	if l, ok := sibling(lines, i, -1); ok {
		return lineText(strings.TrimSpace(l))
	}
	return ""
}

// twinAfter reports whether the sibling just after lines[i] begins with
// prefix too: a label over a run of fields alike labels no one of them.
func twinAfter(lines []string, i int, prefix string) bool {
	l, ok := sibling(lines, i, +1)
	return ok && strings.HasPrefix(stateMarks.ReplaceAllString(strings.TrimLeft(l, " \t"), ""), prefix)
}

// sibling returns the line next to lines[i] at its indentation, the one
// before it (step -1) or after it (+1): deeper lines between are skipped,
// a shallower one (its parent's end) means there is none.
func sibling(lines []string, i, step int) (string, bool) {
	indent := indentOf(lines[i])
	for j := i + step; j >= 0 && j < len(lines); j += step {
		switch d := indentOf(lines[j]); {
		case strings.TrimSpace(lines[j]) == "" || d > indent:
			continue
		case d < indent:
			return "", false
		}
		return lines[j], true
	}
	return "", false
}

// snapshotText is what a snapshot line shows: `- role "name" [marks]`,
// `- role [marks]: text`, or `- text: text`.
var snapshotText = regexp.MustCompile(`^(?:- )?[a-z]+(?: "((?:[^"\\]|\\.)*)")?(?: \[[^\]]*\])*:? ?(.*)$`)

// lineText returns the text a snapshot line shows: its name, else what
// follows its colon.
func lineText(l string) string {
	m := snapshotText.FindStringSubmatch(l)
	switch {
	case m == nil:
		return l
	case m[1] != "":
		return m[1]
	}
	return strings.TrimSpace(m[2])
}

func orNone(state string) string {
	if state == "" {
		return "no control a click toggles"
	}
	return state
}

// stateMarks are the marks a control's state adds to its snapshot line.
var stateMarks = regexp.MustCompile(` \[(checked|disabled|expanded|pressed|selected|active)(=[a-z]+)?\]`)

// runsOn matches text that continues a token: a letter, digit, - or _,
// or a . / or : followed by one.
var runsOn = regexp.MustCompile(`^([A-Za-z0-9_-]|[./:][A-Za-z0-9_-])`)

func (o Output) locateJSON(w World) (any, error) {
	v, err := o.nodeAt(w)
	if err != nil {
		return nil, err
	}
	switch v.(type) {
	case string, float64, bool:
		return v, nil
	}
	return nil, Errorf(CodeBindingNotFound, "%s is not a string, number or bool", o.JSON)
}

// nodeAt returns the node of w's JSON document at o's path.
func (o Output) nodeAt(w World) (any, error) {
	doc, ok := ResultDocument(w.Output)
	if !ok {
		return nil, Errorf(CodeBindingNotFound, "the result has no structured content or JSON text to find %s in", o.JSON)
	}
	p, err := ParseJSONPath(o.JSON)
	if err != nil {
		return nil, err
	}
	v := doc
	for i, s := range p.segs {
		switch node := v.(type) {
		case map[string]any:
			child, ok := node[s.key]
			if s.isIdx || !ok {
				return nil, Errorf(CodeBindingNotFound, "the result has nothing at %s", p.prefix(i+1))
			}
			v = child
		case []any:
			if !s.isIdx || len(node) == 0 {
				return nil, Errorf(CodeBindingNotFound, "the result has nothing at %s", p.prefix(i+1))
			}
			if len(node) > 1 {
				return nil, Errorf(CodeAmbiguous, "%s holds %d items where the recording had one: refusing to pick one by position", p.prefix(i), len(node))
			}
			v = node[0]
		default:
			return nil, Errorf(CodeBindingNotFound, "the result has nothing at %s", p.prefix(i+1))
		}
	}
	return v, nil
}

// ResultDocument is the JSON document of an MCP tool result that outputs
// and checks look into: its structuredContent, or else its text content
// when that parses as a JSON object or array.
func ResultDocument(result RawJSON) (any, bool) {
	var r struct {
		Structured any `json:"structuredContent"`
		Content    []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	}
	if json.Unmarshal(result, &r) != nil {
		return nil, false
	}
	if r.Structured != nil {
		return r.Structured, true
	}
	if len(r.Content) == 1 && r.Content[0].Type == "text" {
		text := strings.TrimSpace(r.Content[0].Text)
		if strings.HasPrefix(text, "{") || strings.HasPrefix(text, "[") {
			var v any
			if json.Unmarshal([]byte(text), &v) == nil {
				return v, true
			}
		}
	}
	return nil, false
}
