package perception

import (
	"cmp"
	"encoding/json"
	"slices"
	"strings"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/rote-agent/rote/schema"
)

// axFrame is the accessibility tree of one frame. Owner is the backend id
// of the iframe element that holds it; 0 for the main frame.
type axFrame struct {
	Owner int64
	Nodes []*accessibility.Node
}

// Roles a user acts on. Pickers have no ARIA role: they are named by
// their input type (see pickerRoles).
var actionableRoles = set("link", "button", "textbox", "searchbox", "combobox", "listbox", "checkbox", "radio",
	"switch", "slider", "spinbutton", "menuitem", "menuitemcheckbox", "menuitemradio", "tab", "treeitem", "option",
	"date-picker", "time-picker", "datetime-local-picker", "month-picker", "week-picker", "color-picker")

// pickerRoles are Chrome's own roles for the inputs that open a picker;
// such an input is shown by its type as TYPE-picker (date-picker,
// color-picker: no ARIA role, <time>'s "time" among them, is named so),
// one control, its inner spin buttons left out.
var pickerRoles = set("Date", "InputTime", "DateTime", "ColorWell")

// Roles that scope the ids inside them: landmarks and dialogs.
var landmarkRoles = set("banner", "navigation", "main", "contentinfo", "complementary", "region", "search", "form", "dialog", "alertdialog")

// Roles whose name narrows the ids inside them.
var groupRoles = set("group", "radiogroup", "toolbar", "tabpanel", "menu", "menubar", "tablist", "listbox", "tree", "grid", "table")

// Landmarks whose loose text is content worth reading.
var contentRoles = set("main", "dialog", "alertdialog", "article", "region")

// Landmarks whose loose text is chrome around the content (a site title,
// a copyright line). Loose text outside every landmark is content: a
// page without landmarks says its instructions there.
var chromeRoles = set("banner", "navigation", "contentinfo", "complementary", "search")

// Roles whose whole text is one node: messages.
var messageRoles = set("alert", "status", "log", "note")

func set(xs ...string) map[string]bool {
	m := make(map[string]bool, len(xs))
	for _, x := range xs {
		m[x] = true
	}
	return m
}

// Limits on what one node carries. A field's value is kept whole up to
// maxValueChars, for the checks that compare it (input_value); the render
// shows its first maxTextChars.
const (
	maxTextChars  = 160
	maxNameChars  = 200
	maxValueChars = 2000
)

// node is a condensed node before it gets its id.
type node struct {
	role, name, value string
	states            []string
	actionable        bool
	cells             []string // a row's cells, in their places
	options           []string // a select's options, the first maxOptions
	nOptions          int      // and how many it has
	// context is what the node's ancestry says of it (frame, landmark,
	// group, heading, row key); key is the part of it that identifies the
	// node, its heading left out: a page that loses or renames its heading
	// keeps its ids. The heading tells twins apart (see observedNodes).
	context  []string
	key      []string
	heading  string
	contract *schema.Contract
	backend  int64
	frame    string // the out-of-process frame's target id; "" in the page's own process
	// list numbers the innermost list the node sits in, item its item
	// there, group the group of controls it stands in (see
	// schema.ObservedNode).
	list, item, group int
}

// section is the part of the page a node is in: its landmark and the last
// heading seen in that landmark.
type section struct {
	landmark string
	heading  string
}

// scope is what a node inherits from its ancestors.
type scope struct {
	section *section
	group   string
	row     string
	content bool   // loose text here is worth reading
	covered bool   // an emitted ancestor already says this text
	made    bool   // inside a home-made control, which is the control
	frame   string // the iframe the node is in ("frame Help desk"), outermost first
	list    *list  // the innermost list around the node
	item    int    // the list item of it the node is in, from 1; 0 outside one
}

// list is a list the walk is in: its number on the page, and how many
// items of it the walk has entered.
type list struct{ n, items int }

// condenser walks the accessibility trees of a capture. An
// out-of-process frame is walked by a condenser of its own, which adds
// to the same output.
type condenser struct {
	c      *capture
	dom    *domIndex
	frames map[int64]*axFrame // by owner iframe backend id
	byID   map[accessibility.NodeID]*accessibility.Node
	out    *[]node
	seen   *counts // lists and forms the walk has met, frames included
}

