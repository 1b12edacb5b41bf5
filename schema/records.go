package schema

import (
	"fmt"
	"strings"
)

// Record is one of the sibling controls a choice was made among: the
// same control in each row of a table ("Download" in every report's
// row), or one entry of a list whose names share a pattern and differ in
// data ("Download RPT-2026-11", "Download RPT-2026-10").
type Record struct {
	Name string `msgpack:"name" json:"name"`
	// Key tells the record from its siblings: its row's first cell, or
	// the part of its name its siblings do not share.
	Key string `msgpack:"key" json:"key"`
	// Cells are its row's cells, when it sits in a table row.
	Cells []string `msgpack:"cells,omitempty" json:"cells,omitempty"`
}

// Label names a record for a person: its control's name, and its key
// when the name does not hold it (a row's Trash button).
func (r Record) Label() string {
	if strings.Contains(strings.ToLower(r.Name), strings.ToLower(r.Key)) {
		return r.Name
	}
	return fmt.Sprintf("%s in the row %q", r.Name, r.Key)
}

// RecordSet is the records a control sits among, found on a page
// (package records finds them).
type RecordSet struct {
	// Pattern is the controls' shared name, "*" standing for the key
	// where the name holds it.
	Pattern string `msgpack:"pattern" json:"pattern"`
	// Rows says the records are table rows, keyed by their first cell.
	Rows bool `msgpack:"rows,omitempty" json:"rows,omitempty"`
	// Within is the context the records share.
	Within  string   `msgpack:"within,omitempty" json:"within,omitempty"`
	Records []Record `msgpack:"records" json:"records"`
	// Header is the cells of the rows' header row, when the table has one.
	Header []string `msgpack:"header,omitempty" json:"header,omitempty"`
	// Role is the role of a list's nodes (records.Lists).
	Role string `msgpack:"role,omitempty" json:"role,omitempty"`
	// Among says the records are what a place counts (AmongItems,
	// AmongControls), with nothing in their names that is data: only a
	// place the task states chooses among them.
	Among string `msgpack:"among,omitempty" json:"among,omitempty"`
	// Radios is, for radios counted by place, the name of their group;
	// Shapes, for a list's items, their shapes (Count.Shapes).
	Radios string   `msgpack:"radios,omitempty" json:"radios,omitempty"`
	Shapes []string `msgpack:"shapes,omitempty" json:"shapes,omitempty"`
	// More counts the records left out past MaxRecords.
	More int `msgpack:"more,omitempty" json:"more,omitempty"`
}

// MaxRecords is how many records a set keeps (records.Around) and an
// extract may read off a list: what a choice was made among travels in
// an event.
const MaxRecords = 100

// keyMark stands for a record's key inside a name pattern.
const keyMark = "*"

// keys lists the records' keys, in order.
func (s RecordSet) keys() []string {
	out := make([]string, len(s.Records))
	for i, r := range s.Records {
		out[i] = r.Key
	}
	return out
}
