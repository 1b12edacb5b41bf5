package schema

// ObservedNode is one node of a distilled page: a control a user can act
// on, or the text that gives controls their meaning (a heading, a column
// header, a dialog, an alert, a status message, a paragraph of content).
type ObservedNode struct {
	// ID is the node's stable id: a short hash of role, accessible name
	// and ancestry content, the same across reloads and re-renders.
	ID         string   `msgpack:"id" json:"id"`
	Role       string   `msgpack:"role" json:"role"`
	Name       string   `msgpack:"name" json:"name"`
	Value      string   `msgpack:"value,omitempty" json:"value,omitempty"`
	States     []string `msgpack:"states,omitempty" json:"states,omitempty"` // checked, selected, disabled, expanded, required, invalid, focused
	Actionable bool     `msgpack:"actionable" json:"actionable"`
	// Cells are a row's cells in their places, an empty one as "": the
	// name joins them for reading, and a cell may hold " | " itself.
	Cells []string `msgpack:"cells,omitempty" json:"cells,omitempty"`
	// Options are a select's option labels: all of them when it has few,
	// else the first few; OptionCount says how many it has.
	Options     []string `msgpack:"options,omitempty" json:"options,omitempty"`
	OptionCount int      `msgpack:"option_count,omitempty" json:"option_count,omitempty"`
	// Context is the ancestry content the id is built from: the nearest
	// landmark, dialog or form, heading and row key, joined by " › ".
	Context  string    `msgpack:"context,omitempty" json:"context,omitempty"`
	Contract *Contract `msgpack:"contract,omitempty" json:"contract,omitempty"`
	// List tells apart the lists of a page (1, 2, ... in the page's
	// order) and Item is the place, from 1, of the list item the node
	// sits in, in the innermost list around it; both 0 outside any list.
	// They count the items a place names (PlaceOf), and are no part of
	// the id.
	List int `msgpack:"list,omitempty" json:"list,omitempty"`
	Item int `msgpack:"item,omitempty" json:"item,omitempty"`
	// Group tells apart the groups a page's controls stand in: the form
	// a control belongs to (1, 2, ... in the page's order), or in a
	// snapshot, which shows no forms, the nearest container that holds
	// others of its role; 0 for none. A place counts boxes of one group,
	// and radios of one name (their contract's Group) within it.
	Group int `msgpack:"group,omitempty" json:"group,omitempty"`
	// Backend is the CDP backend node id in the page the node was captured
	// from. It is only meaningful to the browser, for that page.
	Backend int64 `msgpack:"backend" json:"backend"`
	// Frame is the target id of the out-of-process frame (a cross-site
	// iframe) the node is in, whose renderer Backend belongs to; "" for
	// the page's own.
	Frame string `msgpack:"frame,omitempty" json:"frame,omitempty"`
}

// Observation is what perception saw of a page.
type Observation struct {
	URL   string          `msgpack:"url" json:"url"`
	Title string          `msgpack:"title" json:"title"`
	Kind  ObservationKind `msgpack:"kind" json:"kind"`
	// Render is the compact text a planner reads: the whole page (Kind
	// full) or the changes since the last grounded observation (Kind diff).
	Render string `msgpack:"render" json:"render"`
	// Bootstrap marks a full render over the ordinary budget, accepted once
	// under the emergency ceiling.
	Bootstrap bool `msgpack:"bootstrap,omitempty" json:"bootstrap,omitempty"`
	// Nodes is always the whole distilled page, whatever Kind is.
	Nodes []ObservedNode `msgpack:"nodes" json:"nodes"`
	// Text is the visible text of the page, for text assertions.
	Text  string           `msgpack:"text" json:"text"`
	Stats ObservationStats `msgpack:"stats" json:"stats"`
}

// World returns the observation as the state expect assertions check.
func (o *Observation) World() World {
	w := World{Page: true, URL: o.URL, Text: o.Text, Nodes: make([]WorldNode, 0, len(o.Nodes))}
	if o.Kind == ObservationFull {
		w.Render = o.Render
	}
	for _, n := range o.Nodes {
		w.Nodes = append(w.Nodes, WorldNode{ID: n.ID, Role: n.Role, Name: n.Name, Value: n.Value})
	}
	return w
}

// fieldRoles are the roles of the controls a form holds and labels:
// fields a value is typed, chosen or set in, the pickers among them.
var fieldRoles = map[string]bool{"textbox": true, "searchbox": true, "combobox": true, "listbox": true, "checkbox": true,
	"radio": true, "switch": true, "slider": true, "spinbutton": true, "date-picker": true, "time-picker": true,
	"datetime-local-picker": true, "month-picker": true, "week-picker": true, "color-picker": true}

// radioGroup is a radio's name, which makes its group (the plan's radios
// apart from the billing period's in one form), as its contract says;
// "" for any other node, or a radio whose group is not known.
func (n ObservedNode) radioGroup() string {
	if n.Contract == nil {
		return ""
	}
	return n.Contract.Group
}

// IsField reports whether role is a form field's (a textbox, a checkbox,
// a date picker), not a button's, a link's or a record's.
func IsField(role string) bool { return fieldRoles[role] }