// counts numbers the lists and the forms of a page as the walk meets
// them.
type counts struct {
	lists int
	forms map[*domNode]int
}

// group numbers the form the control dn belongs to (the one its form
// attribute names, else the one around it), from 1 in the order met; 0
// for none.
func (d *condenser) group(dn *domNode) int {
	form := d.dom.form(dn)
	if form == nil {
		return 0
	}
	if d.seen.forms == nil {
		d.seen.forms = map[*domNode]int{}
	}
	n, ok := d.seen.forms[form]
	if !ok {
		n = len(d.seen.forms) + 1
		d.seen.forms[form] = n
	}
	return n
}

// condense turns a capture into the nodes a planner reads, in document
// order.
func condense(c *capture) []node {
	var out []node
	newCondenser(c, &out, &counts{}).walkRoot(scope{section: &section{}, content: true})
	return out
}

func newCondenser(c *capture, out *[]node, seen *counts) *condenser {
	d := &condenser{c: c, dom: c.dom, frames: map[int64]*axFrame{}, byID: map[accessibility.NodeID]*accessibility.Node{}, out: out, seen: seen}
	for i := range c.frames {
		f := &c.frames[i]
		d.frames[f.Owner] = f
		for _, n := range f.Nodes {
			d.byID[n.NodeID] = n
		}
	}
	return d
}

// walkRoot walks the capture's main document.
func (d *condenser) walkRoot(sc scope) {
	if main := d.frames[0]; main != nil && len(main.Nodes) > 0 {
		d.walk(root(main), sc)
	}
}

// root is the first node without a parent in the frame's tree.
func root(f *axFrame) *accessibility.Node {
	for _, n := range f.Nodes {
		if n.ParentID == "" {
			return n
		}
	}
	return f.Nodes[0]
}

func (d *condenser) walk(n *accessibility.Node, sc scope) {
	role, name := axString(n.Role), clean(axString(n.Name))
	dn := d.dom.nodes[int64(n.BackendDOMNodeID)]
	if dn != nil && prop(n, "editable") != "" && (role == "generic" || role == "none") {
		role = "textbox" // contenteditable
	}
	if dn != nil && pickerRoles[role] && actionableRoles[strings.ToLower(dn.attrs["type"])+"-picker"] {
		role = strings.ToLower(dn.attrs["type"]) + "-picker"
	}
	switch shown := dn != nil && d.dom.shown(dn); {
	case !n.Ignored && shown:
		sc = d.visit(n, role, name, dn, sc)
	case actionableRoles[role] || role == "heading":
		// The text of a hidden control is hidden with it, even when the
		// text itself has a box (a zero-size button clips its label).
		sc.covered = true
	}
	if dn != nil && (dn.tag == "select" || dn.tag == "input") {
		return // a select's options are its own line; an input's inner parts are the browser's
	}
	for _, id := range n.ChildIDs {
		if child := d.byID[id]; child != nil {
			d.walk(child, sc)
		}
	}
	// An iframe's document is a tree of its own, captured separately, and
	// a section of its own: a heading inside it is no heading of the page
	// around it.
	if dn != nil && dn.tag == "iframe" {
		frame := strings.TrimSpace("frame " + cmp.Or(name, clean(dn.attrs["name"]))) // its title, else its name
		if sc.frame != "" {
			frame = sc.frame + " › " + frame
		}
		sc.frame, sc.section = frame, &section{}
		sc.group, sc.row = "", ""
		if f := d.frames[int64(n.BackendDOMNodeID)]; f != nil && len(f.Nodes) > 0 {
			d.walk(root(f), sc)
		} else if rc := d.c.remote[int64(n.BackendDOMNodeID)]; rc != nil {
			newCondenser(rc, d.out, d.seen).walkRoot(sc)
		}
	}
}

// visit emits what n says and returns the scope for its children.
func (d *condenser) visit(n *accessibility.Node, role, name string, dn *domNode, sc scope) scope {
	switch {
	case landmarkRoles[role] && (name != "" || (role != "region" && role != "form")):
		sc.section = &section{landmark: strings.TrimSpace(role + " " + name)}
		sc.group, sc.row = "", ""
		sc.content = contentRoles[role] || (sc.content && !chromeRoles[role])
		if role == "dialog" || role == "alertdialog" {
			d.emit(n, role, name, dn, false, sc)
		}
	case role == "article":
		sc.content = true
	case groupRoles[role] && name != "":
		sc.group = role + " " + name
	}
	switch {
	case role == "list":
		d.seen.lists++
		sc.list, sc.item = &list{n: d.seen.lists}, 0
	case role == "listitem" && sc.list != nil:
		sc.list.items++
		sc.item = sc.list.items
	}
	made := ""
	if !actionableRoles[role] && !sc.made {
		made = d.homemade(n, role, dn)
	}
	switch {
	case actionableRoles[role]:
		if schema.IsField(role) && (name == "" || namedByPlaceholder(name, dn)) {
			// A field the page names only by a placeholder, or not at all,
			// is named by the label a person reads (see shownLabel): that
			// beats a placeholder, which only shows an example while the
			// field is empty.
			name = cmp.Or(d.shownLabel(n, role), name)
		}
		d.emit(n, role, name, dn, true, sc)
		// A control labelled other than what it shows still shows it:
		// WordPress's editor notices are a button "Dismiss this notice"
		// around the message "Post updated.".
		if shown := schema.Clip(d.text(n), maxTextChars); (role == "button" || role == "link") && shown != "" && !sc.covered &&
			!strings.Contains(strings.ToLower(name), strings.ToLower(shown)) {
			d.emit(n, "text", shown, dn, false, sc)
		}
		sc.covered = true
	case made != "":
		called := cmp.Or(name, schema.Clip(d.text(n), maxTextChars), d.nearText(n))
		out := d.emit(n, made, called, dn, true, sc)
		out.states = append(out.states, d.acts(dn)...)
		sc.covered, sc.made = true, dn.listens&listensDrop == 0 // a drop target holds what is dragged onto it
	case role == "heading" && name != "":
		sc.section.heading = name
		d.emit(n, role, name, dn, false, sc)
		sc.covered = true
	case role == "row":
		cells := d.rowCells(n)
		key := ""
		if i := slices.IndexFunc(cells, func(c string) bool { return c != "" }); i >= 0 {
			key = cells[i]
		}
		if key == "" {
			break
		}
		// The line keeps every cell in its place, an empty one too, so that
		// it reads under its header; the cells travel as they are.
		last := len(cells)
		for last > 0 && cells[last-1] == "" {
			last--
		}
		d.emit(n, role, schema.Clip(strings.Join(cells[:last], " | "), maxNameChars), dn, false, sc).cells = cells
		sc.row = key
		sc.covered = true
	case messageRoles[role] || liveRegion(dn) != "":
		if !messageRoles[role] {
			role = liveRegion(dn)
		}
		if text := schema.Clip(d.text(n), maxTextChars); text != "" && !sc.covered {
			d.emit(n, role, text, dn, false, sc)
		}
		sc.covered = true
	case namingRoles[role]:
		sc.covered = true // the name of a control, group or table already says it
	case role == "DescriptionList":
		if sc.content && !sc.covered {
			if text := schema.Clip(d.definitions(n), maxTextChars); text != "" {
				d.emit(n, "text", text, dn, false, sc)
			}
		}
		sc.covered = true
	case role == "paragraph" || role == "StaticText" || role == "blockquote":
		if sc.content && !sc.covered {
			if text := schema.Clip(d.dataText(n), maxTextChars); text != "" && d.proseText(n) != "" {
				d.emit(n, "text", text, dn, false, sc)
			}
		}
		// Links and controls inside a paragraph are still nodes of their own.
		sc.covered = true
	}
	return sc
}

// definitions renders a description list as "term: definition; ...".
func (d *condenser) definitions(dl *accessibility.Node) string {
	var b strings.Builder
	for _, id := range dl.ChildIDs {
		c := d.byID[id]
		if c == nil || c.Ignored {
			continue
		}
		t := d.dataText(c)
		if t == "" {
			continue
		}
		switch axString(c.Role) {
		case "term":
			if b.Len() > 0 {
				b.WriteString("; ")
			}
			b.WriteString(t + ":")
		default:
			if b.Len() > 0 {
				b.WriteString(" ")
			}
			b.WriteString(t)
		}
	}
	return b.String()
}

// liveRegion returns the message role a live region without one of its
// own speaks as (a toast: aria-live="polite" is a status, "assertive" an
// alert), or "" when dn is no live region.
func liveRegion(dn *domNode) string {
	switch strings.ToLower(dn.attrs["aria-live"]) {
	case "polite":
		return "status"
	case "assertive":
		return "alert"
	}
	return ""
}

// Roles an element may have and still be a home-made control: no
// widget role of its own.
var plainRoles = set("", "generic", "none", "listitem", "img", "image", "cell", "gridcell", "paragraph", "figure", "group")

// Roles of a whole document: a page that takes files dropped anywhere on
// it (WordPress's editor) is no drop target of its own.
var documentRoles = set("RootWebArea", "WebArea")

// homemade returns the role a person would give an element that has no
// widget role yet acts: "clickable" for one that listens for clicks or
// hovers, shows a pointer cursor of its own, or can be focused by tabindex
// (a menu trigger); for a drag source or a drop target that does none of
// those, its own role ("draggable" or "dropzone" when it has none). An
// element that holds controls is their container, not one itself, unless
// things are dropped on it. It returns "" for anything else.
func (d *condenser) homemade(n *accessibility.Node, role string, dn *domNode) string {
	drag, drop := draggable(dn), dn.listens&listensDrop != 0
	if (!plainRoles[role] && !drop) || documentRoles[role] || dn.tag == "body" || dn.tag == "html" {
		return "" // a drop target may be a landmark (a board's column), never the page itself
	}
	_, tabbable := dn.attrs["tabindex"]
	click := plainRoles[role] && (dn.click || dn.pointer || dn.listens&(listensClick|listensHover) != 0 || (tabbable && prop(n, "focusable") == "true"))
	unroled := role == "" || role == "generic" || role == "none"
	switch {
	case !click && !drag && !drop:
		return ""
	case d.holdsControl(n):
		// A container of controls is theirs, not one itself; a named one
		// things are dropped on (a board's column) is a drop target.
		switch {
		case !drop || axString(n.Name) == "":
			return ""
		case unroled:
			return "dropzone"
		}
		return role
	case click:
		return "clickable"
	case !unroled:
		return role
	case drop:
		return "dropzone"
	}
	return "draggable"
}

// acts are the states that say what else a home-made control does.
func (d *condenser) acts(dn *domNode) []string {
	var states []string
	if dn.listens&listensHover != 0 {
		states = append(states, "hover")
	}
	if draggable(dn) {
		states = append(states, "draggable")
	}
	if dn.listens&listensDrop != 0 {
		states = append(states, "drop-target")
	}
	return states
}

func draggable(dn *domNode) bool {
	return strings.EqualFold(dn.attrs["draggable"], "true") || dn.listens&listensDrag != 0
}

// holdsControl reports whether a control of the accessibility tree's own
// is under n (looking at most maxScan nodes deep into it).
func (d *condenser) holdsControl(n *accessibility.Node) bool {
	const maxScan = 500
	seen := 0
	var under func(*accessibility.Node) bool
	under = func(x *accessibility.Node) bool {
		for _, id := range x.ChildIDs {
			c := d.byID[id]
			if c == nil || seen > maxScan {
				continue
			}
			seen++
			if actionableRoles[axString(c.Role)] || under(c) {
				return true
			}
		}
		return false
	}
	return under(n)
}

// nearText is the text nearest an element that shows none of its own
// (an icon that opens a menu): that of its closest ancestor with text.
func (d *condenser) nearText(n *accessibility.Node) string {
	for p, up := d.byID[n.ParentID], 0; p != nil && up < 3; p, up = d.byID[p.ParentID], up+1 {
		if t := schema.Clip(d.dataText(p), 60); t != "" {
			return t
		}
	}
	return ""
}

// rowCells returns the texts of a row's cells in their places: an empty
// cell is "", so that the cells of every row line up with the header's.
func (d *condenser) rowCells(row *accessibility.Node) []string {
	var cells []string
	for _, id := range row.ChildIDs {
		c := d.byID[id]
		if c == nil || c.Ignored {
			continue
		}
		cells = append(cells, schema.Clip(d.dataText(c), 60))
	}
	return cells
}

// text returns the visible text under n: its StaticText descendants
// joined by spaces, or its name when it has no text of its own.
func (d *condenser) text(n *accessibility.Node) string { return d.collectText(n, nil) }

// dataText leaves out the text of controls other than links and of
// labels: it names a control, it is not the content (a row's "Archive"
// button, a form's "Username" label).
func (d *condenser) dataText(n *accessibility.Node) string { return d.collectText(n, notData) }

// proseText leaves out links too: what a paragraph says besides its
// controls ("" for a paragraph that only holds a link).
func (d *condenser) proseText(n *accessibility.Node) string { return d.collectText(n, notProse) }

var (
	namingRoles = set("LabelText", "legend", "caption")
	notData     = func(role string) bool { return namingRoles[role] || (actionableRoles[role] && role != "link") }
	notProse    = func(role string) bool { return namingRoles[role] || actionableRoles[role] }
)

// collectText joins the text under n, leaving out the subtrees of the
// roles skip returns true for (n itself is always read).
func (d *condenser) collectText(n *accessibility.Node, skip func(role string) bool) string {
	var parts []string
	var collect func(*accessibility.Node)
	collect = func(x *accessibility.Node) {
		if x != n && skip != nil && skip(axString(x.Role)) {
			return
		}
		if x.Ignored {
			for _, id := range x.ChildIDs {
				if c := d.byID[id]; c != nil {
					collect(c)
				}
			}
			return
		}
		if dn := d.dom.nodes[int64(x.BackendDOMNodeID)]; dn == nil || !d.dom.shown(dn) {
			return
		}
		if axString(x.Role) == "StaticText" {
			if t := clean(axString(x.Name)); t != "" {
				parts = append(parts, t)
			}
			return
		}
		for _, id := range x.ChildIDs {
			if c := d.byID[id]; c != nil {
				collect(c)
			}
		}
	}
	collect(n)
	if len(parts) == 0 && skip == nil {
		return clean(axString(n.Name))
	}
	return clean(strings.Join(parts, " "))
}

func (d *condenser) emit(n *accessibility.Node, role, name string, dn *domNode, actionable bool, sc scope) *node {
	out := node{role: role, name: schema.Clip(name, maxNameChars), actionable: actionable, backend: int64(n.BackendDOMNodeID)}
	for _, part := range []string{sc.frame, sc.section.landmark, sc.group, sc.section.heading, sc.row} {
		if part != "" && part != out.name {
			out.context = append(out.context, part)
			if part != sc.section.heading {
				out.key = append(out.key, part)
			}
		}
	}
	if sc.section.heading != out.name {
		out.heading = sc.section.heading
	}
	if actionable {
		out.value, out.states = d.valueAndStates(n, role, dn)
		out.contract = d.contract(dn)
		out.group = d.group(dn)
		if dn.tag == "select" {
			var chosen []string
			out.options, chosen, out.nOptions = d.selectOptions(n)
			if out.value == "" && len(chosen) > 0 { // a multiple select says no value of its own
				out.value = schema.Clip(strings.Join(chosen, ", "), maxTextChars)
			}
		}
	}
	out.frame = d.c.frame
	if sc.list != nil && sc.item > 0 {
		out.list, out.item = sc.list.n, sc.item
	}
	*d.out = append(*d.out, out)
	return &(*d.out)[len(*d.out)-1]
}

// Options a select's line shows: all of them up to maxAllOptions, else
// the first maxOptions and how many there are.
const (
	maxOptions    = 8
	maxAllOptions = 12
	maxOptionName = 60
)

// selectOptions returns the labels of a select's options (placeholders
// without a label left out), at most maxAllOptions of them or else the
// first maxOptions, the labels of those selected, and how many options it
// has.
func (d *condenser) selectOptions(sel *accessibility.Node) (shown, chosen []string, total int) {
	var all []string
	var walk func(*accessibility.Node)
	walk = func(x *accessibility.Node) {
		for _, id := range x.ChildIDs {
			c := d.byID[id]
			if c == nil {
				continue
			}
			if axString(c.Role) != "option" {
				walk(c)
				continue
			}
			name := schema.Clip(clean(axString(c.Name)), maxOptionName)
			if name == "" {
				continue
			}
			all = append(all, name)
			if prop(c, "selected") == "true" {
				chosen = append(chosen, name)
			}
		}
	}
	walk(sel)
	if len(all) > maxAllOptions {
		return all[:maxOptions], chosen, len(all)
	}
	return all, chosen, len(all)
}

// valueAndStates reads a control's current value and its states.
func (d *condenser) valueAndStates(n *accessibility.Node, role string, dn *domNode) (string, []string) {
	value := clean(axString(n.Value))
	switch {
	case role == "checkbox" || role == "radio" || role == "switch" || role == "link" || role == "button":
		value = "" // the state says it; an input's value here is "on"
	case dn.tag == "input" || dn.tag == "textarea":
		value = dn.value
	}
	if strings.EqualFold(dn.attrs["type"], "password") && value != "" {
		value = "••••••"
	}
	var states []string
	switch prop(n, "checked") {
	case "true":
		states = append(states, "checked")
	case "mixed":
		states = append(states, "mixed")
	}
	// Focus is left out: it moves with every action and says little.
	for _, p := range []string{"selected", "disabled", "readonly", "required"} {
		if prop(n, p) == "true" {
			states = append(states, p)
		}
	}
	switch prop(n, "expanded") {
	case "true":
		states = append(states, "expanded")
	case "false":
		if role != "combobox" { // a closed select is no news
			states = append(states, "collapsed")
		}
	}
	if v := prop(n, "invalid"); v != "" && v != "false" {
		states = append(states, "invalid")
	}
	return schema.Clip(value, maxValueChars), states
}

// contract is what the control is: tag and input type, the target of a
// link, and for a control that can send its form the form's action and
// method as that control would send it. A submit button sends with its
// own formaction and formmethod; a field sends by implicit submission
// (Enter), which uses the form's default button, so its contract names
// where that button sends.
func (d *condenser) contract(dn *domNode) *schema.Contract {
	c := &schema.Contract{Tag: dn.tag}
	switch dn.tag {
	case "input", "button":
		c.InputType = inputType(dn)
		if c.InputType == "radio" {
			c.Group = dn.attrs["name"]
		}
	case "a":
		if href, ok := dn.attrs["href"]; ok {
			c.Href = d.dom.sendsTo(dn, href)
		}
	}
	f := d.dom.form(dn)
	if f == nil {
		return c
	}
	var by *domNode // the button whose submission sends the form, if any
	switch {
	case submits(dn):
		by = dn
	case dn.tag == "input" && !slices.Contains([]string{"button", "reset", "hidden"}, c.InputType):
		by = d.dom.defaultButton(f)
	default:
		return c
	}
	action, method := f.attrs["action"], strings.ToLower(f.attrs["method"])
	if by != nil {
		if fa, ok := by.attrs["formaction"]; ok {
			action = fa
		}
		if fm := strings.ToLower(by.attrs["formmethod"]); fm != "" {
			method = fm
		}
	}
	if method == "" {
		method = "get"
	}
	c.FormAction, c.FormMethod = d.dom.sendsTo(dn, action), method
	return c
}

// inputType is an input's or button's type as its attribute says,
// lowercased: text for an input without one, submit for a button.
func inputType(dn *domNode) string {
	typ := strings.ToLower(dn.attrs["type"])
	if typ != "" {
		return typ
	}
	if dn.tag == "button" {
		return "submit"
	}
	return "text"
}

// submits reports whether n is a submit button.
func submits(n *domNode) bool {
	typ := inputType(n)
	return n.tag == "button" && typ == "submit" || n.tag == "input" && (typ == "submit" || typ == "image")
}

// axString returns the string inside an AX value; values arrive as JSON.
func axString(v *accessibility.Value) string {
	if v == nil || len(v.Value) == 0 {
		return ""
	}
	var s string
	if err := json.Unmarshal(v.Value, &s); err == nil {
		return s
	}
	return strings.Trim(string(v.Value), `"`)
}

// prop returns the named AX property as text ("true", "false", "mixed",
// a number), or "" when the node does not have it.
func prop(n *accessibility.Node, name string) string {
	for _, p := range n.Properties {
		if string(p.Name) == name {
			return axString(p.Value)
		}
	}
	return ""
}

// clean folds runs of white space into single spaces.
func clean(s string) string { return strings.Join(strings.Fields(s), " ") }
